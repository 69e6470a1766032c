/**
 * A native stream connection's own part of the connection page, as rabbitmq_stream_management
 * shows it: its publishers and its consumers (subscriptions), from
 * /api/stream/connections/{vhost}/{name}/publishers and …/consumers. A stream connection has no
 * channels, so these stand where an AMQP connection's channels and consumers are.
 */
import { apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { ErrorBox } from "../components/error-box.js";
import { Section } from "../components/kv.js";
import { fmtNum } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { href } from "../router.js";

interface StreamPublisher {
  queue: { name: string; vhost: string };
  publisher_id: number;
  reference: string;
  published: number;
  confirmed: number;
  errored: number;
}

interface StreamConsumer {
  queue: { name: string; vhost: string };
  subscription_id: number;
  credits: number;
  consumed: number;
  offset: number;
  offset_lag: number;
  active: boolean;
  activity_status: string;
}

const streamLink = (q: { name: string; vhost: string }) => html`<a href=${href("queues", q.vhost, q.name)}>${q.name}</a>`;

export function StreamConnectionPart({ vhost, name }: { vhost: string; name: string }) {
  const { api } = useApp();
  const publishers = useLive(() => api.get<StreamPublisher[]>(apiPath`/stream/connections/${vhost}/${name}/publishers`), [vhost, name]);
  const consumers = useLive(() => api.get<StreamConsumer[]>(apiPath`/stream/connections/${vhost}/${name}/consumers`), [vhost, name]);
  return html`<${Section} title=${`Publishers${publishers.data ? ` (${publishers.data.length})` : ""}`}>
      <${ErrorBox} error=${publishers.error} />
      ${publishers.data
        ? publishers.data.length === 0
          ? html`<p class="muted">No publishers.</p>`
          : html`<div class="table-wrap"><table class="grid" aria-label="Stream publishers"><thead><tr>
              <th>Stream</th><th class="num">Publisher ID</th><th>Reference</th><th class="num">Published</th><th class="num">Confirmed</th><th class="num">Errored</th>
            </tr></thead><tbody>
              ${publishers.data.map((p) => html`<tr key=${p.publisher_id}>
                <td>${streamLink(p.queue)}</td><td class="num">${p.publisher_id}</td><td>${p.reference || "–"}</td>
                <td class="num">${fmtNum(p.published)}</td><td class="num">${fmtNum(p.confirmed)}</td><td class="num">${fmtNum(p.errored)}</td>
              </tr>`)}
            </tbody></table></div>`
        : null}
    <//>
    <${Section} title=${`Consumers${consumers.data ? ` (${consumers.data.length})` : ""}`}>
      <${ErrorBox} error=${consumers.error} />
      ${consumers.data
        ? consumers.data.length === 0
          ? html`<p class="muted">No consumers.</p>`
          : html`<div class="table-wrap"><table class="grid" aria-label="Stream consumers"><thead><tr>
              <th>Stream</th><th class="num">Subscription ID</th><th class="num">Credits</th><th class="num">Consumed</th><th class="num">Offset</th><th class="num">Offset lag</th><th>Active</th>
            </tr></thead><tbody>
              ${consumers.data.map((c) => html`<tr key=${c.subscription_id}>
                <td>${streamLink(c.queue)}</td><td class="num">${c.subscription_id}</td><td class="num">${fmtNum(c.credits)}</td><td class="num">${fmtNum(c.consumed)}</td>
                <td class="num">${fmtNum(c.offset)}</td><td class="num">${fmtNum(c.offset_lag)}</td><td>${c.active ? "yes" : `no (${c.activity_status})`}</td>
              </tr>`)}
            </tbody></table></div>`
        : null}
    <//>`;
}
