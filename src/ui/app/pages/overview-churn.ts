/**
 * The overview's churn statistics, as RabbitMQ's overview shows them: connections, channels and
 * queues created (declared) and closed (deleted) per second, charted over the chosen range, with
 * the totals since the node started (`churn_rates` of /api/overview).
 */
import { useMemo } from "preact/hooks";
import { detailsOf } from "../chart-series.js";
import type { ChartRange } from "../components/chart-range.js";
import { ChartGrid, HistoryChart } from "../components/history-chart.js";
import { Section } from "../components/kv.js";
import { fmtNum, fmtRate } from "../format.js";
import { html } from "../html.js";

const CREATED = "#2e9d5b";
const CLOSED = "#c94f4f";

const CHURN = [
  { title: "Connection operations", series: [{ key: "connection_created", label: "Created", color: CREATED }, { key: "connection_closed", label: "Closed", color: CLOSED }] },
  { title: "Channel operations", series: [{ key: "channel_created", label: "Created", color: CREATED }, { key: "channel_closed", label: "Closed", color: CLOSED }] },
  {
    title: "Queue operations",
    series: [{ key: "queue_declared", label: "Declared", color: "#3a7bd5" }, { key: "queue_created", label: "Created", color: CREATED }, { key: "queue_deleted", label: "Deleted", color: CLOSED }],
  },
];

export function ChurnSection({ churn, range }: { churn: Record<string, unknown> | undefined; range: ChartRange }) {
  const details = useMemo(() => (churn ? CHURN.map((c) => c.series.map((s) => detailsOf(churn, s.key))) : undefined), [churn]);
  if (!churn) return null;
  return html`<${Section} title="Churn statistics">
    <${ChartGrid}>
      ${CHURN.map((c, i) => html`<${HistoryChart} key=${c.title} title=${c.title} series=${c.series} details=${details?.[i]} kind="rate" range=${range} format=${fmtRate} />`)}
    <//>
    <table class="grid" aria-label="Churn totals"><thead><tr><th></th>${CHURN.flatMap((c) => c.series.map((s) => html`<th class="num">${`${c.title.split(" ")[0]} ${s.label.toLowerCase()}`}</th>`))}</tr></thead>
      <tbody><tr><th scope="row">Since start</th>${CHURN.flatMap((c) => c.series.map((s) => html`<td class="num">${fmtNum(churn[s.key])}</td>`))}</tr></tbody>
    </table>
  <//>`;
}
