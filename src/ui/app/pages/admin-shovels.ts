/**
 * Admin › Shovel Management and Admin › Shovel Status, as RabbitMQ's rabbitmq_shovel_management
 * pages: the dynamic shovels defined (the `shovel` runtime parameters, GET /api/parameters/shovel)
 * with their source, destination, ack mode and auto-delete, a form to add one with RabbitMQ's
 * keys and a Delete button; and every shovel's state (GET /api/shovels: starting, running,
 * terminated with its reason) with a Restart button. Defining and deleting need policymaker (as
 * the parameter); the status needs monitoring, as the API.
 */
import { useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { hasTag, useApp } from "../app-context.js";
import { useAction } from "../components/action.js";
import { AdminFrame, DeleteButton } from "../components/admin-kit.js";
import { ErrorBox, Notice } from "../components/error-box.js";
import { SelectField, TextField } from "../components/fields.js";
import { Section } from "../components/kv.js";
import { VhostField } from "../components/vhost-select.js";
import { TableWrap } from "../components/table-wrap.js";
import { html } from "../html.js";
import { useLive } from "../live.js";

interface ShovelParameter {
  vhost: string;
  name: string;
  value: Record<string, unknown>;
}

export interface ShovelStatusRecord {
  name: string;
  vhost: string;
  type: string;
  state: string;
  timestamp: string;
  reason?: string;
  src_uri?: string;
  dest_uri?: string;
  src_queue?: string;
  src_exchange?: string;
  src_exchange_key?: string;
  dest_queue?: string;
  dest_exchange?: string;
  dest_exchange_key?: string;
}

const str = (v: unknown): string => (v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));

/** "queue q" / "exchange x (key k)" as RabbitMQ's pages describe an end. */
function end(queue: unknown, exchange: unknown, key: unknown): string {
  if (queue !== undefined) return `queue ${str(queue)}`;
  if (exchange !== undefined) return `exchange ${str(exchange) || "(AMQP default)"}${key !== undefined && key !== "" ? ` (key ${str(key)})` : ""}`;
  return "";
}

const uris = (v: unknown): string => (Array.isArray(v) ? v.map(str).join(", ") : str(v)).replace(/\/\/[^@/]*@/g, "//");

export function AdminShovelsPage() {
  return html`<${AdminFrame} seg="shovels" title="Shovel Management"><${ShovelsBody} /><//>`;
}

function ShovelsBody() {
  const { api } = useApp();
  const list = useLive(() => api.get<ShovelParameter[]>("/parameters/shovel"), []);
  return html`<p class="lead">Dynamic shovels move messages from a queue or exchange to a queue or exchange, on this broker (<code>amqp://</code>) or another.</p>
    <${ErrorBox} error=${list.error} />
    ${list.data
      ? list.data.length === 0
        ? html`<p class="muted">No shovels are defined.</p>`
        : html`<${TableWrap}><table class="grid shovel-table" aria-label="Shovels"><thead><tr><th>Name</th><th>Virtual host</th><th>Source</th><th>Destination</th><th>Reconnect delay</th><th>Ack mode</th><th>Auto-delete</th><th></th></tr></thead>
          <tbody>${list.data.map((p) => {
            const v = p.value;
            return html`<tr key=${`${p.vhost}/${p.name}`} data-shovel=${p.name}>
              <td>${p.name}</td><td>${p.vhost}</td>
              <td class="ends">${uris(v["src-uri"])}<br /><span class="muted">${end(v["src-queue"], v["src-exchange"], v["src-exchange-key"])}</span></td>
              <td class="ends">${uris(v["dest-uri"])}<br /><span class="muted">${end(v["dest-queue"], v["dest-exchange"], v["dest-exchange-key"])}</span></td>
              <td>${str(v["reconnect-delay"] ?? 5)}s</td>
              <td>${str(v["ack-mode"] ?? "on-confirm")}</td>
              <td>${str(v["src-delete-after"] ?? v["delete-after"] ?? "never")}</td>
              <td><${DeleteButton} label="Delete shovel" what=${`shovel ${p.name} in ${p.vhost}`} run=${() => api.del(apiPath`/parameters/shovel/${p.vhost}/${p.name}`)} onDone=${list.reload} /></td>
            </tr>`;
          })}</tbody></table><//>`
      : list.loading ? html`<p class="muted">Loading…</p>` : null}
    <${Section} title="Add a new shovel"><${AddShovel} added=${list.reload} /><//>`;
}

function AddShovel({ added }: { added: () => void }) {
  const { api, vhost: selected, tags, access } = useApp();
  const only = hasTag(tags, "administrator") || !access ? undefined : access.vhosts.map((v) => v.name);
  const [vhost, setVhost] = useState(selected);
  const [name, setName] = useState("");
  const [srcUri, setSrcUri] = useState("amqp://");
  const [srcKind, setSrcKind] = useState("queue");
  const [src, setSrc] = useState("");
  const [srcKey, setSrcKey] = useState("");
  const [prefetch, setPrefetch] = useState("1000");
  const [deleteAfter, setDeleteAfter] = useState("never");
  const [destUri, setDestUri] = useState("amqp://");
  const [destKind, setDestKind] = useState("queue");
  const [dest, setDest] = useState("");
  const [destKey, setDestKey] = useState("");
  const [forward, setForward] = useState("false");
  const [reconnect, setReconnect] = useState("5");
  const [ackMode, setAckMode] = useState("on-confirm");
  const act = useAction(added);
  const submit = (e: Event): void => {
    e.preventDefault();
    void act.run(async () => {
      const list = (text: string): string | string[] => {
        const parts = text.trim().split(/\s+/);
        return parts.length === 1 ? parts[0]! : parts;
      };
      const value: Record<string, unknown> = { "src-uri": list(srcUri), "dest-uri": list(destUri), "ack-mode": ackMode, "src-delete-after": deleteAfter, "dest-add-forward-headers": forward === "true" };
      if (srcKind === "queue") value["src-queue"] = src;
      else {
        value["src-exchange"] = src;
        if (srcKey !== "") value["src-exchange-key"] = srcKey;
      }
      if (destKind === "queue") {
        if (dest !== "") value["dest-queue"] = dest;
      } else {
        value["dest-exchange"] = dest;
        if (destKey !== "") value["dest-exchange-key"] = destKey;
      }
      if (prefetch !== "") value["src-prefetch-count"] = Number(prefetch);
      if (reconnect !== "") value["reconnect-delay"] = Number(reconnect);
      await api.put(apiPath`/parameters/shovel/${vhost}/${name}`, { value });
      return `Shovel ${name} added in ${vhost}.`;
    });
  };
  const kinds = [["queue", "Queue"], ["exchange", "Exchange"]] as const;
  return html`<form class="form admin-form" onSubmit=${submit} aria-label="Add shovel">
    <${VhostField} value=${vhost} set=${setVhost} only=${only} />
    <${TextField} label="Name" name="name" value=${name} set=${setName} required=${true} />
    <h3>Source</h3>
    <${TextField} label="URI" name="src-uri" value=${srcUri} set=${setSrcUri} required=${true} hint="amqp:// (no host) is this broker; amqp://user:pass@host:5672/vhost another; several: separate with spaces." />
    <div class="field-row">
      <${SelectField} label="Type" name="src-kind" value=${srcKind} set=${setSrcKind} options=${kinds} />
      <${TextField} label=${srcKind === "queue" ? "Queue" : "Exchange"} name="src" value=${src} set=${setSrc} required=${true} />
      ${srcKind === "exchange" ? html`<${TextField} label="Routing key" name="src-exchange-key" value=${srcKey} set=${setSrcKey} />` : null}
    </div>
    <div class="field-row">
      <${TextField} label="Prefetch count" name="src-prefetch-count" type="number" value=${prefetch} set=${setPrefetch} />
      <${SelectField} label="Auto-delete" name="src-delete-after" value=${deleteAfter} set=${setDeleteAfter} options=${[["never", "Never"], ["queue-length", "After initial length transferred"]] as const} />
    </div>
    <h3>Destination</h3>
    <${TextField} label="URI" name="dest-uri" value=${destUri} set=${setDestUri} required=${true} />
    <div class="field-row">
      <${SelectField} label="Type" name="dest-kind" value=${destKind} set=${setDestKind} options=${kinds} />
      <${TextField} label=${destKind === "queue" ? "Queue" : "Exchange"} name="dest" value=${dest} set=${setDest} hint="Empty: where each message was published." />
      ${destKind === "exchange" ? html`<${TextField} label="Routing key" name="dest-exchange-key" value=${destKey} set=${setDestKey} />` : null}
    </div>
    <div class="field-row">
      <${SelectField} label="Add forwarding headers" name="dest-add-forward-headers" value=${forward} set=${setForward} options=${[["false", "No"], ["true", "Yes"]] as const} />
      <${TextField} label="Reconnect delay (s)" name="reconnect-delay" type="number" value=${reconnect} set=${setReconnect} />
      <${SelectField} label="Acknowledgement mode" name="ack-mode" value=${ackMode} set=${setAckMode} options=${[["on-confirm", "On confirm"], ["on-publish", "On publish"], ["no-ack", "No ack"]] as const} />
    </div>
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Add shovel</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}

export function AdminShovelStatusPage() {
  return html`<${AdminFrame} seg="shovel-status" title="Shovel Status"><${ShovelStatusBody} /><//>`;
}

function ShovelStatusBody() {
  const { api, tags } = useApp();
  const list = useLive(() => api.get<ShovelStatusRecord[]>("/shovels"), []);
  const act = useAction(list.reload);
  const mayRestart = hasTag(tags, "policymaker");
  // A terminated shovel's status names no ends (RabbitMQ's neither): a policymaker, who may read
  // the definitions, sees them from there; others see that they are not known while it is down.
  const defs = useLive(() => (mayRestart ? api.get<ShovelParameter[]>("/parameters/shovel") : Promise.resolve([])), [mayRestart]);
  const ends = (s: ShovelStatusRecord): [unknown, unknown] => {
    if (s.src_uri !== undefined || s.dest_uri !== undefined) {
      return [html`${s.src_uri ?? ""}<br /><span class="muted">${end(s.src_queue, s.src_exchange, s.src_exchange_key)}</span>`, html`${s.dest_uri ?? ""}<br /><span class="muted">${end(s.dest_queue, s.dest_exchange, s.dest_exchange_key)}</span>`];
    }
    const v = defs.data?.find((p) => p.vhost === s.vhost && p.name === s.name)?.value;
    if (!v) return [html`<span class="muted">– (not known while ${s.state})</span>`, html`<span class="muted">–</span>`];
    return [html`${uris(v["src-uri"])}<br /><span class="muted">${end(v["src-queue"], v["src-exchange"], v["src-exchange-key"])}</span>`, html`${uris(v["dest-uri"])}<br /><span class="muted">${end(v["dest-queue"], v["dest-exchange"], v["dest-exchange-key"])}</span>`];
  };
  const restart = (s: ShovelStatusRecord): void =>
    void act.run(async () => {
      await api.del(apiPath`/shovels/vhost/${s.vhost}/${s.name}/restart`);
      return `Shovel ${s.name} restarted.`;
    });
  return html`<${ErrorBox} error=${list.error ?? act.error} /><${Notice} text=${act.done} />
    ${list.data
      ? list.data.length === 0
        ? html`<p class="muted">No shovels are running.</p>`
        : html`<${TableWrap}><table class="grid shovel-table" aria-label="Shovel status"><thead><tr><th>Name</th><th>Virtual host</th><th>State</th><th>Source</th><th>Destination</th><th>Last changed</th><th></th></tr></thead>
          <tbody>${list.data.map(
            (s) => html`<tr key=${`${s.vhost}/${s.name}`} data-shovel=${s.name}>
              <td>${s.name}</td><td>${s.vhost}</td>
              <td><span class=${`state state-${s.state}`}>${s.state}</span>${s.reason ? html`<br /><span class="muted">${s.reason}</span>` : null}</td>
              ${ends(s).map((cell) => html`<td class="ends">${cell}</td>`)}
              <td>${s.timestamp}</td>
              <td>${mayRestart ? html`<button type="button" class="small" disabled=${act.busy} aria-label=${`Restart shovel ${s.name}`} onClick=${() => restart(s)}>Restart</button>` : null}</td>
            </tr>`,
          )}</tbody></table><//>`
      : list.loading ? html`<p class="muted">Loading…</p>` : null}`;
}
