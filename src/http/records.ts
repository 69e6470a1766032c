/**
 * Management API records with RabbitMQ's field names, built from live domain state (no
 * statistics lag: every figure is read when the request is served).
 */
import type { Permission } from "../auth/permission.js";
import type { User } from "../auth/user.js";
import type { Binding } from "../broker/binding.js";
import type { ChannelInfo, ConnectionInfo } from "../broker/connection-registry.js";
import type { Exchange } from "../broker/exchange/exchange.js";
import { bindingDefinition, exchangeDefinition } from "../broker/definition-records.js";
import type { Queue } from "../broker/queue/queue.js";
import { NO_POLICY, type AppliedPolicy } from "../broker/policies.js";
import type { VHost } from "../broker/vhost.js";
import { propertiesKey } from "./properties-key.js";

/** Rough bytes a queue holds: message bodies plus a fixed per-entry bookkeeping cost. */
const ENTRY_OVERHEAD = 200;

export function queueRecord(q: Queue, node: string, applied: AppliedPolicy = NO_POLICY): Record<string, unknown> {
  const ready = q.messageCount;
  const unacked = q.unacked;
  const consumers = q.listConsumers();
  return {
    name: q.name,
    vhost: q.vhost,
    durable: q.durable,
    auto_delete: q.autoDelete,
    exclusive: q.exclusiveOwner !== null,
    arguments: q.arguments,
    type: q.type,
    node,
    state: "running",
    messages: ready + unacked,
    messages_ready: ready,
    messages_unacknowledged: unacked,
    message_bytes: q.readyBytes + q.unackedBytes,
    message_bytes_ready: q.readyBytes,
    message_bytes_unacknowledged: q.unackedBytes,
    consumers: consumers.length,
    consumer_capacity: consumers.length > 0 ? 1 : 0,
    consumer_utilisation: consumers.length > 0 ? 1 : 0,
    exclusive_consumer_tag: consumers.find((c) => c.exclusive)?.tag ?? null,
    memory: (ready + unacked) * ENTRY_OVERHEAD + q.readyBytes + q.unackedBytes,
    policy: applied.policy?.name ?? null,
    operator_policy: applied.operatorPolicy?.name ?? null,
    effective_policy_definition: applied.definition,
    idle_since: new Date(q.lastActivity).toISOString(),
    // A quorum queue on one node: that node leads and is the only member (RabbitMQ's fields).
    ...(q.type === "quorum" ? { leader: node, members: [node], online: [node] } : {}),
    ...(q.singleActiveConsumer ? { single_active_consumer_tag: consumers[0]?.tag ?? null } : {}),
    message_stats: {
      publish: q.stats.publish,
      deliver: q.stats.deliver,
      deliver_no_ack: q.stats.deliverNoAck,
      get: q.stats.get,
      get_no_ack: q.stats.getNoAck,
      deliver_get: q.stats.deliver + q.stats.deliverNoAck + q.stats.get + q.stats.getNoAck,
      ack: q.stats.ack,
      redeliver: q.stats.redeliver,
    },
  };
}

export function exchangeRecord(x: Exchange, applied: AppliedPolicy = NO_POLICY): Record<string, unknown> {
  return {
    ...exchangeDefinition(x),
    policy: applied.policy?.name ?? null,
    operator_policy: applied.operatorPolicy?.name ?? null,
    effective_policy_definition: applied.definition,
    user_who_performed_action: "rmq-internal",
    message_stats: { publish_in: x.stats.publishIn, publish_out: x.stats.publishOut },
  };
}

export function bindingRecord(b: Binding): Record<string, unknown> {
  return { ...bindingDefinition(b), properties_key: propertiesKey(b.routingKey, b.args) };
}

/** The implicit binding of every queue to the default exchange, as RabbitMQ lists it. */
export function defaultBindingRecord(q: Queue): Record<string, unknown> {
  return { source: "", vhost: q.vhost, destination: q.name, destination_type: "queue", routing_key: q.name, arguments: {}, properties_key: propertiesKey(q.name, {}) };
}

export function userRecord(u: User): Record<string, unknown> {
  return { name: u.name, password_hash: u.passwordHash, hashing_algorithm: u.hashingAlgorithm, tags: u.tags, limits: u.limits };
}

export function permissionRecord(p: Permission): Record<string, unknown> {
  return p.toJSON();
}

export function vhostRecord(v: VHost, node: string): Record<string, unknown> {
  let ready = 0;
  let unacked = 0;
  for (const q of v.queues.values()) {
    ready += q.messageCount;
    unacked += q.unacked;
  }
  const m = v.metadata;
  return {
    name: v.name,
    description: m.description,
    tags: m.tags,
    default_queue_type: m.defaultQueueType,
    metadata: { description: m.description, tags: m.tags, default_queue_type: m.defaultQueueType },
    tracing: m.tracing,
    cluster_state: { [node]: "running" },
    messages: ready + unacked,
    messages_ready: ready,
    messages_unacknowledged: unacked,
    recv_oct: v.stats.recvOct,
    send_oct: v.stats.sendOct,
    message_stats: { publish: v.stats.publish, deliver_get: v.stats.deliver, ack: v.stats.ack },
  };
}

export function connectionRecord(c: ConnectionInfo, node: string): Record<string, unknown> {
  return {
    name: c.name,
    node,
    type: "network",
    protocol: c.protocol,
    host: c.host,
    port: c.port,
    peer_host: c.peerHost,
    peer_port: c.peerPort,
    user: c.user,
    vhost: c.vhost,
    auth_mechanism: c.authMechanism,
    ssl: c.ssl,
    state: c.state,
    connected_at: c.connectedAt,
    channel_max: c.channelMax,
    frame_max: c.frameMax,
    timeout: c.heartbeat,
    channels: c.channels.length,
    client_properties: c.clientProperties,
    recv_oct: c.recvOct,
    send_oct: c.sendOct,
    recv_cnt: c.recvCnt,
    send_cnt: c.sendCnt,
  };
}

export function channelRecord(ch: ChannelInfo, node: string): Record<string, unknown> {
  const s = ch.stats;
  return {
    name: ch.name,
    node,
    number: ch.number,
    connection_details: { name: ch.connectionName, peer_host: ch.peerHost, peer_port: ch.peerPort },
    user: ch.user,
    vhost: ch.vhost,
    state: ch.state,
    consumer_count: ch.consumerCount,
    prefetch_count: ch.prefetchCount,
    global_prefetch_count: ch.globalPrefetchCount,
    messages_unacknowledged: ch.messagesUnacknowledged,
    messages_unconfirmed: ch.messagesUnconfirmed,
    messages_uncommitted: ch.messagesUncommitted,
    acks_uncommitted: ch.acksUncommitted,
    confirm: ch.confirm,
    transactional: ch.transactional,
    message_stats: {
      publish: s.publish,
      confirm: s.confirm,
      deliver: s.deliver,
      deliver_no_ack: s.deliverNoAck,
      get: s.get,
      get_no_ack: s.getNoAck,
      deliver_get: s.deliver + s.deliverNoAck + s.get + s.getNoAck,
      ack: s.ack,
      redeliver: s.redeliver,
      return_unroutable: s.returnUnroutable,
    },
  };
}
