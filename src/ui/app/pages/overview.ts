/**
 * Overview: totals, live charts of queued messages and message rates, the node's resources
 * against their alarms, a cluster's nodes and their roles, listeners, and definitions export/import.
 */
import { useMemo } from "preact/hooks";
import { hasTag, useApp } from "../app-context.js";
import { apiPath } from "../api.js";
import { ErrorBox } from "../components/error-box.js";
import { KvTable, Section, Stat } from "../components/kv.js";
import { NodeResources } from "../components/node-resources.js";
import { detailsOf } from "../chart-series.js";
import { chartQuery, useChartRange } from "../components/chart-range.js";
import { ChartGrid, HistoryChart } from "../components/history-chart.js";
import { fmtDuration, fmtNum, fmtRate } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { href } from "../router.js";
import { ChurnSection } from "./overview-churn.js";
import { Definitions } from "./overview-definitions.js";
import type { NodeFigures } from "../node-figures.js";

interface Overview {
  node: string;
  cluster_name: string;
  product_version: string;
  erlang_version: string;
  object_totals: Record<string, number>;
  queue_totals: Record<string, unknown>;
  message_stats: Record<string, unknown>;
  churn_rates?: Record<string, unknown>;
  /** Monitors only, as RabbitMQ; the others' overview has no node, listeners or contexts. */
  listeners?: Listener[];
  /** Coney: configured listeners that could not bind and are being retried. */
  listeners_unbound?: Array<Listener & { reason: string | null }>;
  contexts?: Array<{ node: string; description: string; path: string; port: string; ip?: string; ssl?: boolean }>;
}

interface Listener {
  node: string;
  protocol: string;
  ip_address: string;
  port: number;
}

interface NodeInfo extends NodeFigures {
  /** In a cluster (docs/CLUSTERING.md): another node's record carries these and little else. */
  running?: boolean;
  cluster_leader?: boolean;
  in_sync?: boolean;
  /** `coney --workers N`: the queue groups this worker leads (a spread broker has no single leader). */
  queue_groups?: readonly string[];
}

export const QUEUED_SERIES = [
  { key: "messages_ready", label: "Ready", color: "#d99a00" },
  { key: "messages_unacknowledged", label: "Unacked", color: "#3a7bd5" },
  { key: "messages", label: "Total", color: "#6b7780", dash: true },
];

export const RATE_SERIES = [
  { key: "publish", label: "Publish", color: "#d99a00" },
  { key: "deliver_get", label: "Deliver / get", color: "#3a7bd5" },
  { key: "ack", label: "Ack", color: "#2e9d5b" },
  { key: "redeliver", label: "Redeliver", color: "#c94f4f" },
  { key: "confirm", label: "Confirm", color: "#8a5cc2", dash: true },
  { key: "get", label: "Get", color: "#1aa3a3" },
];

export function OverviewPage() {
  const { api, tags, vhost, access } = useApp();
  const range = useChartRange();
  const overview = useLive(() => api.get<Overview>("/overview", chartQuery(range, ["lengths", "msg_rates"])), [range.key]);
  const monitor = hasTag(tags, "monitoring");
  const nodes = useLive(() => (monitor ? api.get<NodeInfo[]>("/nodes") : Promise.resolve(undefined)), [monitor]);
  const o = overview.data;
  // The node answering (in a cluster, the leader) has the full record; the others only their role.
  const self = nodes.data?.find((n) => n.name === o?.node) ?? (nodes.data?.length === 1 ? nodes.data[0] : undefined);
  const t = o?.object_totals ?? {};
  const q = o?.queue_totals ?? {};
  const queued = useMemo(() => (o ? QUEUED_SERIES.map((s) => detailsOf(o.queue_totals, s.key)) : undefined), [o]);
  const rates = useMemo(() => (o ? RATE_SERIES.map((s) => detailsOf(o.message_stats, s.key)) : undefined), [o]);

  return html`<h1>Overview</h1>
    ${!monitor && access ? html`<p class="lead">${access.vhosts.length ? html`Figures of the virtual hosts you may use: <strong>${access.vhosts.map((v) => v.name).join(", ")}</strong>, and of your own connections.` : "You hold no permission in any virtual host, so there is nothing to count yet: ask an administrator for one."}</p>` : null}
    <${ErrorBox} error=${overview.error} />
    ${o
      ? html`<div class="stats">
          <${Stat} label="Connections" value=${fmtNum(t["connections"])} href=${href("connections")} />
          <${Stat} label="Channels" value=${fmtNum(t["channels"])} href=${href("channels")} />
          <${Stat} label="Exchanges" value=${fmtNum(t["exchanges"])} href=${href("exchanges")} />
          <${Stat} label="Queues" value=${fmtNum(t["queues"])} href=${href("queues")} />
          ${t["consumers"] !== undefined ? html`<${Stat} label="Consumers" value=${fmtNum(t["consumers"])} />` : null}
          <${Stat} label="Ready" value=${fmtNum(q["messages_ready"])} />
          <${Stat} label="Unacked" value=${fmtNum(q["messages_unacknowledged"])} />
          <${Stat} label="Total messages" value=${fmtNum(q["messages"])} />
        </div>
        <${ChartGrid}>
          <${HistoryChart} title="Queued messages" series=${QUEUED_SERIES} details=${queued} kind="gauge" range=${range} format=${fmtNum} />
          <${HistoryChart} title="Message rates" series=${RATE_SERIES} details=${rates} kind="rate" range=${range} format=${fmtRate} />
        <//>`
      : overview.loading ? html`<p class="muted">Loading…</p>` : null}
    <${ChurnSection} churn=${o?.churn_rates} range=${range} />
    <${Section} title="Node">
      ${!monitor
        ? html`<p class="muted">Node figures need the monitoring or administrator tag.</p>`
        : html`<${ErrorBox} error=${nodes.error} />${self ? html`<${NodeView} n=${self} version=${o?.product_version ?? ""} runtime=${o?.erlang_version ?? ""} />` : null}`}
    <//>
    ${nodes.data && nodes.data.length > 1 ? html`<${Section} title="Cluster nodes"><${ClusterNodes} nodes=${nodes.data} /><//>` : null}
    ${o?.listeners ? html`<${Section} title="Ports and contexts"><${Ports} o=${o} /><//>` : null}
    ${tags.includes("administrator") /* the definitions endpoints are administrator-only */
      ? html`<${Section} title=${vhost ? `Definitions of virtual host ${vhost}` : "Definitions"}>
          <${Definitions} path=${vhost ? apiPath`/definitions/${vhost}` : "/definitions"} vhost=${vhost} />
        <//>`
      : null}`;
}

/** The node's listeners (bound, or retried with the reason) and its web contexts, as RabbitMQ's "Ports and contexts". */
function Ports({ o }: { o: Overview }) {
  const rows = [...(o.listeners ?? []).map((l) => ({ ...l, reason: null as string | null, up: true })), ...(o.listeners_unbound ?? []).map((l) => ({ ...l, up: false }))];
  rows.sort((a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol));
  return html`<h3>Listeners</h3><table class="grid" aria-label="Listeners"><thead><tr><th>Protocol</th><th>Bound to</th><th class="num">Port</th><th>State</th><th>Node</th></tr></thead>
      <tbody>${rows.map(
        (l) => html`<tr key=${l.protocol + l.port}><td>${l.protocol}</td><td>${l.ip_address}</td><td class="num">${l.port}</td>
          <td>${l.up ? "listening" : html`<span class="warn-text" title=${l.reason ?? ""}>not bound, retrying${l.reason ? `: ${l.reason}` : ""}</span>`}</td><td>${l.node}</td></tr>`,
      )}</tbody></table>
    ${o.contexts?.length
      ? html`<h3>Web contexts</h3><table class="grid" aria-label="Web contexts"><thead><tr><th>Context</th><th>Bound to</th><th class="num">Port</th><th>TLS</th><th>Path</th><th>Node</th></tr></thead>
          <tbody>${o.contexts.map((c) => html`<tr key=${c.description + c.port}><td>${c.description}</td><td>${c.ip ?? "::"}</td><td class="num">${c.port}</td><td>${c.ssl ? "yes" : "no"}</td><td>${c.path}</td><td>${c.node}</td></tr>`)}</tbody></table>`
      : null}`;
}

/** Every node of a cluster and its role: which one leads and which hold every confirmed message. */
function ClusterNodes({ nodes }: { nodes: readonly NodeInfo[] }) {
  return html`<table class="grid" aria-label="Cluster nodes"><thead><tr><th>Node</th><th>State</th><th>Role</th><th>In sync</th></tr></thead>
    <tbody>${nodes.map(
      (n) => html`<tr>
        <td><a href=${href("nodes", n.name)}>${n.name}</a></td>
        <td>${n.running ? "running" : html`<span class="alarm-flag">stopped</span>`}</td>
        <td>${nodeRole(n)}</td>
        <td>${n.in_sync === undefined ? "–" : n.in_sync ? "yes" : "no"}</td>
      </tr>`,
    )}</tbody></table>`;
}

/**
 * A replicated cluster has one leader and followers; the workers of `--workers N` and the nodes of
 * a spread cluster each lead their own queues, and their records carry no cluster_leader/in_sync.
 */
function nodeRole(n: NodeInfo): string {
  if (n.cluster_leader !== undefined) return n.cluster_leader ? "leader" : "follower";
  return n.queue_groups ? `leads ${n.queue_groups.length} queue groups` : "leads its own queues";
}

function NodeView({ n, version, runtime }: { n: NodeInfo; version: string; runtime: string }) {
  return html`<div class="node">
    <${KvTable} label="Node" rows=${[
      ["Name", html`<a href=${href("nodes", n.name)}>${n.name}</a>`],
      ["Version", `Coney ${version}`],
      ["Runtime", runtime],
      ["Uptime", fmtDuration(n.uptime)],
      ["Processors", fmtNum(n.processors)],
    ]} />
    <${NodeResources} n=${n} />
  </div>`;
}
