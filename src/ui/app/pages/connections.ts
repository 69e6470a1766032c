/** Connections: the paged, sortable, filterable list with traffic rates. */
import { apiPath } from "../api.js";
import { ListView, type Column } from "../components/list-view.js";
import { useManyNodes, withNodeColumn } from "../components/node-column.js";
import { fmtBytes, rateOf } from "../format.js";
import { html } from "../html.js";
import { peerName } from "../components/peer-name.js";
import { href } from "../router.js";

export interface ConnectionRow {
  name: string;
  vhost: string;
  user: string;
  state: string;
  ssl: boolean;
  protocol: string;
  channels: number;
  peer_host: string;
  peer_port: number;
  /** The node that holds it (shown when the broker has more than one). */
  node?: string;
  client_properties?: { connection_name?: string; product?: string };
  recv_oct_details?: { rate: number };
  send_oct_details?: { rate: number };
}

const byteRate = (n: number | undefined): string => (n === undefined ? "–" : `${fmtBytes(Math.round(n))}/s`);

const COLUMNS: Column<ConnectionRow>[] = [
  {
    key: "name",
    label: "Name",
    needs: ["client_properties"],
    render: (c) => html`<a href=${href("connections", c.name)}>${peerName(c.name)}</a>${c.client_properties?.connection_name ? html`<div class="sub">${c.client_properties.connection_name}</div>` : null}`,
  },
  { key: "vhost", label: "Virtual host" },
  { key: "user", label: "User" },
  { key: "state", label: "State", render: (c) => html`<span class=${`state state-${c.state}`}>${c.state}</span>` },
  { key: "ssl", label: "TLS", render: (c) => (c.ssl ? "●" : "○") },
  { key: "protocol", label: "Protocol" },
  { key: "channels", label: "Channels", num: true },
  { key: "recv_oct_details.rate", label: "From client", num: true, render: (c) => byteRate(rateOf(c, "recv_oct")) },
  { key: "send_oct_details.rate", label: "To client", num: true, render: (c) => byteRate(rateOf(c, "send_oct")) },
];

export function ConnectionsPage() {
  const columns = withNodeColumn(COLUMNS, useManyNodes(), "vhost");
  return html`<h1>Connections</h1>
    <${ListView} id="connections" noun="connections" path=${(v: string) => (v ? apiPath`/vhosts/${v}/connections` : "/connections")} columns=${columns} rowKey=${(c: ConnectionRow) => c.name} />`;
}

export { byteRate };
