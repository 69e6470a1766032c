/**
 * Bindings of an exchange or queue: the table (with unbind) and the add-binding form.
 * Unbinding uses the binding's properties_key, as the API's binding URLs do.
 */
import { useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { html } from "../html.js";
import { href } from "../router.js";
import { useAction } from "./action.js";
import { ErrorBox, Notice } from "./error-box.js";
import { argsObject, ArgsEditor, SelectField, TextField, type ArgRow } from "./fields.js";

export interface Binding {
  source: string;
  vhost: string;
  destination: string;
  destination_type: "queue" | "exchange";
  routing_key: string;
  arguments: Record<string, unknown>;
  properties_key: string;
}

const exchangeSeg = (name: string): string => name || "amq.default";
const unbindPath = (b: Binding): string =>
  `${apiPath`/bindings/${b.vhost}/e/${exchangeSeg(b.source)}/${b.destination_type === "queue" ? "q" : "e"}/${b.destination}`}/${encodeURIComponent(b.properties_key)}`;

/**
 * `show`: which end to print (the other is the page's own object). `canUnbind` says per binding
 * whether the user may remove it: true, the reason it may not, or false while that is not known.
 */
export function BindingsTable({ bindings, show, onChange, canUnbind }: { bindings: readonly Binding[]; show: "source" | "destination"; onChange: () => void; canUnbind: (b: Binding) => true | string | false }) {
  const { api } = useApp();
  const act = useAction(onChange);
  if (bindings.length === 0) return html`<p class="muted">No bindings.</p>`;
  return html`<${ErrorBox} error=${act.error} />
    <table class="grid" aria-label=${show === "source" ? "Bindings from" : "Bindings to"}><thead><tr>
      <th>${show === "source" ? "From exchange" : "To"}</th><th>Routing key</th><th>Arguments</th><th><span class="sr-only">Actions</span></th>
    </tr></thead><tbody>
      ${bindings.map((b) => {
        const end = show === "source" ? b.source : b.destination;
        const isQueue = show === "destination" && b.destination_type === "queue";
        const link = isQueue ? href("queues", b.vhost, end) : href("exchanges", b.vhost, exchangeSeg(end));
        const implicit = b.source === "";
        return html`<tr key=${b.source + "\u0000" + b.destination + "\u0000" + b.properties_key}>
          <td>${show === "destination" ? html`<span class="tag">${b.destination_type}</span> ` : null}<a href=${link}>${end || "(AMQP default)"}</a></td>
          <td><code>${b.routing_key}</code></td>
          <td>${Object.keys(b.arguments ?? {}).length ? JSON.stringify(b.arguments) : ""}</td>
          <td>${implicit ? html`<span class="muted">implicit</span>` : html`<${UnbindCell} may=${canUnbind(b)} busy=${act.busy} run=${() => act.run(async () => void (await api.del(unbindPath(b))))} />`}</td>
        </tr>`;
      })}
    </tbody></table>`;
}

function UnbindCell({ may, busy, run }: { may: true | string | false; busy: boolean; run: () => void }) {
  if (may === true) return html`<button type="button" class="small" disabled=${busy} onClick=${run}>Unbind</button>`;
  if (may === false) return null;
  return html`<span class="muted small" title=${may}>not permitted<span class="sr-only">: ${may}</span></span>`;
}

/** Add a binding. From an exchange page: to a queue or exchange; from a queue page: from an exchange. */
export function BindForm({ vhost, source, destination, onChange }: { vhost: string; source?: string; destination?: { type: "q" | "e"; name: string }; onChange: () => void }) {
  const { api } = useApp();
  const [other, setOther] = useState("");
  const [otherType, setOtherType] = useState<"q" | "e">("q");
  const [key, setKey] = useState("");
  const [args, setArgs] = useState<ArgRow[]>([]);
  const act = useAction(onChange);
  const submit = (e: Event): Promise<boolean> => {
    e.preventDefault();
    return act.run(async () => {
      const src = source ?? other;
      const dst = destination ?? { type: otherType, name: other };
      await api.post(apiPath`/bindings/${vhost}/e/${exchangeSeg(src)}/${dst.type}/${dst.name}`, { routing_key: key, arguments: argsObject(args) });
      return "Binding added.";
    });
  };
  return html`<form class="form" onSubmit=${submit} aria-label="Add binding">
    ${source !== undefined
      ? html`<div class="field-row">
          <${SelectField} label="Destination type" name="destination_type" value=${otherType} set=${(v: string) => setOtherType(v as "q" | "e")} options=${[["q", "Queue"], ["e", "Exchange"]]} />
          <${TextField} label=${otherType === "q" ? "To queue" : "To exchange"} name="destination" value=${other} set=${setOther} required=${true} />
        </div>`
      : html`<${TextField} label="From exchange" name="source" value=${other} set=${setOther} required=${true} />`}
    <${TextField} label="Routing key" name="routing_key" value=${key} set=${setKey} />
    <${ArgsEditor} label="Arguments" rows=${args} set=${setArgs} />
    <div class="form-actions"><button type="submit" disabled=${act.busy}>Bind</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}
