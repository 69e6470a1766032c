/**
 * Admin › Federation upstreams and Admin › Federation status, as RabbitMQ's
 * rabbitmq_federation_management pages: the `federation-upstream` parameters (URI with the
 * password hidden, the keys set) with a form to add or replace one and a delete button for
 * policymakers; and the links (GET /api/federation-links) with their status, the error when one
 * is down, and a Restart button for monitors. A link exists for each exchange or queue a policy
 * with `federation-upstream` / `federation-upstream-set` federates (Admin › Policies).
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
import { html } from "../html.js";
import { useLive } from "../live.js";

interface UpstreamRecord {
  vhost: string;
  name: string;
  component: string;
  value: Record<string, unknown>;
}

interface LinkRecord {
  node: string;
  vhost: string;
  id: string;
  type: "exchange" | "queue";
  exchange?: string;
  queue?: string;
  upstream_exchange?: string;
  upstream_queue?: string;
  upstream: string;
  status: string;
  error?: string;
  local_connection?: string;
  uri: string;
  timestamp: string;
}

/** A URI as shown: the password replaced, as RabbitMQ's page hides it. */
export const hidePassword = (uri: string): string => uri.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");

const uris = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === "string" ? [v] : []);

export function AdminFederationUpstreamsPage() {
  return html`<${AdminFrame} seg="federation-upstreams" title="Federation upstreams"><${UpstreamsBody} /><//>`;
}

export function AdminFederationStatusPage() {
  return html`<${AdminFrame} seg="federation-status" title="Federation status"><${StatusBody} /><//>`;
}

function UpstreamsBody() {
  const { api, vhost, tags } = useApp();
  const canWrite = hasTag(tags, "policymaker");
  const list = useLive(() => api.get<UpstreamRecord[]>(vhost ? `/parameters/federation-upstream${apiPath`/${vhost}`}` : "/parameters/federation-upstream"), [vhost]);
  const sorted = [...(list.data ?? [])].sort((a, b) => a.vhost.localeCompare(b.vhost) || a.name.localeCompare(b.name));
  return html`<p class="lead">An upstream is a broker this one federates from. A policy with <code>federation-upstream</code> or <code>federation-upstream-set</code> (Admin › Policies) makes the exchanges and queues it matches receive what the upstream's get.</p>
    <${ErrorBox} error=${list.error} />
    ${list.data
      ? sorted.length === 0
        ? html`<p class="muted">No upstreams.</p>`
        : html`<div class="table-wrap admin-table"><table class="grid" aria-label="Federation upstreams"><thead><tr>
            <th>Virtual host</th><th>Name</th><th>URI</th><th>Settings</th>${canWrite ? html`<th><span class="sr-only">Actions</span></th>` : null}
          </tr></thead><tbody>
            ${sorted.map(
              (u) => html`<tr key=${u.vhost + "\u0000" + u.name} data-upstream=${u.name}>
                <td>${u.vhost}</td><td>${u.name}</td>
                <td>${uris(u.value["uri"]).map((x) => html`<div><code>${hidePassword(x)}</code></div>`)}</td>
                <td>${Object.entries(u.value)
                  .filter(([k]) => k !== "uri")
                  .map(([k, v]) => html`<div><span class="def-key">${k}</span>: ${String(v)}</div>`)}</td>
                ${canWrite ? html`<td class="row-actions"><${DeleteButton} what=${`upstream ${u.name} in ${u.vhost}`} run=${() => api.del(`/parameters/federation-upstream${apiPath`/${u.vhost}/${u.name}`}`)} onDone=${list.reload} /></td>` : null}
              </tr>`,
            )}
          </tbody></table></div>`
      : null}
    ${canWrite
      ? html`<${Section} title="Add a new upstream" open=${(list.data ?? []).length === 0}><${AddUpstream} added=${list.reload} /><//>`
      : html`<p class="hint">Adding upstreams needs the policymaker tag.</p>`}`;
}

/** The upstream keys the form offers (RabbitMQ's page has the same), each with its JSON type. */
const NUMBER_KEYS: ReadonlyArray<readonly [string, string]> = [
  ["prefetch-count", "Prefetch count (default 1000)"],
  ["reconnect-delay", "Reconnect delay, s (default 5)"],
  ["max-hops", "Max hops (default 1)"],
  ["expires", "Expires, ms (upstream queue)"],
  ["message-ttl", "Message TTL, ms (upstream queue)"],
];

function AddUpstream({ added }: { added: () => void }) {
  const { api, vhost: selected } = useApp();
  const [vhost, setVhost] = useState(selected || "/");
  const [name, setName] = useState("");
  const [uri, setUri] = useState("");
  const [numbers, setNumbers] = useState<Record<string, string>>({});
  const [ackMode, setAckMode] = useState("on-confirm");
  const [trust, setTrust] = useState("false");
  const [exchange, setExchange] = useState("");
  const [queue, setQueue] = useState("");
  const [queueType, setQueueType] = useState("classic");
  const act = useAction(added);
  const submit = (e: Event): void => {
    e.preventDefault();
    void act.run(async () => {
      const list = uri.split(/\s+/).filter(Boolean);
      const value: Record<string, unknown> = { uri: list.length === 1 ? list[0] : list };
      for (const [k, label] of NUMBER_KEYS) {
        const text = (numbers[k] ?? "").trim();
        if (text === "") continue;
        const n = Number(text);
        if (!Number.isFinite(n)) throw new Error(`${label}: "${text}" is not a number.`);
        value[k] = n;
      }
      if (ackMode !== "on-confirm") value["ack-mode"] = ackMode;
      if (trust === "true") value["trust-user-id"] = true;
      if (exchange) value["exchange"] = exchange;
      if (queue) value["queue"] = queue;
      if (queueType !== "classic") value["queue-type"] = queueType;
      await api.put(`/parameters/federation-upstream${apiPath`/${vhost}/${name}`}`, { vhost, component: "federation-upstream", name, value });
      return `Upstream ${name} saved in ${vhost}.`;
    });
  };
  return html`<form class="form admin-form" onSubmit=${submit} aria-label="Add upstream">
    <${VhostField} value=${vhost} set=${setVhost} />
    <${TextField} label="Name" name="name" value=${name} set=${setName} required=${true} />
    <${TextField} label="URI" name="uri" value=${uri} set=${setUri} required=${true} placeholder="amqp://user:password@server-name/vhost" hint="One URI, or several separated by spaces (tried in turn). amqp:// with no host is this broker." />
    <div class="field-row">${NUMBER_KEYS.map(([k, label]) => html`<${TextField} label=${label} name=${k} type="number" value=${numbers[k] ?? ""} set=${(v: string) => setNumbers({ ...numbers, [k]: v })} />`)}</div>
    <div class="field-row">
      <${SelectField} label="Ack mode" name="ack-mode" value=${ackMode} set=${setAckMode} options=${[["on-confirm", "on-confirm (at least once)"], ["on-publish", "on-publish"], ["no-ack", "no-ack"]]} />
      <${SelectField} label="Trust user-id" name="trust-user-id" value=${trust} set=${setTrust} options=${[["false", "No"], ["true", "Yes"]]} />
      <${SelectField} label="Queue type (exchange federation)" name="queue-type" value=${queueType} set=${setQueueType} options=${[["classic", "Classic"], ["quorum", "Quorum"]]} />
    </div>
    <div class="field-row">
      <${TextField} label="Exchange (upstream)" name="exchange" value=${exchange} set=${setExchange} hint="Default: the federated exchange's own name." />
      <${TextField} label="Queue (upstream)" name="queue" value=${queue} set=${setQueue} hint="Default: the federated queue's own name." />
    </div>
    <div class="form-actions"><button type="submit" class="primary" disabled=${act.busy}>Add upstream</button></div>
    <${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
  </form>`;
}

function StatusBody() {
  const { api, vhost, tags } = useApp();
  const canRestart = hasTag(tags, "monitoring");
  const links = useLive(() => api.get<LinkRecord[]>(vhost ? `/federation-links${apiPath`/${vhost}`}` : "/federation-links"), [vhost]);
  const act = useAction(links.reload);
  const restart = (l: LinkRecord): void => {
    void act.run(async () => {
      await api.del(apiPath`/federation-links/vhost/${l.vhost}/${l.id}/${l.node}/restart`);
      return `Link ${l.id} restarting.`;
    });
  };
  const sorted = [...(links.data ?? [])].sort((a, b) => a.vhost.localeCompare(b.vhost) || (a.exchange ?? a.queue ?? "").localeCompare(b.exchange ?? b.queue ?? "") || a.upstream.localeCompare(b.upstream));
  return html`<${ErrorBox} error=${links.error} /><${ErrorBox} error=${act.error} /><${Notice} text=${act.done} />
    ${links.data
      ? sorted.length === 0
        ? html`<p class="muted">No links. A link runs for each upstream of each exchange or queue a federation policy matches.</p>`
        : html`<div class="table-wrap admin-table"><table class="grid" aria-label="Federation links"><thead><tr>
            <th>Upstream</th><th>URI</th><th>Virtual host</th><th>Exchange / queue</th><th>State</th><th>Last changed</th>${canRestart ? html`<th><span class="sr-only">Actions</span></th>` : null}
          </tr></thead><tbody>
            ${sorted.map(
              (l) => html`<tr key=${l.id} data-link=${l.id}>
                <td>${l.upstream}</td><td><code>${l.uri}</code></td><td>${l.vhost}</td>
                <td>${l.type === "exchange" ? html`exchange <strong>${l.exchange}</strong>` : html`queue <strong>${l.queue}</strong>`}
                  ${(l.upstream_exchange ?? l.upstream_queue) !== (l.exchange ?? l.queue) ? html`<div class="hint">upstream: ${l.upstream_exchange ?? l.upstream_queue}</div>` : null}</td>
                <td><span class=${`state state-${l.status}`}>${l.status}</span>${l.error ? html`<div class="hint">${l.error}</div>` : null}</td>
                <td>${l.timestamp}</td>
                ${canRestart ? html`<td class="row-actions"><button type="button" class="small" disabled=${act.busy} onClick=${() => restart(l)} aria-label=${`Restart link ${l.id}`}>Restart</button></td>` : null}
              </tr>`,
            )}
          </tbody></table></div>`
      : links.loading ? html`<p class="muted">Loading…</p>` : null}`;
}
