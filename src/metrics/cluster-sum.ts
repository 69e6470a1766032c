/**
 * The whole broker's figures from every node's own exposition (issue 42, "Prometheus per node
 * with the aggregate"; docs/CLUSTERING.md, "One scrape for the whole broker"). Each node reports
 * the queues it leads and the connections and channels it holds (scrape-state.ts), so summing a
 * series over the nodes counts every queue, connection and channel once; a per-object series (a
 * queue's, a channel's) is on one node only and passes through unchanged.
 *
 * Rules, by family:
 * - summed over the nodes, same family names and labels as /metrics: everything not named below;
 * - one series per node, labelled `rabbitmq_node` (a sum would mean nothing: a start time, the
 *   free space of a disk the workers share, an event-loop delay, a node's role or listeners):
 *   PER_NODE;
 * - `rabbitmq_build_info`: each distinct version once (value 1), as after a rolling upgrade;
 * - `rabbitmq_identity_info`: left to the caller (one series naming the answering node, so
 *   dashboards that join on it find one match per target).
 *
 * A node that did not answer this time (stale) adds only its counters and histograms, at their
 * last values: what it counted did happen, and keeping them keeps the sum from falling (which
 * Prometheus would read as a counter reset and a false burst on recovery). Its gauges are left
 * out — its present state is unknown, and another node may already report its queues — so a
 * gauge sum is the answering nodes' figures, as a sum over per-node scrapes would be.
 */
import { Exposition, labelPair, type MetricType } from "./exposition.js";
import type { ParsedFamily } from "./exposition-parse.js";

/** Families with one series per node. */
export const PER_NODE: ReadonlySet<string> = new Set([
  "process_start_time_seconds",
  "rabbitmq_erlang_uptime_seconds",
  "rabbitmq_erlang_net_ticktime_seconds",
  "rabbitmq_disk_space_available_bytes",
  "rabbitmq_disk_space_available_limit_bytes",
  "rabbitmq_alarms_free_disk_space_watermark",
  "rabbitmq_alarms_memory_used_watermark",
  "rabbitmq_alarms_file_descriptor_limit",
  "coney_event_loop_delay_mean_seconds",
  "coney_event_loop_delay_p99_seconds",
  "coney_event_loop_delay_max_seconds",
  "coney_cluster_leader",
  "coney_cluster_in_sync",
  "coney_listener_up",
]);

const IDENTITY = "rabbitmq_identity_info";
const BUILD = "rabbitmq_build_info";

/** One node's exposition as read, and whether it answered this scrape. */
export interface NodeExposition {
  readonly node: string;
  readonly families: readonly ParsedFamily[];
  readonly fresh: boolean;
}

interface Summed {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  /** Series as written (with the node label for a per-node family) -> value. */
  readonly series: Map<string, number>;
}

/** `series` with `rabbitmq_node="…"` as its first label. */
function withNode(series: string, nodeLabel: string): string {
  const brace = series.indexOf("{");
  return brace < 0 ? `${series}{${nodeLabel}}` : `${series.slice(0, brace + 1)}${nodeLabel},${series.slice(brace + 1)}`;
}

/** Every family of `nodes` (the answering node first: its order is the output's), combined by the rules above. */
export function sumExpositions(nodes: readonly NodeExposition[], out: Exposition = new Exposition()): Exposition {
  const families = new Map<string, Summed>();
  for (const n of nodes) {
    const nodeLabel = labelPair("rabbitmq_node", n.node);
    for (const f of n.families) {
      if (f.name === IDENTITY) continue;
      const perNode = PER_NODE.has(f.name);
      const cumulative = f.type === "counter" || f.type === "histogram";
      if (!n.fresh && (perNode || !cumulative) && f.name !== BUILD) continue;
      let into = families.get(f.name);
      if (into === undefined) {
        into = { name: f.name, type: f.type, help: f.help, series: new Map() };
        families.set(f.name, into);
      }
      const once = f.name === BUILD;
      for (const s of f.samples) {
        const series = perNode ? withNode(s.series, nodeLabel) : s.series;
        const had = into.series.get(series);
        if (had === undefined) into.series.set(series, s.value);
        else if (!once) into.series.set(series, had + s.value);
      }
    }
  }
  for (const f of families.values()) {
    out.family(f.name, f.type, f.help);
    for (const [series, value] of f.series) out.seriesSample(series, value);
  }
  return out;
}
