/**
 * What a one-object GET adds to the list record (RabbitMQ's detail views): a queue's consumers
 * and its per-channel breakdowns, an exchange's breakdowns, a consumer record. The per-channel and
 * per-exchange breakdowns (`incoming`, `deliveries`, `outgoing`) are RabbitMQ's "detailed" rates
 * mode; Coney runs in "basic" mode, where RabbitMQ sends them empty too.
 */
import { type Broker, type ChannelInfo, type ClientConnection, type ConsumerInfo, type StreamConsumerInfo, type Exchange, type AppliedPolicy, type Queue, StreamQueue } from "../broker/index.js";
import { exchangeRecord, queueRecord, type RecordContext } from "./records.js";
import { streamConsumers } from "./stream-queue-record.js";

export interface ConsumerRecord extends Record<string, unknown> {
  readonly queue: { readonly name: string; readonly vhost: string };
}

/** A consumer as /api/consumers and a queue's consumer_details list it; `node` holds its channel (RabbitMQ's channel_details name it). */
export function consumerRecord(c: ConsumerInfo, ch: ChannelInfo, node: string): ConsumerRecord {
  return {
    consumer_tag: c.tag,
    queue: { name: c.queue, vhost: c.vhost },
    channel_details: { name: ch.name, number: ch.number, node, connection_name: ch.connectionName, peer_host: ch.peerHost, peer_port: ch.peerPort, user: ch.user },
    ack_required: c.ackRequired,
    exclusive: c.exclusive,
    prefetch_count: c.prefetchCount,
    priority: c.priority,
    arguments: c.arguments,
    active: c.activity !== "waiting",
    activity_status: c.activity,
  };
}

/**
 * A native stream connection's subscriptions as RabbitMQ 3.10 lists them among consumers (recorded
 * against it with a raw stream client on 5552): a stream connection has no channels, so the
 * consumer stands on channel 0 of its connection, named "" (rabbit_mgmt_data falls back from the
 * channel to the connection); the tag is `stream.subid-<subscription id>`; no acks, no prefetch,
 * never exclusive; the subscription's properties are its arguments. A single-active-consumer
 * member that does not have the turn is "waiting", as /api/stream/consumers says.
 */
export function streamSubscriptionRecords(conn: ClientConnection, node: string, stream: string | null = null): ConsumerRecord[] {
  if (conn.streamDetails === undefined) return [];
  const subs = conn.streamDetails().consumers.filter((s) => stream === null || s.stream === stream);
  if (subs.length === 0) return [];
  const info = conn.info();
  return subs.map((s) => ({
    consumer_tag: `stream.subid-${s.id}`,
    queue: { name: s.stream, vhost: info.vhost },
    channel_details: { name: "", number: 0, node, connection_name: info.name, peer_host: info.peerHost, peer_port: info.peerPort, user: info.user },
    ack_required: false,
    exclusive: false,
    prefetch_count: 0,
    arguments: s.properties,
    active: s.active,
    activity_status: streamActivityStatus(s),
  }));
}

/** RabbitMQ's consumer_activity_status of a subscription: up, or single_active / waiting in a single-active-consumer group. */
export function streamActivityStatus(s: StreamConsumerInfo): string {
  return s.properties["single-active-consumer"] === "true" ? (s.active ? "single_active" : "waiting") : "up";
}

/** Every consumer on the given connections: their channels' and, for native stream connections, their subscriptions. */
export function connectionConsumers(conns: Iterable<ClientConnection>, node: string): ConsumerRecord[] {
  const out: ConsumerRecord[] = [];
  for (const conn of conns) {
    if (conn.streamDetails !== undefined) out.push(...streamSubscriptionRecords(conn, node));
    else for (const ch of conn.info().channels) for (const c of ch.consumers) out.push(consumerRecord(c, ch, node));
  }
  return out;
}

/** The consumers of one queue, found through its vhost's connections (channels and stream subscriptions). */
function queueConsumers(b: Broker, q: Queue, node: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const conn of b.connections.inVhost(q.vhost)) {
    if (conn.streamDetails !== undefined) {
      // A stream led here or elsewhere: this node's subscriptions to it.
      if (q.type === "stream") out.push(...streamSubscriptionRecords(conn, node, q.name));
      continue;
    }
    for (const ch of conn.info().channels) {
      for (const c of ch.consumers) if (c.queue === q.name) out.push(consumerRecord(c, ch, node));
    }
  }
  return out;
}

export function queueDetailRecord(b: Broker, q: Queue, rc: RecordContext, applied: AppliedPolicy): Record<string, unknown> {
  const r = queueRecord(q, rc, applied);
  r["consumer_details"] = queueConsumers(b, q, rc.node);
  if (q.exclusiveOwner !== null) {
    // The connection that owns an exclusive queue (RabbitMQ's owner_pid_details, a link in its UI).
    const owner = b.connections.list().find((c) => c === q.exclusiveOwner);
    if (owner) {
      const info = owner.info();
      r["owner_pid_details"] = { name: info.name, peer_host: info.peerHost, peer_port: info.peerPort };
    }
  }
  if (q instanceof StreamQueue) r["stream_consumers"] = streamConsumers(b, q);
  r["incoming"] = [];
  r["deliveries"] = [];
  if (q.type === "classic") {
    // The classic queue's storage as RabbitMQ summarises it: its mode (argument or policy) and the
    // messages it holds ready. RabbitMQ's q1–q4/delta split has no counterpart here.
    const mode = applied.definition["queue-mode"] ?? q.arguments["x-queue-mode"] ?? "default";
    r["backing_queue_status"] = { mode, len: q.messageCount };
  }
  return r;
}

export function exchangeDetailRecord(x: Exchange, rc: RecordContext, applied: AppliedPolicy): Record<string, unknown> {
  return { ...exchangeRecord(x, rc, applied), incoming: [], outgoing: [] };
}
