/**
 * One connection: details, client properties, its channels (prefetch, unacked), its consumers
 * (a native stream connection: its publishers and consumers instead, connection-stream.ts),
 * traffic, and closing it with a reason (sent as X-Reason, as RabbitMQ's API takes it) — offered
 * to its own user and to administrators, the ones RabbitMQ lets close it.
 */
import { useState } from "preact/hooks";
import { apiPath } from "../api.js";
import { mayClose, useApp } from "../app-context.js";
import { detailsOf } from "../chart-series.js";
import { useAction } from "../components/action.js";
import { chartQuery, useChartRange } from "../components/chart-range.js";
import { ChartGrid, HistoryChart } from "../components/history-chart.js";
import { ConsumersTable, type Consumer } from "../components/consumers-table.js";
import { ErrorBox, unavailable, Notice, Unavailable } from "../components/error-box.js";
import { Refused } from "../components/refused.js";
import { KvTable, ObjectTable, Section } from "../components/kv.js";
import { fmtByteRate, fmtNum, fmtRate, fmtTime, rateOf } from "../format.js";
import { html } from "../html.js";
import { peerName } from "../components/peer-name.js";
import { useLive } from "../live.js";
import { href, navigate } from "../router.js";
import type { PageProps } from "../page-props.js";
import { channelMode, type ChannelRow } from "./channels.js";
import { StreamConnectionPart } from "./connection-stream.js";
import { byteRate, type ConnectionRow } from "./connections.js";

interface ConnectionDetail extends ConnectionRow {
  node: string;
  host: string;
  port: number;
  auth_mechanism: string;
  connected_at: number;
  channel_max: number;
  frame_max: number;
  timeout: number;
  client_properties?: Record<string, unknown> & { connection_name?: string };
}

/** RabbitMQ's connection chart: bytes received from the client and sent to it, per second. */
export const DATA_RATES = [
  { key: "recv_oct", label: "From client", color: "#d99a00" },
  { key: "send_oct", label: "To client", color: "#3a7bd5" },
];

export function ConnectionPage({ params }: PageProps) {
  const name = params["name"] ?? "";
  const app = useApp();
  const { api, access, tags } = app;
  const range = useChartRange();
  const conn = useLive(() => api.get<ConnectionDetail>(apiPath`/connections/${name}`, chartQuery(range, ["data_rates"])), [name, range.key]);
  const channels = useLive(() => api.get<ChannelRow[]>(apiPath`/connections/${name}/channels`), [name]);
  const c = conn.data;
  // The vhost's consumers when the user may read that vhost; otherwise (a monitor looking at
  // another vhost's connection) every consumer it may see, which for monitors is all of them.
  const inVhost = c !== undefined && (tags.includes("administrator") || (access?.vhosts.some((v) => v.name === c.vhost) ?? false));
  const consumers = useLive(
    () => (c && access ? api.get<Consumer[]>(inVhost ? apiPath`/consumers/${c.vhost}` : "/consumers").then((all) => all.filter((x) => x.channel_details.connection_name === name)) : Promise.resolve(undefined)),
    [name, c?.vhost, inVhost, access === null],
  );

  if (unavailable(conn)) return html`<h1><span class="kind">Connection</span> ${name}</h1><${Unavailable} error=${conn.error} back=${href("connections")} backLabel="Back to connections" />`;
  return html`<h1><span class="kind">Connection</span> ${name}</h1>
    ${c?.client_properties?.connection_name ? html`<p class="lead">${String(c.client_properties.connection_name)}</p>` : null}
    <${ErrorBox} error=${conn.error} />
    ${c
      ? html`<div class="cols">
          <${KvTable} label="Connection" rows=${[
            ["Virtual host", c.vhost],
            ["User", c.user],
            ["State", html`<span class=${`state state-${c.state}`}>${c.state}</span>`],
            ["Client", `${c.peer_host}:${c.peer_port}`],
            ["Server", `${c.host}:${c.port}`],
            ["Protocol", c.protocol],
            ["TLS", c.ssl ? "yes" : "no"],
            ["Authentication", c.auth_mechanism],
            ["Connected at", fmtTime(c.connected_at)],
            ["Heartbeat", `${c.timeout} s`],
            ["Frame max", `${fmtNum(c.frame_max)} bytes`],
            ["Channel max", fmtNum(c.channel_max)],
            ["From client", byteRate(rateOf(c, "recv_oct"))],
            ["To client", byteRate(rateOf(c, "send_oct"))],
          ]} />
          <div><h2 class="h3">Client properties</h2><${ObjectTable} value=${c.client_properties ?? {}} label="Client properties" /></div>
        </div>
        <${ChartGrid}>
          <${HistoryChart} title="Data rates" series=${DATA_RATES} details=${DATA_RATES.map((r) => detailsOf(c, r.key))} kind="rate" range=${range} format=${fmtByteRate} />
        <//>`
      : null}
    ${c?.protocol === "stream"
      ? html`<${StreamConnectionPart} vhost=${c.vhost} name=${name} />`
      : html`<${Section} title="Channels">
          <${ErrorBox} error=${channels.error} />
          ${channels.data ? html`<${ChannelsTable} channels=${channels.data} />` : null}
        <//>
        <${Section} title="Consumers">
          <${ErrorBox} error=${consumers.error} />
          ${consumers.data ? html`<${ConsumersTable} consumers=${consumers.data} show="channel" />` : null}
        <//>`}
    ${c
      ? html`<${Section} title="Close this connection">
          ${mayClose(app, c.user) ? html`<${CloseForm} name=${name} />` : html`<${Refused} why=${`Closing another user's connection (this one is ${c.user}'s) needs the administrator tag; ${tags.includes("monitoring") ? "monitoring users may look, not close" : "you may close your own"}.`} />`}
        <//>`
      : null}`;
}

function ChannelsTable({ channels }: { channels: readonly ChannelRow[] }) {
  if (channels.length === 0) return html`<p class="muted">No channels.</p>`;
  return html`<table class="grid" aria-label="Channels"><thead><tr>
    <th>Channel</th><th>Mode</th><th>State</th><th class="num">Consumers</th><th class="num">Prefetch</th><th class="num">Global prefetch</th><th class="num">Unacked</th><th class="num">Publish</th><th class="num">Deliver / get</th><th class="num">Ack</th>
  </tr></thead><tbody>
    ${channels.map(
      (ch) => html`<tr key=${ch.name}>
        <td><a href=${href("channels", ch.name)}>${peerName(ch.name)}</a></td>
        <td>${channelMode(ch)}</td>
        <td>${ch.state}</td>
        <td class="num">${fmtNum(ch.consumer_count)}</td>
        <td class="num">${fmtNum(ch.prefetch_count)}</td>
        <td class="num">${fmtNum(ch.global_prefetch_count)}</td>
        <td class="num">${fmtNum(ch.messages_unacknowledged)}</td>
        <td class="num">${fmtRate(rateOf(ch.message_stats, "publish"))}</td>
        <td class="num">${fmtRate(rateOf(ch.message_stats, "deliver_get"))}</td>
        <td class="num">${fmtRate(rateOf(ch.message_stats, "ack"))}</td>
      </tr>`,
    )}
  </tbody></table>`;
}

function CloseForm({ name }: { name: string }) {
  const { api } = useApp();
  const [reason, setReason] = useState("Closed via management UI");
  const close = useAction();
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    if (!confirm(`Close connection ${name}?`)) return;
    const ok = await close.run(async () => {
      await api.del(apiPath`/connections/${name}`, { "x-reason": reason });
      return "Connection closed.";
    });
    if (ok) navigate(href("connections"));
  };
  return html`<form class="inline-form" onSubmit=${submit} aria-label="Close connection">
    <label>Reason <input name="reason" value=${reason} onInput=${(e: Event) => setReason((e.target as HTMLInputElement).value)} size="40" /></label>
    <button type="submit" class="danger" disabled=${close.busy}>Force close</button>
    <${ErrorBox} error=${close.error} /><${Notice} text=${close.done} />
  </form>`;
}
