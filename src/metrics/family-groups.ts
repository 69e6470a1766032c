/**
 * The metric families RabbitMQ 3.10's core collector exposes, grouped as its /metrics/detailed
 * endpoint names them (`family=queue_coarse_metrics`, …), with RabbitMQ's names, types and help
 * texts, and where each value comes from in Coney. Families RabbitMQ has and Coney does not are
 * listed, with the reason, in test/metrics/exclusions.ts.
 *
 * Two kinds of group:
 * - object groups: one row per queue, channel or connection. /metrics/per-object and
 *   /metrics/detailed print a labelled sample per row; /metrics prints one unlabelled sum.
 * - node groups: a few rows with fixed labels, printed as they are everywhere.
 *
 * Every figure is read from live state or a counter kept where its event happens; nothing here
 * runs per message.
 */
import type { ChannelInfo, ConnectionInfo, Queue } from "../broker/index.js";
import type { MetricType } from "./exposition.js";
import { labelPair } from "./exposition.js";
import type { ScrapeState } from "./scrape-state.js";

export interface FamilySpec {
  /** The name after the prefix (rabbitmq_, rabbitmq_detailed_ or rabbitmq_cluster_). */
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  /** False when a sum over objects means nothing (a timestamp): /metrics then prints no sample, as RabbitMQ does. */
  readonly summed?: boolean;
}

/** A value slot with no sample (a queue without a head timestamp). */
export const NO_SAMPLE = NaN;

export interface ObjectGroup<T> {
  readonly kind: "object";
  readonly name: string;
  readonly families: readonly FamilySpec[];
  /** The detailed endpoint's vhost= filter applies (RabbitMQ applies it to queue groups only). */
  readonly vhostFiltered: boolean;
  objects(s: ScrapeState): readonly T[];
  vhostOf(o: T): string;
  labels(o: T): string;
  /** Writes one value per family into `out` (NO_SAMPLE for none); `out` is reused between objects. */
  values(o: T, out: Float64Array): void;
}

export interface NodeRow {
  readonly labels: string;
  readonly values: readonly number[];
}

export interface NodeGroup {
  readonly kind: "node";
  readonly name: string;
  readonly families: readonly FamilySpec[];
  rows(s: ScrapeState): NodeRow[];
}

export type Group = ObjectGroup<Queue> | ObjectGroup<ChannelInfo> | ObjectGroup<ConnectionInfo> | NodeGroup;

/** A family with where its value comes from, so a family and its figure cannot be set apart (a reorder mislabels nothing). */
interface Family<S> extends FamilySpec {
  value(source: S): number;
}

const family =
  <S>() =>
  (name: string, type: MetricType, help: string, value: (source: S) => number, summed = true): Family<S> => ({ name, type, help, summed, value });
const queueFamily = family<Queue>();
const channelFamily = family<ChannelInfo>();
const connectionFamily = family<ConnectionInfo>();

/** An object group whose values are its families' getters, in the families' order. */
function objectGroup<T>(g: Omit<ObjectGroup<T>, "kind" | "families" | "values"> & { readonly families: readonly Family<T>[] }): ObjectGroup<T> {
  const families = g.families;
  return {
    ...g,
    kind: "object",
    values(o, out) {
      for (let j = 0; j < families.length; j++) out[j] = families[j]!.value(o);
    },
  };
}

/** A node group: each row is a labelled source that every family reads its value from. */
function nodeGroup<R>(name: string, families: readonly Family<R>[], rows: (s: ScrapeState) => Array<{ readonly labels: string; readonly of: R }>): NodeGroup {
  return { kind: "node", name, families, rows: (s) => rows(s).map((r) => ({ labels: r.labels, values: families.map((fam) => fam.value(r.of)) })) };
}

const queueLabels = (q: Queue): string => `${labelPair("vhost", q.vhost)},${labelPair("queue", q.name)}`;
const channelLabel = (ch: ChannelInfo): string => labelPair("channel", ch.name);
// RabbitMQ keys per-channel counters by channel and vhost/exchange or vhost/queue; Coney keeps
// them per channel (splitting them by exchange or queue would cost a map lookup per message),
// so these rows carry the channel and its vhost (see exclusions.ts, labels).
const channelVhostLabels = (ch: ChannelInfo): string => `${labelPair("channel", ch.name)},${labelPair("vhost", ch.vhost)}`;
// RabbitMQ labels a connection's rows `channel` (with the connection process's id); Coney puts
// the connection's name there, the name the management API lists it under.
const connectionLabel = (c: ConnectionInfo): string => labelPair("channel", c.name);

/** A queue's memory as the management API estimates it (src/http/records.ts): bodies in RAM plus a fixed cost per entry. */
const ENTRY_OVERHEAD = 200;

const queues = { objects: (s: ScrapeState) => s.queues(), vhostOf: (q: Queue) => q.vhost, labels: queueLabels, vhostFiltered: true };
const channels = { objects: (s: ScrapeState) => s.channels(), vhostOf: (ch: ChannelInfo) => ch.vhost, vhostFiltered: false };
const connections = { objects: (s: ScrapeState) => s.connections(), vhostOf: (c: ConnectionInfo) => c.vhost, labels: connectionLabel, vhostFiltered: false };

const queueCoarse = objectGroup<Queue>({
  name: "queue_coarse_metrics",
  ...queues,
  families: [
    queueFamily("queue_messages_ready", "gauge", "Messages ready to be delivered to consumers", (q) => q.messageCount),
    queueFamily("queue_messages_unacked", "gauge", "Messages delivered to consumers but not yet acknowledged", (q) => q.unacked),
    queueFamily("queue_messages", "gauge", "Sum of ready and unacknowledged messages - total queue depth", (q) => q.messageCount + q.unacked),
  ],
});

const consumers = queueFamily("queue_consumers", "gauge", "Consumers on a queue", (q) => q.consumerCount);

const queueConsumerCount = objectGroup<Queue>({ name: "queue_consumer_count", ...queues, families: [consumers] });

// A consumer on a Coney queue is never held back by a slow queue process: capacity is 1 with consumers.
const capacity = (q: Queue): number => (q.consumerCount > 0 ? 1 : 0);
const readyInRam = (q: Queue): number => q.messageCount - q.pagedOutCount;
const ramCount = (q: Queue): number => readyInRam(q) + q.unacked;
const ramBytes = (q: Queue): number => q.readyBytes - q.pagedOutBytes + q.unackedBytes;

const queueMetrics = objectGroup<Queue>({
  name: "queue_metrics",
  ...queues,
  families: [
    consumers,
    queueFamily("queue_consumer_capacity", "gauge", "Consumer capacity", capacity, false),
    queueFamily("queue_consumer_utilisation", "gauge", "Same as consumer capacity", capacity),
    queueFamily("queue_process_memory_bytes", "gauge", "Memory in bytes used by the Erlang queue process", (q) => ramCount(q) * ENTRY_OVERHEAD + ramBytes(q)),
    queueFamily("queue_messages_ram", "gauge", "Ready and unacknowledged messages stored in memory", ramCount),
    queueFamily("queue_messages_ram_bytes", "gauge", "Size of ready and unacknowledged messages stored in memory", ramBytes),
    queueFamily("queue_messages_ready_ram", "gauge", "Ready messages stored in memory", readyInRam),
    queueFamily("queue_messages_unacked_ram", "gauge", "Unacknowledged messages stored in memory", (q) => q.unacked),
    queueFamily("queue_messages_persistent", "gauge", "Persistent messages", (q) => q.persistentCount),
    queueFamily("queue_messages_persistent_bytes", "gauge", "Size in bytes of persistent messages", (q) => q.persistentBytes),
    queueFamily("queue_messages_bytes", "gauge", "Size in bytes of ready and unacknowledged messages", (q) => q.readyBytes + q.unackedBytes),
    queueFamily("queue_messages_ready_bytes", "gauge", "Size in bytes of ready messages", (q) => q.readyBytes),
    queueFamily("queue_messages_unacked_bytes", "gauge", "Size in bytes of all unacknowledged messages", (q) => q.unackedBytes),
    queueFamily("queue_messages_paged_out", "gauge", "Messages paged out to disk", (q) => q.pagedOutCount),
    queueFamily("queue_messages_paged_out_bytes", "gauge", "Size in bytes of messages paged out to disk", (q) => q.pagedOutBytes),
    queueFamily("queue_head_message_timestamp", "gauge", "Timestamp of the first message in the queue, if any", (q) => q.headTimestamp ?? NO_SAMPLE, false),
  ],
});

const channelMetrics = objectGroup<ChannelInfo>({
  name: "channel_metrics",
  ...channels,
  labels: channelLabel,
  families: [
    channelFamily("channel_consumers", "gauge", "Consumers on a channel", (ch) => ch.consumerCount),
    channelFamily("channel_messages_unacked", "gauge", "Delivered but not yet acknowledged messages", (ch) => ch.messagesUnacknowledged),
    channelFamily("channel_messages_unconfirmed", "gauge", "Published but not yet confirmed messages", (ch) => ch.messagesUnconfirmed),
    channelFamily("channel_messages_uncommitted", "gauge", "Messages received in a transaction but not yet committed", (ch) => ch.messagesUncommitted),
    channelFamily("channel_acks_uncommitted", "gauge", "Message acknowledgements in a transaction not yet committed", (ch) => ch.acksUncommitted),
    channelFamily("consumer_prefetch", "gauge", "Limit of unacknowledged messages for each consumer", (ch) => ch.prefetchCount),
    channelFamily("channel_prefetch", "gauge", "Total limit of unacknowledged messages for all consumers on a channel", (ch) => ch.globalPrefetchCount),
  ],
});

const channelExchange = objectGroup<ChannelInfo>({
  name: "channel_exchange_metrics",
  ...channels,
  labels: channelVhostLabels,
  families: [
    channelFamily("channel_messages_published_total", "counter", "Total number of messages published into an exchange on a channel", (ch) => ch.stats.publish),
    channelFamily("channel_messages_confirmed_total", "counter", "Total number of messages published into an exchange and confirmed on the channel", (ch) => ch.stats.confirm),
    channelFamily("channel_messages_unroutable_returned_total", "counter", "Total number of messages published as mandatory into an exchange and returned to the publisher as unroutable", (ch) => ch.stats.returnUnroutable),
    channelFamily("channel_messages_unroutable_dropped_total", "counter", "Total number of messages published as non-mandatory into an exchange and dropped as unroutable", (ch) => ch.stats.dropUnroutable),
  ],
});

const channelQueue = objectGroup<ChannelInfo>({
  name: "channel_queue_metrics",
  ...channels,
  labels: channelVhostLabels,
  families: [
    channelFamily("channel_get_ack_total", "counter", "Total number of messages fetched with basic.get in manual acknowledgement mode", (ch) => ch.stats.get),
    channelFamily("channel_get_total", "counter", "Total number of messages fetched with basic.get in automatic acknowledgement mode", (ch) => ch.stats.getNoAck),
    channelFamily("channel_messages_delivered_ack_total", "counter", "Total number of messages delivered to consumers in manual acknowledgement mode", (ch) => ch.stats.deliver),
    channelFamily("channel_messages_delivered_total", "counter", "Total number of messages delivered to consumers in automatic acknowledgement mode", (ch) => ch.stats.deliverNoAck),
    channelFamily("channel_messages_redelivered_total", "counter", "Total number of messages redelivered to consumers", (ch) => ch.stats.redeliver),
    channelFamily("channel_messages_acked_total", "counter", "Total number of messages acknowledged by consumers", (ch) => ch.stats.ack),
    channelFamily("channel_get_empty_total", "counter", "Total number of times basic.get operations fetched no message", (ch) => ch.stats.getEmpty),
  ],
});

const connectionCoarse = objectGroup<ConnectionInfo>({
  name: "connection_coarse_metrics",
  ...connections,
  families: [
    connectionFamily("connection_incoming_bytes_total", "counter", "Total number of bytes received on a connection", (c) => c.recvOct),
    connectionFamily("connection_outgoing_bytes_total", "counter", "Total number of bytes sent on a connection", (c) => c.sendOct),
  ],
});

const connectionMetrics = objectGroup<ConnectionInfo>({
  name: "connection_metrics",
  ...connections,
  families: [
    connectionFamily("connection_incoming_packets_total", "counter", "Total number of packets received on a connection", (c) => c.recvCnt),
    connectionFamily("connection_outgoing_packets_total", "counter", "Total number of packets sent on a connection", (c) => c.sendCnt),
    connectionFamily("connection_channels", "gauge", "Channels on a connection", (c) => c.channels.length),
  ],
});

type BrokerStats = ScrapeState["broker"]["stats"];
const statsFamily = family<BrokerStats>();

const connectionChurn = nodeGroup<BrokerStats>(
  "connection_churn_metrics",
  [
    statsFamily("connections_opened_total", "counter", "Total number of connections opened", (b) => b.connectionCreated),
    statsFamily("connections_closed_total", "counter", "Total number of connections closed or terminated", (b) => b.connectionClosed),
    statsFamily("channels_opened_total", "counter", "Total number of channels opened", (b) => b.channelCreated),
    statsFamily("channels_closed_total", "counter", "Total number of channels closed", (b) => b.channelClosed),
    statsFamily("queues_declared_total", "counter", "Total number of queues declared", (b) => b.queueDeclared),
    statsFamily("queues_created_total", "counter", "Total number of queues created", (b) => b.queueCreated),
    statsFamily("queues_deleted_total", "counter", "Total number of queues deleted", (b) => b.queueDeleted),
  ],
  (s) => [{ labels: "", of: s.broker.stats }],
);

const scrapeFamily = family<ScrapeState>();

const nodeCoarse = nodeGroup<ScrapeState>(
  "node_coarse_metrics",
  [
    scrapeFamily("process_open_fds", "gauge", "Open file descriptors", (s) => s.node().openFds),
    scrapeFamily("process_open_tcp_sockets", "gauge", "Open TCP sockets", (s) => s.broker.connections.size),
    scrapeFamily("process_resident_memory_bytes", "gauge", "Memory used in bytes", (s) => s.node().residentMemory),
    scrapeFamily("disk_space_available_bytes", "gauge", "Disk space available in bytes", (s) => s.node().diskFree),
  ],
  (s) => [{ labels: "", of: s }],
);

const nodeMetrics = nodeGroup<ScrapeState>(
  "node_metrics",
  [
    scrapeFamily("process_max_fds", "gauge", "Open file descriptors limit", (s) => s.node().maxFds),
    // Every socket is a file descriptor; a Node process has no separate socket limit.
    scrapeFamily("process_max_tcp_sockets", "gauge", "Open TCP sockets limit", (s) => s.node().maxFds),
    scrapeFamily("resident_memory_limit_bytes", "gauge", "Memory high watermark in bytes", (s) => s.source.alarms.figures.memLimit),
    scrapeFamily("disk_space_available_limit_bytes", "gauge", "Free disk space low watermark in bytes", (s) => s.source.alarms.figures.diskFreeLimit),
    scrapeFamily("erlang_uptime_seconds", "gauge", "Node uptime", (s) => s.node().uptimeSeconds),
  ],
  (s) => [{ labels: "", of: s }],
);

interface Attempts {
  readonly attempts: number;
  readonly succeeded: number;
  readonly failed: number;
}
const attemptsFamily = family<Attempts>();

const authAttempts = nodeGroup<Attempts>(
  "auth_attempt_metrics",
  [
    attemptsFamily("auth_attempts_total", "counter", "Total number of authorization attempts", (a) => a.attempts),
    attemptsFamily("auth_attempts_succeeded_total", "counter", "Total number of successful authentication attempts", (a) => a.succeeded),
    attemptsFamily("auth_attempts_failed_total", "counter", "Total number of failed authentication attempts", (a) => a.failed),
  ],
  (s) => {
    const b = s.broker.stats;
    const rows = [{ labels: labelPair("protocol", "amqp091"), of: { attempts: b.authAttempts, succeeded: b.authSucceeded, failed: b.authFailed } }];
    // MQTT logins, under RabbitMQ's label "mqtt" (its auth attempts name the plugin, not the version).
    const mqtt = s.broker.authAttempts.list().find((a) => a.protocol === "mqtt");
    if (mqtt) rows.push({ labels: labelPair("protocol", "mqtt"), of: { attempts: mqtt.auth_attempts, succeeded: mqtt.auth_attempts_succeeded, failed: mqtt.auth_attempts_failed } });
    return rows;
  },
);

/** In RabbitMQ's order. queue_consumer_count is a subset of queue_metrics, printed only without it. */
export const CORE_GROUPS: readonly Group[] = [
  connectionChurn,
  nodeCoarse,
  nodeMetrics,
  authAttempts,
  queueCoarse,
  queueConsumerCount,
  queueMetrics,
  channelMetrics,
  channelExchange,
  channelQueue,
  connectionCoarse,
  connectionMetrics,
];
