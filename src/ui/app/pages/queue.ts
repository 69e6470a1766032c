/**
 * One queue: its figures and settings, live charts, consumers, bindings (bind, unbind), publish,
 * get messages, purge and delete — each action offered only when the broker says the user may
 * take it (checks.ts), otherwise what it would need in its place.
 */
import type { ComponentChild } from "preact";
import { useMemo } from "preact/hooks";
import { apiPath } from "../api.js";
import { decisionOf, vhostAccess, whyNoneIn, whyRefused } from "../access.js";
import { useApp } from "../app-context.js";
import { useChecks } from "../checks.js";
import { useAction } from "../components/action.js";
import { BindForm, BindingsTable, type Binding } from "../components/bindings.js";
import { ConsumersTable, type Consumer } from "../components/consumers-table.js";
import { ErrorBox, unavailable, Notice, Unavailable } from "../components/error-box.js";
import { KvTable, ObjectTable, Section } from "../components/kv.js";
import { detailsOf } from "../chart-series.js";
import { chartQuery, useChartRange } from "../components/chart-range.js";
import { ChartGrid, HistoryChart } from "../components/history-chart.js";
import { PublishForm } from "../components/publish-form.js";
import { Refused } from "../components/refused.js";
import { fmtBytes, fmtNum, fmtRate } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { href, navigate } from "../router.js";
import type { PageProps } from "../page-props.js";
import { Features } from "./exchanges.js";
import { QUEUED_SERIES } from "./overview.js";
import { GetMessages } from "./queue-get.js";
import { StreamPart, type StreamFields } from "./queue-stream.js";
import type { QueueRow } from "./queues.js";

interface QueueDetail extends QueueRow, StreamFields {
  node: string;
  operator_policy: string | null;
  effective_policy_definition: Record<string, unknown>;
  message_bytes: number;
  message_bytes_ready: number;
  message_bytes_unacknowledged: number;
  messages_persistent: number;
  message_bytes_persistent: number;
  messages_paged_out: number;
  memory: number;
  consumer_utilisation: number | null;
  exclusive_consumer_tag: string | null;
  single_active_consumer_tag: string | null;
  idle_since?: string;
  head_message_timestamp: number | null;
  /** The connection an exclusive queue belongs to (an AMQP declarer, an MQTT clean session). */
  owner_pid_details?: { name: string };
}

const QUEUE_RATES = [
  { key: "publish", label: "Publish", color: "#d99a00" },
  { key: "deliver_get", label: "Deliver / get", color: "#3a7bd5" },
  { key: "ack", label: "Ack", color: "#2e9d5b" },
  { key: "redeliver", label: "Redeliver", color: "#c94f4f" },
];

export function QueuePage({ params }: PageProps) {
  const vhost = params["vhost"] ?? "";
  const name = params["name"] ?? "";
  const { api, access, user } = useApp();
  const range = useChartRange();
  const q = useLive(() => api.get<QueueDetail>(apiPath`/queues/${vhost}/${name}`, chartQuery(range, ["lengths", "msg_rates"])), [vhost, name, range.key]);
  const consumers = useLive(() => api.get<Consumer[]>(apiPath`/consumers/${vhost}`).then((all) => all.filter((c) => c.queue.name === name)), [vhost, name]);
  const bindings = useLive(() => api.get<Binding[]>(apiPath`/queues/${vhost}/${name}/bindings`), [vhost, name]);
  // The broker's decisions: this queue, the default exchange (publish) and each binding's source (unbind).
  const sources = [...new Set((bindings.data ?? []).map((b) => b.source).filter((s) => s !== ""))].sort();
  const checks = useChecks(vhost, [name], ["", ...sources]);
  const mine = decisionOf(checks.data?.queues, name);
  const exchanges = checks.data?.exchanges;
  // A binding also needs read on its source: some exchange name the user may read in this vhost.
  const mayRead = (access && vhostAccess(access, vhost)?.may.read) ?? false;
  const why = (kind: "configure" | "write" | "read", action: string, on = name): string => whyRefused(access, vhost, kind, on, action);
  const refused = (text: string) => html`<${Refused} why=${text} user=${user} vhost=${vhost} />`;
  // queue.unbind needs write on the queue and read on the exchange, as queue.bind does.
  const unbind = (b: Binding): true | string | false => {
    const src = decisionOf(exchanges, b.source);
    if (!mine || !src) return false;
    if (!mine.write) return why("write", "Unbinding");
    return src.read ? true : why("read", "Unbinding", b.source);
  };
  const d = q.data;
  const queued = useMemo(() => (d ? QUEUED_SERIES.map((s) => detailsOf(d, s.key)) : undefined), [d]);
  const rates = useMemo(() => (d ? QUEUE_RATES.map((s) => detailsOf(d.message_stats, s.key)) : undefined), [d]);
  const purge = useAction(q.reload);
  // A stream refuses basic.get and keeps its messages on purge: RabbitMQ's page offers neither.
  const stream = d?.type === "stream";
  const del = useAction();

  if (unavailable(q)) return html`<h1><span class="kind">Queue</span> ${name}</h1><${Unavailable} error=${q.error} back=${href("queues")} backLabel="Back to queues" />`;
  return html`<h1><span class="kind">Queue</span> ${name}</h1>
    <p class="lead">in virtual host <strong>${vhost}</strong></p>
    <${ErrorBox} error=${q.error} />
    ${d
      ? html`<div class="cols">
          <${KvTable} label="Queue" rows=${[
            ["Type", d.type],
            ["Features", html`<${Features} x=${d} />`],
            ["State", html`<span class=${`state state-${d.state}`}>${d.state}</span>`],
            ["Policy", d.policy ?? "–"],
            ["Operator policy", d.operator_policy ?? "–"],
            ["Effective policy definition", html`<${ObjectTable} value=${d.effective_policy_definition} />`],
            ["Consumers", fmtNum(d.consumers)],
            // With no consumer, utilisation means nothing (RabbitMQ shows none either).
            ["Consumer utilisation", d.consumers === 0 || d.consumer_utilisation === null || d.consumer_utilisation === undefined ? "–" : `${Math.round(d.consumer_utilisation * 100)}%`],
            ["Node", d.node],
            ...ownerAndMembers(d),
          ]} />
          <table class="grid figures" aria-label="Messages"><thead><tr><th></th><th class="num">Total</th><th class="num">Ready</th><th class="num">Unacked</th><th class="num">Persistent</th></tr></thead>
            <tbody>
              <tr><th scope="row">Messages</th><td class="num">${fmtNum(d.messages)}</td><td class="num">${fmtNum(d.messages_ready)}</td><td class="num">${fmtNum(d.messages_unacknowledged)}</td><td class="num">${fmtNum(d.messages_persistent)}</td></tr>
              <tr><th scope="row">Bytes</th><td class="num">${fmtBytes(d.message_bytes)}</td><td class="num">${fmtBytes(d.message_bytes_ready)}</td><td class="num">${fmtBytes(d.message_bytes_unacknowledged)}</td><td class="num">${fmtBytes(d.message_bytes_persistent)}</td></tr>
              <tr><th scope="row">Paged out</th><td class="num">${fmtNum(d.messages_paged_out)}</td><td colspan="3"></td></tr>
              <tr><th scope="row">Memory</th><td class="num">${fmtBytes(d.memory)}</td><td colspan="3"></td></tr>
            </tbody>
          </table>
        </div>
        <${ChartGrid}>
          <${HistoryChart} title="Queued messages" series=${QUEUED_SERIES} details=${queued} kind="gauge" range=${range} format=${fmtNum} />
          <${HistoryChart} title="Message rates" series=${QUEUE_RATES} details=${rates} kind="rate" range=${range} format=${fmtRate} />
        <//>
        ${Object.keys(d.arguments ?? {}).length ? html`<div class="kv-block"><h2 class="h3">Arguments</h2><${ObjectTable} value=${d.arguments} label="Arguments" /></div>` : null}
        ${d.type === "stream" ? html`<${StreamPart} q=${d} />` : null}`
      : null}
    <${Section} title=${`Consumers${consumers.data ? ` (${consumers.data.length})` : ""}`}>
      <${ErrorBox} error=${consumers.error} />
      ${consumers.data ? html`<${ConsumersTable} consumers=${consumers.data} show="queue" />` : null}
    <//>
    <${Section} title="Bindings">
      <${ErrorBox} error=${bindings.error} />
      ${bindings.data
        ? html`<${BindingsTable} bindings=${bindings.data} show="source" onChange=${bindings.reload}
            canUnbind=${unbind} />`
        : null}
      <h3>Add binding to this queue</h3>
      ${mine
        ? !mine.write
          ? refused(why("write", "Binding to this queue"))
          : !mayRead
            ? refused(whyNoneIn(access, vhost, "read", "Binding to this queue (from an exchange you may read)"))
            : html`<${BindForm} vhost=${vhost} destination=${{ type: "q", name }} onChange=${bindings.reload} />`
        : null}
    <//>
    <${Section} title="Publish message" open=${false}>
      ${decisionOf(exchanges, "") ? (decisionOf(exchanges, "")!.write ? html`<${PublishForm} vhost=${vhost} exchange="" routingKey=${name} />` : refused(why("write", "Publishing through the default exchange", ""))) : null}
    <//>
    ${stream ? null : html`<${Section} title="Get messages" open=${false}>
      ${mine ? (mine.read ? html`<${GetMessages} vhost=${vhost} name=${name} onChange=${q.reload} />` : refused(why("read", "Getting messages"))) : null}
    <//>`}
    ${stream ? null : html`<${Section} title="Purge" open=${false}>
      ${mine
        ? mine.read
          ? html`<p>Remove every ready message from this queue (unacknowledged messages stay with their consumers).</p>
              <button type="button" class="danger" disabled=${purge.busy} onClick=${() => {
                if (confirm(`Purge all ready messages from queue ${name}?`)) void purge.run(async () => {
                  await api.del(apiPath`/queues/${vhost}/${name}/contents`);
                  return "Queue purged.";
                });
              }}>Purge messages</button>
              <${ErrorBox} error=${purge.error} /><${Notice} text=${purge.done} />`
          : refused(why("read", "Purging"))
        : null}
    <//>`}
    <${Section} title="Delete" open=${false}>
      ${mine
        ? mine.configure
          ? html`<p>Delete this queue and every message in it.</p>
              <button type="button" class="danger" disabled=${del.busy} onClick=${async () => {
                if (!confirm(`Delete queue ${name} and its messages?`)) return;
                if (await del.run(async () => void (await api.del(apiPath`/queues/${vhost}/${name}`)))) navigate(href("queues"));
              }}>Delete queue</button>
              <${ErrorBox} error=${del.error} />`
          : refused(why("configure", "Deleting this queue"))
        : null}
    <//>
    <${ErrorBox} error=${checks.error} />`;
}

/** RabbitMQ's rows for an exclusive queue's owner and a quorum queue's nodes (a stream shows its nodes in its own part). */
function ownerAndMembers(d: QueueDetail): Array<[string, ComponentChild]> {
  const rows: Array<[string, ComponentChild]> = [];
  if (d.owner_pid_details) rows.push(["Exclusive owner", html`<a href=${href("connections", d.owner_pid_details.name)}>${d.owner_pid_details.name}</a>`]);
  if (d.type === "quorum") {
    rows.push(["Leader", d.leader ?? "–"], ["Online", (d.online ?? []).join(", ") || "–"], ["Members", (d.members ?? []).join(", ") || "–"]);
  }
  return rows;
}
