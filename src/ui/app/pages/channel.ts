/** One channel: mode, prefetch, unacked/unconfirmed counts, message rates and its consumers (from the channel's own record). */
import { apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { detailsOf } from "../chart-series.js";
import { chartQuery, useChartRange } from "../components/chart-range.js";
import { ConsumersTable, type Consumer } from "../components/consumers-table.js";
import { ChartGrid, HistoryChart } from "../components/history-chart.js";
import { ErrorBox, unavailable, Unavailable } from "../components/error-box.js";
import { KvTable, Section } from "../components/kv.js";
import { fmtNum, fmtRate, rateOf } from "../format.js";
import { html } from "../html.js";
import { peerName } from "../components/peer-name.js";
import { useLive } from "../live.js";
import { href } from "../router.js";
import type { PageProps } from "../page-props.js";
import { channelMode, type ChannelRow } from "./channels.js";

interface ChannelDetail extends ChannelRow {
  messages_uncommitted: number;
  acks_uncommitted: number;
  consumer_details?: Consumer[];
}

const RATES = ["publish", "confirm", "deliver", "deliver_no_ack", "get", "get_no_ack", "ack", "redeliver", "return_unroutable"];

/** The channel's chart, as RabbitMQ's channel page draws it. */
const CHART_RATES = [
  { key: "publish", label: "Publish", color: "#d99a00" },
  { key: "confirm", label: "Confirm", color: "#8a5cc2", dash: true },
  { key: "deliver_get", label: "Deliver / get", color: "#3a7bd5" },
  { key: "ack", label: "Ack", color: "#2e9d5b" },
  { key: "redeliver", label: "Redeliver", color: "#c94f4f" },
  { key: "return_unroutable", label: "Unroutable (return)", color: "#6b7780" },
];

export function ChannelPage({ params }: PageProps) {
  const name = params["name"] ?? "";
  const { api } = useApp();
  const range = useChartRange();
  const ch = useLive(() => api.get<ChannelDetail>(apiPath`/channels/${name}`, chartQuery(range, ["msg_rates"])), [name, range.key]);
  const c = ch.data;
  // The record carries its consumers (RabbitMQ's consumer_details): nothing more to ask, and
  // nothing a monitor could be refused in a vhost it may not read.
  const consumers = c?.consumer_details ?? [];
  if (unavailable(ch)) return html`<h1><span class="kind">Channel</span> ${name}</h1><${Unavailable} error=${ch.error} back=${href("channels")} backLabel="Back to channels" />`;
  return html`<h1><span class="kind">Channel</span> ${name}</h1>
    <${ErrorBox} error=${ch.error} />
    ${c
      ? html`<div class="cols">
          <${KvTable} label="Channel" rows=${[
            ["Connection", c.connection_details ? html`<a href=${href("connections", c.connection_details.name)}>${peerName(c.connection_details.name)}</a>` : "–"],
            ["Number", String(c.number)],
            ["Virtual host", c.vhost],
            ["User", c.user],
            ["State", c.state],
            ["Mode", channelMode(c)],
            ["Prefetch (per consumer)", fmtNum(c.prefetch_count)],
            ["Prefetch (channel, global)", fmtNum(c.global_prefetch_count)],
            ["Unacked", fmtNum(c.messages_unacknowledged)],
            ["Unconfirmed", fmtNum(c.messages_unconfirmed)],
            ["Uncommitted messages", fmtNum(c.messages_uncommitted)],
            ["Uncommitted acks", fmtNum(c.acks_uncommitted)],
          ]} />
          <${KvTable} label="Message rates" rows=${RATES.map((k) => [k.replace(/_/g, " "), `${fmtRate(rateOf(c.message_stats, k))} (${fmtNum((c.message_stats ?? {})[k])} total)`])} />
        </div>
        <${ChartGrid}>
          <${HistoryChart} title="Message rates" series=${CHART_RATES} details=${CHART_RATES.map((r) => detailsOf(c.message_stats, r.key))} kind="rate" range=${range} format=${fmtRate} />
        <//>`
      : null}
    <${Section} title="Consumers">
      ${c ? html`<${ConsumersTable} consumers=${consumers} show="channel" />` : null}
    <//>`;
}
