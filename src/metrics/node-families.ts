/**
 * The families about the node itself: identity and build (which dashboards join every query
 * on), resource alarms, process start time, the published-message size histogram, and the
 * Node.js runtime's own figures under the coney_ prefix (Erlang has no name for them).
 */
import { createHash } from "node:crypto";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";
import { VERSION, MESSAGE_SIZE_BOUNDS } from "../broker/index.js";
import { labelPair, type Exposition } from "./exposition.js";
import type { ScrapeState } from "./scrape-state.js";

/** Which endpoint is answering: RabbitMQ 3.13+ labels rabbitmq_identity_info with it, and the Overview dashboard filters on it. */
export type EndpointName = "aggregated" | "per-object" | "detailed";

/** The aggregate's endpoints (cluster-scrape.ts): Coney's own, labelled so on rabbitmq_identity_info. */
export type ClusterEndpointName = "cluster" | "cluster-per-object";

/**
 * RabbitMQ's cluster id is random and kept in its schema database; Coney derives a stable one
 * from the cluster name, so it survives restarts and changes only with the name.
 */
export function permanentClusterId(cluster: string): string {
  return `coney-cluster-id-${createHash("sha256").update(cluster).digest("base64url").slice(0, 22)}`;
}

/** Who answers a scrape: rabbitmq_node and rabbitmq_cluster. */
export interface NodeIdentity {
  readonly node: string;
  readonly cluster: string;
}

export function writeIdentity(out: Exposition, who: NodeIdentity, endpoint: EndpointName): void {
  writeBuildInfo(out);
  writeIdentityInfo(out, who, endpoint);
}

function writeBuildInfo(out: Exposition): void {
  out.family("rabbitmq_build_info", "untyped", "RabbitMQ & Erlang/OTP version info");
  out.sample(
    "rabbitmq_build_info",
    [
      labelPair("rabbitmq_version", VERSION),
      labelPair("prometheus_plugin_version", VERSION),
      labelPair("prometheus_client_version", VERSION),
      // As the management API's overview reports it.
      labelPair("erlang_version", `Node.js ${process.version}`),
      labelPair("product_name", "Coney"),
      labelPair("product_version", VERSION),
    ].join(","),
    1,
  );
}

/** rabbitmq_identity_info alone: the aggregate (cluster-scrape.ts) has every node's build_info from their own expositions. */
export function writeIdentityInfo(out: Exposition, who: NodeIdentity, endpoint: EndpointName | ClusterEndpointName): void {
  const { node, cluster } = who;
  out.family("rabbitmq_identity_info", "untyped", "RabbitMQ node & cluster identity info");
  out.sample(
    "rabbitmq_identity_info",
    [labelPair("rabbitmq_node", node), labelPair("rabbitmq_cluster", cluster), labelPair("rabbitmq_cluster_permanent_id", permanentClusterId(cluster)), labelPair("rabbitmq_endpoint", endpoint)].join(","),
    1,
  );
}

export function writeAlarms(out: Exposition, s: ScrapeState): void {
  const a = s.source.alarms.figures;
  out.family("rabbitmq_alarms_free_disk_space_watermark", "untyped", "is 1 if free disk space watermark alarm is in effect");
  out.sample("rabbitmq_alarms_free_disk_space_watermark", "", a.diskAlarm ? 1 : 0);
  out.family("rabbitmq_alarms_memory_used_watermark", "untyped", "is 1 if VM memory watermark alarm is in effect");
  out.sample("rabbitmq_alarms_memory_used_watermark", "", a.memAlarm ? 1 : 0);
}

export function writeProcessStart(out: Exposition): void {
  out.family("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.");
  out.sample("process_start_time_seconds", "", Math.round(Date.now() / 1000 - process.uptime()));
}

/** The `le` values exactly as RabbitMQ's Overview dashboard queries them. */
const LE = ["100.0", "1000.0", "10000.0", "100000.0", "1e+06", "1e+07", "5e+07", "1e+08", "+Inf"];

export function writeMessageSizes(out: Exposition, s: ScrapeState): void {
  const h = s.broker.stats.messageSizes;
  const name = "rabbitmq_message_size_bytes";
  const protocol = labelPair("protocol", "amqp091");
  out.family(name, "histogram", "Size of messages received from publishers");
  let cumulative = 0;
  for (let i = 0; i <= MESSAGE_SIZE_BOUNDS.length; i++) {
    cumulative += h.counts[i]!;
    out.sample(`${name}_bucket`, `${protocol},le="${LE[i]}"`, cumulative);
  }
  out.sample(`${name}_sum`, protocol, h.sum);
  out.sample(`${name}_count`, protocol, cumulative);
}

/**
 * Node.js figures: event-loop delay (since the previous scrape, then reset) and V8 heap. The
 * monitor samples on a timer of its own; it runs only while the metrics listener does.
 */
export class RuntimeMonitor {
  private readonly delay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  start(): void {
    this.delay.enable();
  }

  stop(): void {
    this.delay.disable();
  }

  /**
   * `reset` false: the delay window is read and kept (the aggregate's reading of a node, so the
   * node's own /metrics scraper still sees the delay since its previous scrape).
   */
  write(out: Exposition, reset = true): void {
    const d = this.delay;
    const seconds = (ns: number): number => (Number.isFinite(ns) ? ns / 1e9 : 0);
    const gauge = (name: string, help: string, value: number): void => {
      out.family(name, "gauge", help);
      out.sample(name, "", value);
    };
    gauge("coney_event_loop_delay_mean_seconds", "Mean event-loop delay since the previous scrape", seconds(d.count > 0 ? d.mean : 0));
    gauge("coney_event_loop_delay_p99_seconds", "99th percentile event-loop delay since the previous scrape", seconds(d.count > 0 ? d.percentile(99) : 0));
    gauge("coney_event_loop_delay_max_seconds", "Longest event-loop delay since the previous scrape", seconds(d.count > 0 ? d.max : 0));
    if (reset) d.reset();
    const heap = getHeapStatistics();
    const mem = process.memoryUsage();
    gauge("coney_heap_used_bytes", "V8 heap in use", heap.used_heap_size);
    gauge("coney_heap_total_bytes", "V8 heap allocated", heap.total_heap_size);
    gauge("coney_heap_limit_bytes", "V8 heap size limit", heap.heap_size_limit);
    gauge("coney_external_memory_bytes", "Memory of C++ objects bound to JavaScript objects (includes message bodies in Buffers)", mem.external);
    gauge("coney_array_buffers_bytes", "Memory of ArrayBuffers and Buffers", mem.arrayBuffers);
  }
}
