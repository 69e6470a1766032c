/**
 * For "add" forms: a virtual-host picker, filled from /api/vhosts once; `only` narrows it to the
 * vhosts where the user may do what the form does (declare a queue, set a policy); and the names
 * the user's configure pattern allows there.
 */
import { useEffect, useState } from "preact/hooks";
import { useApp } from "../app-context.js";
import { SelectField } from "./fields.js";
import { html } from "../html.js";

export function VhostField({ value, set, only }: { value: string; set: (v: string) => void; only?: readonly string[] }) {
  const { api } = useApp();
  const [all, setAll] = useState<string[]>([]);
  useEffect(() => {
    api.get<Array<{ name: string }>>("/vhosts", { columns: "name" }).then((v) => setAll(v.map((x) => x.name)), () => setAll([]));
  }, [api]);
  const names = only ? all.filter((n) => only.includes(n)) : all;
  const key = names.join("\u0000");
  useEffect(() => {
    if (names.length > 0 && !names.includes(value)) set(names.includes("/") ? "/" : names[0]!);
  }, [key]);
  // Required: until the list arrives the value may be "" (the app's "all vhosts"), and a form
  // sent then would name no vhost (PUT /api/queues//name). The browser holds it back instead.
  return html`<${SelectField} label="Virtual host" name="vhost" value=${value} set=${set} required=${true} options=${names.map((n) => [n, n] as const)} />`;
}

/** The names the user may declare in the chosen vhost, as its configure pattern says (shown, not evaluated here). */
export function NamePattern({ pattern, vhost }: { pattern: string | null | undefined; vhost: string }) {
  if (pattern === undefined || pattern === ".*") return null;
  return html`<p class="hint">${pattern === null ? `Your token's scopes decide which names you may declare in ${vhost}.` : html`Names you may declare in ${vhost} match your configure pattern <code>${pattern}</code>.`}</p>`;
}

