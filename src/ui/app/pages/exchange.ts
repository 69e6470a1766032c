/**
 * One exchange: its settings and rates, bindings from it and to it (bind, unbind), publishing a
 * message, and deleting it — each action offered only when the broker says the user may take it
 * (checks.ts). The default exchange is "amq.default" in the URL, as in the API.
 */
import { apiPath } from "../api.js";
import { decisionOf, vhostAccess, whyNoneIn, whyRefused, type Kind } from "../access.js";
import { useApp } from "../app-context.js";
import { detailsOf } from "../chart-series.js";
import { useChecks } from "../checks.js";
import { chartQuery, useChartRange } from "../components/chart-range.js";
import { ChartGrid, HistoryChart } from "../components/history-chart.js";
import { useAction } from "../components/action.js";
import { BindForm, BindingsTable, type Binding } from "../components/bindings.js";
import { ErrorBox, unavailable, Unavailable } from "../components/error-box.js";
import { KvTable, ObjectTable, Section } from "../components/kv.js";
import { PublishForm } from "../components/publish-form.js";
import { Refused } from "../components/refused.js";
import { fmtNum, fmtRate, rateOf } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { href, navigate } from "../router.js";
import type { PageProps } from "../page-props.js";
import { exchangeLabel, Features, type ExchangeRow } from "./exchanges.js";

/** RabbitMQ's exchange chart: messages published in to the exchange and routed out of it. */
const EXCHANGE_RATES = [
  { key: "publish_in", label: "Publish (in)", color: "#d99a00" },
  { key: "publish_out", label: "Publish (out)", color: "#3a7bd5" },
];

export function ExchangePage({ params }: PageProps) {
  const vhost = params["vhost"] ?? "";
  const seg = params["name"] ?? "";
  const name = seg === "amq.default" ? "" : seg;
  const { api, access, user } = useApp();
  const range = useChartRange();
  const x = useLive(
    () => api.get<ExchangeRow & { effective_policy_definition?: Record<string, unknown> }>(apiPath`/exchanges/${vhost}/${seg}`, chartQuery(range, ["msg_rates"])),
    [vhost, seg, range.key],
  );
  const out = useLive(() => api.get<Binding[]>(apiPath`/exchanges/${vhost}/${seg}/bindings/source`), [vhost, seg]);
  const into = useLive(() => api.get<Binding[]>(apiPath`/exchanges/${vhost}/${seg}/bindings/destination`), [vhost, seg]);
  const reload = (): void => {
    out.reload();
    into.reload();
  };
  const del = useAction();
  const builtIn = name === "" || name.startsWith("amq.");
  const e = x.data;
  // The broker's decisions: this exchange, every destination of its bindings and every source into it.
  const all = [...(out.data ?? []), ...(into.data ?? [])];
  const queues = [...new Set(all.filter((b) => b.destination_type === "queue").map((b) => b.destination))].sort();
  const exchanges = [...new Set([name, ...all.filter((b) => b.destination_type === "exchange").flatMap((b) => [b.source, b.destination])])].sort();
  const checks = useChecks(vhost, queues, exchanges);
  const me = decisionOf(checks.data?.exchanges, name);
  // A binding also needs write on its destination: some name the user may write to in this vhost.
  const mayWrite = (access && vhostAccess(access, vhost)?.may.write) ?? false;
  const why = (kind: Kind, action: string, on = name): string => whyRefused(access, vhost, kind, on, action);
  const refused = (text: string) => html`<${Refused} why=${text} user=${user} vhost=${vhost} />`;
  // Unbinding needs read on the source and write on the destination (exchange.unbind, queue.unbind).
  const unbind = (b: Binding): true | string | false => {
    const src = decisionOf(checks.data?.exchanges, b.source);
    const dst = decisionOf(b.destination_type === "queue" ? checks.data?.queues : checks.data?.exchanges, b.destination);
    if (!src || !dst) return false;
    if (!src.read) return why("read", "Unbinding", b.source);
    return dst.write ? true : why("write", "Unbinding", b.destination);
  };

  if (unavailable(x)) return html`<h1><span class="kind">Exchange</span> ${exchangeLabel(name)}</h1><${Unavailable} error=${x.error} back=${href("exchanges")} backLabel="Back to exchanges" />`;
  return html`<h1><span class="kind">Exchange</span> ${exchangeLabel(name)}</h1>
    <p class="lead">in virtual host <strong>${vhost}</strong></p>
    <${ErrorBox} error=${x.error} />
    ${e
      ? html`<div class="cols">
          <${KvTable} label="Exchange" rows=${[
            ["Type", e.type],
            ["Features", html`<${Features} x=${e} />`],
            ["Policy", e.policy ?? "–"],
            ["Rate in", `${fmtRate(rateOf(e.message_stats, "publish_in"))} (${fmtNum((e.message_stats ?? {})["publish_in"])} total)`],
            ["Rate out", `${fmtRate(rateOf(e.message_stats, "publish_out"))} (${fmtNum((e.message_stats ?? {})["publish_out"])} total)`],
            ...(e.messages_delayed !== undefined ? [["Delayed messages", fmtNum(e.messages_delayed)] as [string, string]] : []),
          ]} />
          <div><h2 class="h3">Arguments</h2><${ObjectTable} value=${e.arguments} label="Arguments" /></div>
        </div>
        <${ChartGrid}>
          <${HistoryChart} title="Message rates" series=${EXCHANGE_RATES} details=${EXCHANGE_RATES.map((r) => detailsOf(e.message_stats, r.key))} kind="rate" range=${range} format=${fmtRate} />
        <//>`
      : null}
    <${Section} title="Bindings from this exchange">
      <${ErrorBox} error=${out.error} />
      ${name === "" ? html`<p class="muted">The default exchange routes to the queue named by the routing key; its bindings are implicit and cannot be changed.</p>` : null}
      ${out.data && name !== "" ? html`<${BindingsTable} bindings=${out.data} show="destination" onChange=${reload} canUnbind=${unbind} />` : null}
      ${name !== "" && me ? html`<h3>Add binding from this exchange</h3>${!me.read ? refused(why("read", "Binding from this exchange")) : !mayWrite ? refused(whyNoneIn(access, vhost, "write", "Binding from this exchange (to a queue or exchange you may write to)")) : html`<${BindForm} vhost=${vhost} source=${name} onChange=${reload} />`}` : null}
    <//>
    <${Section} title="Bindings to this exchange">
      <${ErrorBox} error=${into.error} />
      ${into.data ? html`<${BindingsTable} bindings=${into.data} show="source" onChange=${reload} canUnbind=${unbind} />` : null}
    <//>
    <${Section} title="Publish message" open=${false}>
      ${me ? (me.write ? html`<${PublishForm} vhost=${vhost} exchange=${name} />` : refused(why("write", "Publishing to this exchange"))) : null}
    <//>
    ${!builtIn
      ? html`<${Section} title="Delete this exchange" open=${false}>
          ${me
            ? me.configure
              ? html`<button type="button" class="danger" disabled=${del.busy} onClick=${async () => {
                  if (!confirm(`Delete exchange ${name}?`)) return;
                  if (await del.run(async () => void (await api.del(apiPath`/exchanges/${vhost}/${name}`)))) navigate(href("exchanges"));
                }}>Delete exchange</button>
                <${ErrorBox} error=${del.error} />`
              : refused(why("configure", "Deleting this exchange"))
            : null}
        <//>`
      : null}
    <${ErrorBox} error=${checks.error} />`;
}
