/** Consumers (of a queue, channel or connection): one /api/consumers/{vhost} answer, filtered here. */
import { html } from "../html.js";
import { peerName } from "./peer-name.js";
import { href } from "../router.js";
import { fmtNum } from "../format.js";

export interface Consumer {
  consumer_tag: string;
  queue: { name: string; vhost: string };
  channel_details: { name: string; connection_name: string; number: number; user?: string };
  ack_required: boolean;
  exclusive: boolean;
  prefetch_count: number;
  priority?: number;
  active: boolean;
  activity_status?: string;
  arguments?: Record<string, unknown>;
}

/** The channel a consumer is on; a native stream subscription has none (its channel is named ""), so its connection. */
function ConsumerOwner({ c }: { c: Consumer }) {
  const d = c.channel_details;
  return d.name === ""
    ? html`<a href=${href("connections", d.connection_name)}>${peerName(d.connection_name)}</a> <span class="muted">(stream)</span>`
    : html`<a href=${href("channels", d.name)}>${peerName(d.name)}</a>`;
}

export function ConsumersTable({ consumers, show }: { consumers: readonly Consumer[]; show: "queue" | "channel" }) {
  if (consumers.length === 0) return html`<p class="muted">No consumers.</p>`;
  return html`<div class="table-wrap"><table class="grid" aria-label="Consumers"><thead><tr>
    ${show === "queue" ? html`<th>Channel</th>` : html`<th>Queue</th>`}
    <th>Consumer tag</th><th>Ack required</th><th>Exclusive</th><th class="num">Prefetch</th><th>Active</th><th>Arguments</th>
  </tr></thead><tbody>
    ${consumers.map(
      (c) => html`<tr key=${c.channel_details.name + c.consumer_tag}>
        <td>${show === "queue" ? html`<${ConsumerOwner} c=${c} />` : html`<a href=${href("queues", c.queue.vhost, c.queue.name)}>${c.queue.name}</a>`}</td>
        <td><code>${c.consumer_tag}</code></td>
        <td>${c.ack_required ? "yes" : "no (auto-ack)"}</td>
        <td>${c.exclusive ? "yes" : "no"}</td>
        <td class="num">${fmtNum(c.prefetch_count)}</td>
        <td>${c.activity_status ?? (c.active ? "up" : "waiting")}</td>
        <td>${c.arguments && Object.keys(c.arguments).length ? JSON.stringify(c.arguments) : ""}</td>
      </tr>`,
    )}
  </tbody></table></div>`;
}
