/**
 * Definitions export (download as a JSON file) and import (upload a file) — the whole broker or
 * the selected virtual host. Part of the Overview page.
 */
import { useState } from "preact/hooks";
import { useApp } from "../app-context.js";
import { ErrorBox, Notice } from "../components/error-box.js";
import { useAction } from "../components/action.js";
import { html } from "../html.js";

export function Definitions({ path, vhost }: { path: string; vhost: string }) {
  const { api } = useApp();
  const exp = useAction();
  const imp = useAction();
  const [file, setFile] = useState<File | null>(null);

  const download = (): Promise<boolean> =>
    exp.run(async () => {
      const defs = await api.get<unknown>(path);
      const blob = new Blob([JSON.stringify(defs, null, 2)], { type: "application/json" });
      const url = URL.createObjectURL(blob);
      const a = document.createElement("a");
      const stamp = new Date().toISOString().slice(0, 10);
      a.href = url;
      a.download = `coney-definitions${vhost ? `-${vhost.replace(/[^\w.-]+/g, "_")}` : ""}-${stamp}.json`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      return "Definitions downloaded.";
    });

  const upload = (e: Event): Promise<boolean> => {
    e.preventDefault();
    return imp.run(async () => {
      if (!file) throw new Error("Choose a definitions file first.");
      let body: unknown;
      try {
        body = JSON.parse(await file.text());
      } catch (err) {
        throw new Error(`${file.name} is not JSON: ${(err as Error).message}`);
      }
      await api.post(path, body);
      return `Imported ${file.name}.`;
    });
  };

  return html`<div class="defs">
    <div class="defs-part">
      <h3>Export</h3>
      <p class="muted">Users, virtual hosts, permissions, policies, parameters, queues, exchanges and bindings as JSON.</p>
      <button type="button" onClick=${download} disabled=${exp.busy}>Download definitions</button>
      <${ErrorBox} error=${exp.error} /><${Notice} text=${exp.done} />
    </div>
    <form class="defs-part" onSubmit=${upload}>
      <h3>Import</h3>
      <label>Definitions file <input type="file" accept=".json,application/json" onChange=${(e: Event) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)} /></label>
      <button type="submit" disabled=${imp.busy || !file}>Upload definitions</button>
      <${ErrorBox} error=${imp.error} /><${Notice} text=${imp.done} />
    </form>
  </div>`;
}
