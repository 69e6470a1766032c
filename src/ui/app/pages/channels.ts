/** Channels: the paged list with prefetch, unacked counts and message rates. */
import { apiPath } from "../api.js";
import { ListView, type Column } from "../components/list-view.js";
import { useManyNodes, withNodeColumn } from "../components/node-column.js";
import { fmtNum, fmtRate, rateOf } from "../format.js";
import { html } from "../html.js";
import { peerName } from "../components/peer-name.js";
import { href } from "../router.js";

export interface ChannelRow {
  name: string;
  number: number;
  vhost: string;
  user: string;
  state: string;
  confirm: boolean;
  transactional: boolean;
  consumer_count: number;
  prefetch_count: number;
  global_prefetch_count: number;
  messages_unacknowledged: number;
  messages_unconfirmed: number;
  connection_details?: { name: string };
  message_stats?: Record<string, unknown>;
}

export function channelMode(c: ChannelRow): string {
  return [c.confirm ? "Confirm" : "", c.transactional ? "Transactional" : ""].filter(Boolean).join(", ") || "–";
}

const COLUMNS: Column<ChannelRow>[] = [
  { key: "name", label: "Channel", render: (c) => html`<a href=${href("channels", c.name)}>${peerName(c.name)}</a>` },
  { key: "vhost", label: "Virtual host" },
  { key: "user", label: "User" },
  { key: "state", label: "State", render: (c) => html`<span class=${`state state-${c.state}`}>${c.state}</span>` },
  { key: "confirm", label: "Mode", needs: ["transactional"], render: channelMode },
  { key: "consumer_count", label: "Consumers", num: true },
  { key: "prefetch_count", label: "Prefetch", num: true, render: (c) => fmtNum(c.prefetch_count) },
  { key: "messages_unacknowledged", label: "Unacked", num: true, render: (c) => fmtNum(c.messages_unacknowledged) },
  { key: "messages_unconfirmed", label: "Unconfirmed", num: true, render: (c) => fmtNum(c.messages_unconfirmed) },
  { key: "message_stats.publish_details.rate", label: "Publish", num: true, render: (c) => fmtRate(rateOf(c.message_stats, "publish")) },
  { key: "message_stats.deliver_get_details.rate", label: "Deliver / get", num: true, render: (c) => fmtRate(rateOf(c.message_stats, "deliver_get")) },
  { key: "message_stats.ack_details.rate", label: "Ack", num: true, render: (c) => fmtRate(rateOf(c.message_stats, "ack")) },
];

export function ChannelsPage() {
  const columns = withNodeColumn(COLUMNS, useManyNodes(), "vhost");
  return html`<h1>Channels</h1>
    <${ListView} id="channels" noun="channels" path=${(v: string) => (v ? apiPath`/vhosts/${v}/channels` : "/channels")} columns=${columns} rowKey=${(c: ChannelRow) => c.name} />`;
}
