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

const f = (name: string, type: MetricType, help: string, summed = true): FamilySpec => ({ name, type, help, summed });

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

const queueCoarse: ObjectGroup<Queue> = {
  kind: "object",
  name: "queue_coarse_metrics",
  vhostFiltered: true,
  families: [
    f("queue_messages_ready", "gauge", "Messages ready to be delivered to consumers"),
    f("queue_messages_unacked", "gauge", "Messages delivered to consumers but not yet acknowledged"),
    f("queue_messages", "gauge", "Sum of ready and unacknowledged messages - total queue depth"),
  ],
  objects: (s) => s.queues(),
  vhostOf: (q) => q.vhost,
  labels: queueLabels,
  values(q, out) {
    out[0] = q.messageCount;
    out[1] = q.unacked;
    out[2] = q.messageCount + q.unacked;
  },
};

const queueConsumerCount: ObjectGroup<Queue> = {
  kind: "object",
  name: "queue_consumer_count",
  vhostFiltered: true,
  families: [f("queue_consumers", "gauge", "Consumers on a queue")],
  objects: (s) => s.queues(),
  vhostOf: (q) => q.vhost,
  labels: queueLabels,
  values(q, out) {
    out[0] = q.consumerCount;
  },
};

const queueMetrics: ObjectGroup<Queue> = {
  kind: "object",
  name: "queue_metrics",
  vhostFiltered: true,
  families: [
    f("queue_consumers", "gauge", "Consumers on a queue"),
    f("queue_consumer_capacity", "gauge", "Consumer capacity", false),
    f("queue_consumer_utilisation", "gauge", "Same as consumer capacity"),
    f("queue_process_memory_bytes", "gauge", "Memory in bytes used by the Erlang queue process"),
    f("queue_messages_ram", "gauge", "Ready and unacknowledged messages stored in memory"),
    f("queue_messages_ram_bytes", "gauge", "Size of ready and unacknowledged messages stored in memory"),
    f("queue_messages_ready_ram", "gauge", "Ready messages stored in memory"),
    f("queue_messages_unacked_ram", "gauge", "Unacknowledged messages stored in memory"),
    f("queue_messages_persistent", "gauge", "Persistent messages"),
    f("queue_messages_persistent_bytes", "gauge", "Size in bytes of persistent messages"),
    f("queue_messages_bytes", "gauge", "Size in bytes of ready and unacknowledged messages"),
    f("queue_messages_ready_bytes", "gauge", "Size in bytes of ready messages"),
    f("queue_messages_unacked_bytes", "gauge", "Size in bytes of all unacknowledged messages"),
    f("queue_messages_paged_out", "gauge", "Messages paged out to disk"),
    f("queue_messages_paged_out_bytes", "gauge", "Size in bytes of messages paged out to disk"),
    f("queue_head_message_timestamp", "gauge", "Timestamp of the first message in the queue, if any", false),
  ],
  objects: (s) => s.queues(),
  vhostOf: (q) => q.vhost,
  labels: queueLabels,
  values(q, out) {
    const consumers = q.consumerCount;
    const ready = q.messageCount;
    const unacked = q.unacked;
    const pagedOut = q.pagedOutCount;
    const pagedOutBytes = q.pagedOutBytes;
    const readyBytes = q.readyBytes;
    const unackedBytes = q.unackedBytes;
    const ramCount = ready - pagedOut + unacked;
    const ramBytes = readyBytes - pagedOutBytes + unackedBytes;
    // A consumer on a Coney queue is never held back by a slow queue process: capacity is 1 with consumers.
    const capacity = consumers > 0 ? 1 : 0;
    out[0] = consumers;
    out[1] = capacity;
    out[2] = capacity;
    out[3] = ramCount * ENTRY_OVERHEAD + ramBytes;
    out[4] = ramCount;
    out[5] = ramBytes;
    out[6] = ready - pagedOut;
    out[7] = unacked;
    out[8] = q.persistentCount;
    out[9] = q.persistentBytes;
    out[10] = readyBytes + unackedBytes;
    out[11] = readyBytes;
    out[12] = unackedBytes;
    out[13] = pagedOut;
    out[14] = pagedOutBytes;
    out[15] = q.headTimestamp ?? NO_SAMPLE;
  },
};

const channelMetrics: ObjectGroup<ChannelInfo> = {
  kind: "object",
  name: "channel_metrics",
  vhostFiltered: false,
  families: [
    f("channel_consumers", "gauge", "Consumers on a channel"),
    f("channel_messages_unacked", "gauge", "Delivered but not yet acknowledged messages"),
    f("channel_messages_unconfirmed", "gauge", "Published but not yet confirmed messages"),
    f("channel_messages_uncommitted", "gauge", "Messages received in a transaction but not yet committed"),
    f("channel_acks_uncommitted", "gauge", "Message acknowledgements in a transaction not yet committed"),
    f("consumer_prefetch", "gauge", "Limit of unacknowledged messages for each consumer"),
    f("channel_prefetch", "gauge", "Total limit of unacknowledged messages for all consumers on a channel"),
  ],
  objects: (s) => s.channels(),
  vhostOf: (ch) => ch.vhost,
  labels: channelLabel,
  values(ch, out) {
    out[0] = ch.consumerCount;
    out[1] = ch.messagesUnacknowledged;
    out[2] = ch.messagesUnconfirmed;
    out[3] = ch.messagesUncommitted;
    out[4] = ch.acksUncommitted;
    out[5] = ch.prefetchCount;
    out[6] = ch.globalPrefetchCount;
  },
};

const channelExchange: ObjectGroup<ChannelInfo> = {
  kind: "object",
  name: "channel_exchange_metrics",
  vhostFiltered: false,
  families: [
    f("channel_messages_published_total", "counter", "Total number of messages published into an exchange on a channel"),
    f("channel_messages_confirmed_total", "counter", "Total number of messages published into an exchange and confirmed on the channel"),
    f("channel_messages_unroutable_returned_total", "counter", "Total number of messages published as mandatory into an exchange and returned to the publisher as unroutable"),
    f("channel_messages_unroutable_dropped_total", "counter", "Total number of messages published as non-mandatory into an exchange and dropped as unroutable"),
  ],
  objects: (s) => s.channels(),
  vhostOf: (ch) => ch.vhost,
  labels: channelVhostLabels,
  values(ch, out) {
    const c = ch.stats;
    out[0] = c.publish;
    out[1] = c.confirm;
    out[2] = c.returnUnroutable;
    out[3] = c.dropUnroutable;
  },
};

const channelQueue: ObjectGroup<ChannelInfo> = {
  kind: "object",
  name: "channel_queue_metrics",
  vhostFiltered: false,
  families: [
    f("channel_get_ack_total", "counter", "Total number of messages fetched with basic.get in manual acknowledgement mode"),
    f("channel_get_total", "counter", "Total number of messages fetched with basic.get in automatic acknowledgement mode"),
    f("channel_messages_delivered_ack_total", "counter", "Total number of messages delivered to consumers in manual acknowledgement mode"),
    f("channel_messages_delivered_total", "counter", "Total number of messages delivered to consumers in automatic acknowledgement mode"),
    f("channel_messages_redelivered_total", "counter", "Total number of messages redelivered to consumers"),
    f("channel_messages_acked_total", "counter", "Total number of messages acknowledged by consumers"),
    f("channel_get_empty_total", "counter", "Total number of times basic.get operations fetched no message"),
  ],
  objects: (s) => s.channels(),
  vhostOf: (ch) => ch.vhost,
  labels: channelVhostLabels,
  values(ch, out) {
    const c = ch.stats;
    out[0] = c.get;
    out[1] = c.getNoAck;
    out[2] = c.deliver;
    out[3] = c.deliverNoAck;
    out[4] = c.redeliver;
    out[5] = c.ack;
    out[6] = c.getEmpty;
  },
};

const connectionCoarse: ObjectGroup<ConnectionInfo> = {
  kind: "object",
  name: "connection_coarse_metrics",
  vhostFiltered: false,
  families: [
    f("connection_incoming_bytes_total", "counter", "Total number of bytes received on a connection"),
    f("connection_outgoing_bytes_total", "counter", "Total number of bytes sent on a connection"),
  ],
  objects: (s) => s.connections(),
  vhostOf: (c) => c.vhost,
  labels: connectionLabel,
  values(c, out) {
    out[0] = c.recvOct;
    out[1] = c.sendOct;
  },
};

const connectionMetrics: ObjectGroup<ConnectionInfo> = {
  kind: "object",
  name: "connection_metrics",
  vhostFiltered: false,
  families: [
    f("connection_incoming_packets_total", "counter", "Total number of packets received on a connection"),
    f("connection_outgoing_packets_total", "counter", "Total number of packets sent on a connection"),
    f("connection_channels", "gauge", "Channels on a connection"),
  ],
  objects: (s) => s.connections(),
  vhostOf: (c) => c.vhost,
  labels: connectionLabel,
  values(c, out) {
    out[0] = c.recvCnt;
    out[1] = c.sendCnt;
    out[2] = c.channels.length;
  },
};

const connectionChurn: NodeGroup = {
  kind: "node",
  name: "connection_churn_metrics",
  families: [
    f("connections_opened_total", "counter", "Total number of connections opened"),
    f("connections_closed_total", "counter", "Total number of connections closed or terminated"),
    f("channels_opened_total", "counter", "Total number of channels opened"),
    f("channels_closed_total", "counter", "Total number of channels closed"),
    f("queues_declared_total", "counter", "Total number of queues declared"),
    f("queues_created_total", "counter", "Total number of queues created"),
    f("queues_deleted_total", "counter", "Total number of queues deleted"),
  ],
  rows(s) {
    const b = s.broker.stats;
    return [{ labels: "", values: [b.connectionCreated, b.connectionClosed, b.channelCreated, b.channelClosed, b.queueDeclared, b.queueCreated, b.queueDeleted] }];
  },
};

const nodeCoarse: NodeGroup = {
  kind: "node",
  name: "node_coarse_metrics",
  families: [
    f("process_open_fds", "gauge", "Open file descriptors"),
    f("process_open_tcp_sockets", "gauge", "Open TCP sockets"),
    f("process_resident_memory_bytes", "gauge", "Memory used in bytes"),
    f("disk_space_available_bytes", "gauge", "Disk space available in bytes"),
  ],
  rows(s) {
    const n = s.node();
    return [{ labels: "", values: [n.openFds, s.broker.connections.size, n.residentMemory, n.diskFree] }];
  },
};

const nodeMetrics: NodeGroup = {
  kind: "node",
  name: "node_metrics",
  families: [
    f("process_max_fds", "gauge", "Open file descriptors limit"),
    f("process_max_tcp_sockets", "gauge", "Open TCP sockets limit"),
    f("resident_memory_limit_bytes", "gauge", "Memory high watermark in bytes"),
    f("disk_space_available_limit_bytes", "gauge", "Free disk space low watermark in bytes"),
    f("erlang_uptime_seconds", "gauge", "Node uptime"),
  ],
  rows(s) {
    const n = s.node();
    const alarms = s.source.alarms.figures;
    // Every socket is a file descriptor; a Node process has no separate socket limit.
    return [{ labels: "", values: [n.maxFds, n.maxFds, alarms.memLimit, alarms.diskFreeLimit, n.uptimeSeconds] }];
  },
};

const authAttempts: NodeGroup = {
  kind: "node",
  name: "auth_attempt_metrics",
  families: [
    f("auth_attempts_total", "counter", "Total number of authorization attempts"),
    f("auth_attempts_succeeded_total", "counter", "Total number of successful authentication attempts"),
    f("auth_attempts_failed_total", "counter", "Total number of failed authentication attempts"),
  ],
  rows(s) {
    const b = s.broker.stats;
    const rows = [{ labels: labelPair("protocol", "amqp091"), values: [b.authAttempts, b.authSucceeded, b.authFailed] }];
    // MQTT logins, under RabbitMQ's label "mqtt" (its auth attempts name the plugin, not the version).
    const mqtt = s.broker.authAttempts.list().find((a) => a.protocol === "mqtt");
    if (mqtt) rows.push({ labels: labelPair("protocol", "mqtt"), values: [mqtt.auth_attempts, mqtt.auth_attempts_succeeded, mqtt.auth_attempts_failed] });
    return rows;
  },
};

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
