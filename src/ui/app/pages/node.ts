/**
 * One node (linked from the overview's node and cluster tables): its record (GET
 * /api/nodes/{name}), charts of its gauges over the chosen range (memory, file descriptors,
 * sockets: `node_stats_age`) and its memory breakdown (`?memory=true`). Monitoring and
 * administrator users only, as the API.
 */
import { useMemo } from "preact/hooks";
import { apiPath } from "../api.js";
import { useApp } from "../app-context.js";
import { detailsOf } from "../chart-series.js";
import { chartQuery, useChartRange } from "../components/chart-range.js";
import { ErrorBox, Unavailable } from "../components/error-box.js";
import { ChartGrid, HistoryChart } from "../components/history-chart.js";
import { KvTable, Section } from "../components/kv.js";
import { MemoryBreakdown, type MemoryRecord } from "../components/memory-breakdown.js";
import { NodeResources } from "../components/node-resources.js";
import { fmtBytes, fmtDuration, fmtNum } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { href } from "../router.js";
import type { PageProps } from "../page-props.js";
import type { NodeFigures } from "../node-figures.js";

interface NodeRecord extends NodeFigures {
  os_pid: string;
  run_queue?: number | null;
  net_ticktime?: number;
  memory?: MemoryRecord;
  running?: boolean;
  cluster_leader?: boolean;
}

const MEMORY = [{ key: "mem_used", label: "Memory used", color: "#d99a00" }];
const FDS = [{ key: "fd_used", label: "File descriptors", color: "#3a7bd5" }];
const SOCKETS = [{ key: "sockets_used", label: "Sockets", color: "#2e9d5b" }];

export function NodePage({ params }: PageProps) {
  const name = params["name"] ?? "";
  const { api } = useApp();
  const range = useChartRange();
  const node = useLive(() => api.get<NodeRecord>(apiPath`/nodes/${name}`, { memory: "true", ...chartQuery(range, ["node_stats"]) }), [name, range.key]);
  const n = node.data;
  const charts = useMemo(() => (n ? { mem: MEMORY.map((s) => detailsOf(n, s.key)), fd: FDS.map((s) => detailsOf(n, s.key)), sockets: SOCKETS.map((s) => detailsOf(n, s.key)) } : undefined), [n]);

  if (!n && node.error) return html`<h1><span class="kind">Node</span> ${name}</h1><${Unavailable} error=${node.error} back=${href("")} backLabel="Back to the overview" />`;
  return html`<h1><span class="kind">Node</span> ${name}</h1>
    <p class="lead"><a href=${href("")}>Overview</a></p>
    <${ErrorBox} error=${node.error} />
    ${n
      ? html`<div class="cols">
          <${KvTable} label="Node" rows=${[
            ["Uptime", fmtDuration(n.uptime)],
            ["Process id", n.os_pid],
            ["Processors", fmtNum(n.processors)],
            ...(n.cluster_leader !== undefined ? [["Role", n.cluster_leader ? "leader" : "follower"] as [string, string]] : []),
          ]} />
          <${NodeResources} n=${n} />
        </div>
        ${charts
          ? html`<${ChartGrid}>
              <${HistoryChart} title="Memory" series=${MEMORY} details=${charts.mem} kind="gauge" range=${range} format=${fmtBytes} />
              <${HistoryChart} title="File descriptors" series=${FDS} details=${charts.fd} kind="gauge" range=${range} format=${fmtNum} />
              <${HistoryChart} title="Sockets" series=${SOCKETS} details=${charts.sockets} kind="gauge" range=${range} format=${fmtNum} />
            <//>`
          : null}
        <${Section} title="Memory details">
          ${n.memory ? html`<${MemoryBreakdown} memory=${n.memory} />` : html`<p class="muted">This node reports no memory breakdown.</p>`}
        <//>`
      : node.loading ? html`<p class="muted">Loading…</p>` : null}`;
}
