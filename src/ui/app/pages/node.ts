/**
 * One node (linked from the overview's node and cluster tables), as RabbitMQ 3.10's node page: its
 * record (GET /api/nodes/{name}) — uptime, versions, config files, data directory and log files;
 * its resources against their limits (process counts as this Node.js process has them) and run
 * queue; charts of its gauges over the chosen range (memory, file descriptors, sockets:
 * `node_stats_age`); its memory breakdown (`?memory=true`); and what it offers — enabled plugins,
 * feature flags (GET /api/feature-flags), applications, exchange types, authentication mechanisms.
 * What RabbitMQ charts of its Erlang VM that Coney has no figure for is named, not drawn empty.
 * Monitoring and administrator users only, as the API.
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
import { ApplicationList, FeatureFlagList, NotInConey, PluginList, RegistryList, type FlagEntry, type RegistryEntry } from "../components/node-registry.js";
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
  rates_mode?: string;
  memory?: MemoryRecord;
  running?: boolean;
  cluster_leader?: boolean;
  config_files?: string[];
  db_dir?: string;
  log_files?: string[];
  enabled_plugins?: string[];
  applications?: RegistryEntry[];
  exchange_types?: RegistryEntry[];
  auth_mechanisms?: RegistryEntry[];
}

const versionOf = (n: NodeRecord, app: string): string => n.applications?.find((a) => a.name === app)?.version ?? "–";
const paths = (list: string[] | undefined, none: string) => (list && list.length > 0 ? list.map((p) => html`<code class="path">${p}</code> `) : html`<span class="muted">${none}</span>`);

const MEMORY = [{ key: "mem_used", label: "Memory used", color: "#d99a00" }];
const FDS = [{ key: "fd_used", label: "File descriptors", color: "#3a7bd5" }];
const SOCKETS = [{ key: "sockets_used", label: "Sockets", color: "#2e9d5b" }];

export function NodePage({ params }: PageProps) {
  const name = params["name"] ?? "";
  const { api } = useApp();
  const range = useChartRange();
  const node = useLive(() => api.get<NodeRecord>(apiPath`/nodes/${name}`, { memory: "true", ...chartQuery(range, ["node_stats"]) }), [name, range.key]);
  const flags = useLive(() => api.get<FlagEntry[]>("/feature-flags"), [], { live: false });
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
            ["Cores", fmtNum(n.processors)],
            ["Coney version", versionOf(n, "coney")],
            ["Node.js version", versionOf(n, "node")],
            ...(n.cluster_leader !== undefined ? [["Role", n.cluster_leader ? "leader" : "follower"] as [string, string]] : []),
            ["Config file", paths(n.config_files, "none (defaults, command-line flags and environment)")],
            ["Database directory", n.db_dir ? html`<code class="path">${n.db_dir}</code>` : html`<span class="muted">none: definitions and messages are kept in memory</span>`],
            [n.log_files?.length === 1 ? "Log file" : "Log files", paths(n.log_files, "none")],
          ]} />
          <div class="stack">
            <${NodeResources} n=${n} />
            <${KvTable} label="Process" rows=${[
              ["OS process id", n.os_pid],
              // Erlang's run queue counts processes waiting for a scheduler; Coney's is its own threads the kernel has ready to run (README, "The node record").
              ["Run queue", n.run_queue === null || n.run_queue === undefined ? html`<span class="muted">not known on this platform</span>` : html`${fmtNum(n.run_queue)} <span class="sub">threads ready to run</span>`],
              ["Rates mode", n.rates_mode ?? "–"],
              ["Net ticktime", n.net_ticktime === undefined ? "–" : html`${n.net_ticktime}s <span class="sub">the AMQP heartbeat proposed (no Erlang distribution)</span>`],
            ]} />
          </div>
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
        <//>
        <${Section} title="Plugins"><${PluginList} plugins=${n.enabled_plugins ?? []} /><//>
        <${Section} title="Feature flags">
          <${ErrorBox} error=${flags.error} />
          ${flags.data ? html`<${FeatureFlagList} flags=${flags.data} />` : null}
        <//>
        <${Section} title="Exchange types"><${RegistryList} label="Exchange types" entries=${n.exchange_types ?? []} showEnabled=${false} /><//>
        <${Section} title="Authentication mechanisms"><${RegistryList} label="Authentication mechanisms" entries=${n.auth_mechanisms ?? []} showEnabled=${true} /><//>
        <${Section} title="All applications" open=${false}><${ApplicationList} apps=${n.applications ?? []} /><//>
        <${Section} title="Not in Coney" open=${false}><${NotInConey} /><//>`
      : node.loading ? html`<p class="muted">Loading…</p>` : null}`;
}
