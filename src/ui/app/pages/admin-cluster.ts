/**
 * Admin › Cluster: the cluster name (renamed by administrators; the API keeps it as the global
 * parameter cluster_name) and the global runtime parameters (cluster_tags and others, any JSON
 * value): list, set, delete. Global parameters need the policymaker tag, as in the API.
 */
import { useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { hasTag, useApp } from "../app-context.js";
import { useAction } from "../components/action.js";
import { AdminFrame, DeleteButton } from "../components/admin-kit.js";
import { ErrorBox, Notice } from "../components/error-box.js";
import { TextField } from "../components/fields.js";
import { KvTable, Section } from "../components/kv.js";
import { html } from "../html.js";
import { useLive } from "../live.js";

interface GlobalParameter {
  name: string;
  value: unknown;
}

export function AdminClusterPage() {
  return html`<${AdminFrame} seg="cluster" title="Cluster"><${AdminClusterBody} /><//>`;
}

/** What only users allowed the section get (AdminFrame renders it): no request is made for others. */
function AdminClusterBody() {
  const { api, tags } = useApp();
  const cluster = useLive(() => api.get<{ name: string }>("/cluster-name"), [], { live: false });
  const params = useLive(() => api.get<GlobalParameter[]>("/global-parameters"), []);
  return html`    <${ErrorBox} error=${cluster.error} />
    ${cluster.data
      ? html`<div class="admin-summary"><${KvTable} label="Cluster" rows=${[["Cluster name", html`<strong>${cluster.data.name}</strong>`]]} /></div>`
      : null}
    ${hasTag(tags, "administrator") && cluster.data ? html`<${Rename} current=${cluster.data.name} onDone=${() => {
      cluster.reload();
      params.reload();
    }} />` : null}
    <${Section} title="Global parameters">
      <${ErrorBox} error=${params.error} />
      ${params.data
        ? params.data.length === 0
          ? html`<p class="muted">No global parameters.</p>`
          : html`<table class="grid" aria-label="Global parameters"><thead><tr><th>Name</th><th>Value</th><th><span class="sr-only">Actions</span></th></tr></thead><tbody>
              ${params.data.map(
                (p) => html`<tr key=${p.name}><td>${p.name}</td><td><code class="json">${JSON.stringify(p.value)}</code></td>
                  <td><${DeleteButton} what=${`global parameter ${p.name}`} run=${() => api.del(apiPath`/global-parameters/${p.name}`)} onDone=${params.reload} /></td></tr>`,
              )}
            </tbody></table>`
        : null}
      <h3>Set a global parameter</h3>
      <${SetParameter} onDone=${params.reload} />
    <//>`;
}

function SetParameter({ onDone }: { onDone: () => void }) {
  const { api } = useApp();
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const act = useAction(onDone);
  const submit = (e: Event): void => {
    e.preventDefault();
    void act.run(async () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        throw new Error(`The value is JSON: a string needs quotes ("eu-west"), an object braces ({"region": "eu"}).`);
      }
      await api.put(apiPath`/global-parameters/${name}`, { value: parsed });
      return `Global parameter ${name} set.`;
    });
  };
  return html`<form class="form admin-form" onSubmit=${submit} aria-label="Set a global parameter">
    <${TextField} label="Name" name="name" value=${name} set=${setName} required=${true} placeholder="cluster_tags" />
    <label class="field">Value (JSON)
      <textarea name="value" rows="3" required value=${value} onInput=${(e: Event) => setValue((e.target as HTMLTextAreaElement).value)} placeholder='{"region": "eu-west"}'></textarea>
    </label>
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Set parameter</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}

function Rename({ current, onDone }: { current: string; onDone: () => void }) {
  const { api } = useApp();
  const [name, setName] = useState(current);
  const act = useAction(onDone);
  const submit = (e: Event): void => {
    e.preventDefault();
    void act.run(async () => {
      await api.put("/cluster-name", { name: name.trim() });
      return `Cluster renamed to ${name.trim()}. Clients see it on their next connection; the page header on its next load.`;
    });
  };
  return html`<form class="form admin-form" onSubmit=${submit} aria-label="Rename the cluster">
    <div class="field-row">
      <${TextField} label="New cluster name" name="cluster_name" value=${name} set=${setName} required=${true} />
    </div>
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy || name.trim() === "" || name.trim() === current}>Rename cluster</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}
