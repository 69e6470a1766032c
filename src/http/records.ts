/**
 * Management API records with RabbitMQ's field names, built from live domain state (no
 * statistics lag: every figure is read when the request is served).
 */
import type { Permission } from "../auth/permission.js";
import type { User } from "../auth/user.js";
import { type Binding, type ChannelInfo, type ClusterView, type ConnectionInfo, type Exchange, bindingDefinition, exchangeDefinition, type Queue, NO_POLICY, type AppliedPolicy, RemoteStreamQueue, StreamQueue, type VHost, groupLabel, staleCountsAt } from "../broker/index.js";
import { propertiesKey } from "./properties-key.js";
import type { PeerNodes } from "./peer-nodes.js";
import { addRemoteStreamFields, addStreamFields } from "./stream-queue-record.js";
import { addStoreCopies } from "./store-copies-record.js";
import type { ChartRange, ChartRanges, Counters, RateView } from "./rate-sampler.js";

/** What every record needs besides its object: the node name, and the rates of its counters. */
export interface RecordContext {
  readonly node: string;
  readonly rates: RateView;
  /** The cluster's nodes, where a record names them (a stream's members); absent or null on one node. */
  readonly cluster?: ClusterView | null;
  /** The other nodes of one broker (workers, a spread cluster): a spread stream's members are its store's copies. */
  readonly peers?: PeerNodes | null;
}

/**
 * The context a one-object request builds its record with: with samples when the UI asks for
 * charts (RabbitMQ adds them only then; a list of 10,000 queues never carries them).
 */
export function chartContext<C extends RecordContext>(base: C, query: Record<string, string | undefined>): C {
  const ranges = chartRanges(query);
  return ranges === null ? base : { ...base, rates: base.rates.withSamples(ranges) };
}

/** RabbitMQ's chart parameters (`<group>_age`, `<group>_incr`, seconds); null when none is given. */
export function chartRanges(query: Record<string, string | undefined>): ChartRanges | null {
  const range = (group: string): ChartRange | undefined => {
    const age = Number(query[`${group}_age`]);
    if (query[`${group}_age`] === undefined || !Number.isFinite(age) || age <= 0) return undefined;
    const incr = Number(query[`${group}_incr`]);
    // RabbitMQ's UI always sends both; without an increment, about 60 points over the age.
    return { age, incr: Number.isFinite(incr) && incr > 0 ? incr : Math.max(5, Math.round(age / 60)) };
  };
  const ranges: ChartRanges = { lengths: range("lengths"), msgRates: range("msg_rates"), dataRates: range("data_rates"), nodeStats: range("node_stats") };
  return ranges.lengths || ranges.msgRates || ranges.dataRates || ranges.nodeStats ? ranges : null;
}

// Counter groups: each is both rendered with `_details` rates and sampled by the rate sampler
// (see rate-sources.ts), so what a record shows and what its rate is computed from agree.

export function queueCounters(q: Queue): Counters {
  // A stream's unacknowledged deliveries are still in it (an ack removes nothing): its length is all it holds.
  return { messages: q.type === "stream" ? q.messageCount : q.messageCount + q.unacked, messages_ready: q.messageCount, messages_unacknowledged: q.unacked };
}

/** The delivery counters that queues, channels and the broker all keep, as RabbitMQ names them. */
interface DeliveryCounters {
  readonly publish: number;
  readonly deliver: number;
  readonly deliverNoAck: number;
  readonly get: number;
  readonly getNoAck: number;
  readonly ack: number;
  readonly redeliver: number;
  /** basic.get answered get-empty (RabbitMQ's get_empty). */
  readonly getEmpty: number;
}

export function deliveryStats(s: DeliveryCounters): Record<string, number> {
  return {
    publish: s.publish,
    deliver: s.deliver,
    deliver_no_ack: s.deliverNoAck,
    get: s.get,
    get_no_ack: s.getNoAck,
    deliver_get: s.deliver + s.deliverNoAck + s.get + s.getNoAck,
    ack: s.ack,
    redeliver: s.redeliver,
    get_empty: s.getEmpty,
  };
}

export function queueMessageStats(q: Queue): Counters {
  return deliveryStats(q.stats);
}

/** messages / ready / unacknowledged summed over some queues. */
export function queueTotals(queues: Iterable<Queue>): { messages: number; messages_ready: number; messages_unacknowledged: number } {
  let ready = 0;
  let unacked = 0;
  for (const q of queues) {
    ready += q.messageCount;
    unacked += q.unacked;
  }
  return { messages: ready + unacked, messages_ready: ready, messages_unacknowledged: unacked };
}

export function exchangeMessageStats(x: Exchange): Counters {
  return { publish_in: x.stats.publishIn, publish_out: x.stats.publishOut };
}

export function vhostCounters(v: VHost): Counters {
  return { ...queueTotals(v.queues.values()), recv_oct: v.stats.recvOct, send_oct: v.stats.sendOct };
}

/** The same counters as the overview's, for one vhost (RabbitMQ's vhost message_stats). */
export function vhostMessageStats(v: VHost): Counters {
  const s = v.stats;
  return { ...deliveryStats(s), confirm: s.confirm, return_unroutable: s.returnUnroutable, drop_unroutable: s.dropUnroutable };
}

export function connectionCounters(c: ConnectionInfo): Counters {
  return { recv_oct: c.recvOct, send_oct: c.sendOct, recv_cnt: c.recvCnt, send_cnt: c.sendCnt };
}

export function channelMessageStats(ch: ChannelInfo): Counters {
  return { ...deliveryStats(ch.stats), confirm: ch.stats.confirm, return_unroutable: ch.stats.returnUnroutable, drop_unroutable: ch.stats.dropUnroutable };
}

/**
 * Rate-sampler keys: one per counter group of one object, stable for the object's life. Built
 * once per object (a list of 10,000 queues would otherwise build and hash 20,000 strings per
 * request and per sample).
 */
function memoKey<T extends object>(make: (o: T) => string): (o: T) => string {
  const keys = new WeakMap<T, string>();
  return (o) => {
    let k = keys.get(o);
    if (k === undefined) keys.set(o, (k = make(o)));
    return k;
  };
}

export const rateKey = {
  queue: memoKey((q: Queue) => `queue\u0000${q.vhost}\u0000${q.name}`),
  queueStats: memoKey((q: Queue) => `queue-stats\u0000${q.vhost}\u0000${q.name}`),
  exchangeStats: memoKey((x: Exchange) => `exchange-stats\u0000${x.vhost}\u0000${x.name}`),
  vhost: (v: VHost) => `vhost\u0000${v.name}`,
  vhostStats: (v: VHost) => `vhost-stats\u0000${v.name}`,
  connection: (c: ConnectionInfo) => `connection\u0000${c.name}`,
  channelStats: (ch: ChannelInfo) => `channel-stats\u0000${ch.name}`,
};

/** Rough bytes a queue holds: message bodies plus a fixed per-entry bookkeeping cost. */
const ENTRY_OVERHEAD = 200;

export function queueRecord(q: Queue, rc: RecordContext, applied: AppliedPolicy = NO_POLICY): Record<string, unknown> {
  const ready = q.messageCount;
  const unacked = q.unacked;
  const consumers = q.listConsumers();
  const pagedOut = q.pagedOutCount;
  // Paged-out messages live only on disk; the rest (ready in memory, and every unacked one) is in RAM.
  const ramCount = ready - pagedOut + unacked;
  const ramBytes = q.readyBytes - q.pagedOutBytes + q.unackedBytes;
  // Built field by field into one object (no spreads): a list of 10,000 queues builds 10,000.
  const r: Record<string, unknown> = {
    name: q.name,
    vhost: q.vhost,
    durable: q.durable,
    auto_delete: q.autoDelete,
    exclusive: q.exclusiveOwner !== null,
    arguments: q.arguments,
    type: q.type,
    // The node leading it: this one, or (`coney --workers N`) the worker that does.
    node: q.leaderNode ?? rc.node,
    // Coney's own field: the queue group whose store keeps its messages (docs/CLUSTERING.md); null when exclusive.
    group: q.group === null ? null : groupLabel(q.group),
    state: "running",
  };
  rc.rates.addRates(r, rateKey.queue(q), queueCounters(q));
  r["messages_ready_ram"] = ready - pagedOut;
  r["messages_unacknowledged_ram"] = unacked;
  r["message_bytes"] = q.readyBytes + q.unackedBytes;
  r["message_bytes_ready"] = q.readyBytes;
  r["message_bytes_unacknowledged"] = q.unackedBytes;
  r["messages_paged_out"] = pagedOut;
  r["message_bytes_paged_out"] = q.pagedOutBytes;
  r["messages_persistent"] = q.persistentCount;
  r["message_bytes_persistent"] = q.persistentBytes;
  r["head_message_timestamp"] = q.headTimestamp;
  r["messages_ram"] = ramCount;
  r["message_bytes_ram"] = ramBytes;
  // consumerCount: a stream's native subscriptions count too (listed among consumers as RabbitMQ
  // lists them: detail-records.ts), and are as ready to take messages as its AMQP consumers.
  r["consumers"] = q.consumerCount;
  r["consumer_capacity"] = q.consumerCount > 0 ? 1 : 0;
  r["consumer_utilisation"] = q.consumerCount > 0 ? 1 : 0;
  r["exclusive_consumer_tag"] = exclusiveTag(consumers);
  r["single_active_consumer_tag"] = q.singleActiveConsumer ? (consumers[0]?.tag ?? null) : null;
  r["memory"] = ramCount * ENTRY_OVERHEAD + ramBytes;
  r["policy"] = applied.policy?.name ?? null;
  r["operator_policy"] = applied.operatorPolicy?.name ?? null;
  r["effective_policy_definition"] = applied.definition;
  r["idle_since"] = new Date(q.lastActivity).toISOString();
  // Coney's own fields: a queue led by another node whose leader did not answer in time shows its
  // last known counts and says so (docs/CLUSTERING.md, "Counts of a queue led elsewhere").
  const staleAt = staleCountsAt(q);
  if (staleAt !== null) {
    r["counts_stale"] = true;
    r["counts_sampled_at"] = staleAt === 0 ? null : new Date(staleAt).toISOString();
  }
  if (q.type === "quorum") {
    // A quorum queue's members are its leader alone: no node keeps a replica of it (RabbitMQ's fields).
    const leader = q.leaderNode ?? rc.node;
    r["leader"] = leader;
    r["members"] = [leader];
    r["online"] = [leader];
    // RabbitMQ 3.10's quorum-only fields. Its quorum queues name the active consumer _ctag.
    // Nothing waits in an at-least-once dead-letter process here (dead-lettering is done when
    // the message dies) and the queue keeps no log files of its own (its messages are in the
    // node's message store): the true figures are 0.
    r["single_active_consumer_ctag"] = r["single_active_consumer_tag"];
    r["messages_dlx"] = 0;
    r["message_bytes_dlx"] = 0;
    r["open_files"] = { [rc.node]: 0 };
  }
  if (q instanceof StreamQueue) addStreamFields(r, q, rc.node, rc.cluster, rc.peers);
  else if (q instanceof RemoteStreamQueue) addRemoteStreamFields(r, q, rc.peers);
  else addStoreCopies(r, q.leaderNode ?? rc.node, rc.peers);
  // RabbitMQ lists message_stats only once the queue has seen traffic; for a list of idle
  // queues that is a third of the bytes.
  if (hadTraffic(q.stats)) r["message_stats"] = rc.rates.withRates(rateKey.queueStats(q), queueMessageStats(q));
  return r;
}

function exclusiveTag(consumers: readonly { readonly exclusive: boolean; readonly tag: string }[]): string | null {
  for (const c of consumers) if (c.exclusive) return c.tag;
  return null;
}

/** Whether a message passed through (RabbitMQ lists a queue's message_stats only then). */
export function hadTraffic(s: DeliveryCounters): boolean {
  return s.publish + s.deliver + s.deliverNoAck + s.get + s.getNoAck + s.ack + s.redeliver + s.getEmpty > 0;
}

export function exchangeRecord(x: Exchange, rc: RecordContext, applied: AppliedPolicy = NO_POLICY): Record<string, unknown> {
  return {
    ...exchangeDefinition(x),
    policy: applied.policy?.name ?? null,
    operator_policy: applied.operatorPolicy?.name ?? null,
    effective_policy_definition: applied.definition,
    user_who_performed_action: "rmq-internal",
    // As for queues: message_stats appears once messages have passed through.
    ...(x.stats.publishIn + x.stats.publishOut > 0 ? { message_stats: rc.rates.withRates(rateKey.exchangeStats(x), exchangeMessageStats(x)) } : {}),
    // The delayed-message plugin (and LavinMQ) show how many messages the exchange holds.
    ...(x.delayed !== null ? { messages_delayed: x.delayed.count } : {}),
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

export function vhostRecord(v: VHost, rc: RecordContext): Record<string, unknown> {
  const m = v.metadata;
  return {
    name: v.name,
    description: m.description,
    tags: m.tags,
    default_queue_type: m.defaultQueueType,
    metadata: { description: m.description, tags: m.tags, default_queue_type: m.defaultQueueType },
    tracing: m.tracing,
    cluster_state: { [rc.node]: "running" },
    ...rc.rates.withRates(rateKey.vhost(v), vhostCounters(v)),
    message_stats: rc.rates.withRates(rateKey.vhostStats(v), vhostMessageStats(v)),
  };
}

export function connectionRecord(c: ConnectionInfo, rc: RecordContext): Record<string, unknown> {
  return {
    name: c.name,
    node: rc.node,
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
    ...(c.tlsSession
      ? {
          ssl_protocol: c.tlsSession.protocol,
          ssl_key_exchange: c.tlsSession.keyExchange,
          ssl_cipher: c.tlsSession.cipher,
          ssl_hash: c.tlsSession.hash,
          peer_cert_issuer: c.tlsSession.peerCertIssuer,
          peer_cert_subject: c.tlsSession.peerCertSubject,
          peer_cert_validity: c.tlsSession.peerCertValidity,
        }
      : {}),
    // RabbitMQ's name for the client's own connection name (client property connection_name).
    ...(typeof c.clientProperties["connection_name"] === "string" ? { user_provided_name: c.clientProperties["connection_name"] } : {}),
    ...rc.rates.withRates(rateKey.connection(c), connectionCounters(c)),
  };
}

export function channelRecord(ch: ChannelInfo, rc: RecordContext): Record<string, unknown> {
  return {
    name: ch.name,
    node: rc.node,
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
    // Quorum-queue commands the channel awaits: a single node applies them as they arrive.
    pending_raft_commands: 0,
    message_stats: rc.rates.withRates(rateKey.channelStats(ch), channelMessageStats(ch)),
  };
}
