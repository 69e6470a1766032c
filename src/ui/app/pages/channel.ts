/** One channel: mode, prefetch, unacked/unconfirmed counts, message rates and its consumers (from the channel's own record). */
import { apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { ConsumersTable, type Consumer } from "../components/consumers-table.js";
import { ErrorBox, Unavailable } from "../components/error-box.js";
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

export function ChannelPage({ params }: PageProps) {
  const name = params["name"] ?? "";
  const { api } = useApp();
  const ch = useLive(() => api.get<ChannelDetail>(apiPath`/channels/${name}`), [name]);
  const c = ch.data;
  // The record carries its consumers (RabbitMQ's consumer_details): nothing more to ask, and
  // nothing a monitor could be refused in a vhost it may not read.
  const consumers = c?.consumer_details ?? [];
  if (!ch.data && ch.error) return html`<h1><span class="kind">Channel</span> ${name}</h1><${Unavailable} error=${ch.error} back=${href("channels")} backLabel="Back to channels" />`;
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
        </div>`
      : null}
    <${Section} title="Consumers">
      ${c ? html`<${ConsumersTable} consumers=${consumers} show="channel" />` : null}
    <//>`;
}
