/**
 * What a one-object GET adds to the list record (RabbitMQ's detail views): a queue's consumers
 * and its per-channel breakdowns, an exchange's breakdowns, a consumer record. The per-channel and
 * per-exchange breakdowns (`incoming`, `deliveries`, `outgoing`) are RabbitMQ's "detailed" rates
 * mode; Coney runs in "basic" mode, where RabbitMQ sends them empty too.
 */
import { type Broker, type ChannelInfo, type ConsumerInfo, type Exchange, type AppliedPolicy, type Queue, StreamQueue } from "../broker/index.js";
import { exchangeRecord, queueRecord, type RecordContext } from "./records.js";
import { streamConsumers } from "./stream-queue-record.js";

export interface ConsumerRecord extends Record<string, unknown> {
  readonly queue: { readonly name: string; readonly vhost: string };
}

/** A consumer as /api/consumers and a queue's consumer_details list it. */
export function consumerRecord(c: ConsumerInfo, ch: ChannelInfo): ConsumerRecord {
  return {
    consumer_tag: c.tag,
    queue: { name: c.queue, vhost: c.vhost },
    channel_details: { name: ch.name, number: ch.number, connection_name: ch.connectionName, peer_host: ch.peerHost, peer_port: ch.peerPort, user: ch.user },
    ack_required: c.ackRequired,
    exclusive: c.exclusive,
    prefetch_count: c.prefetchCount,
    priority: c.priority,
    arguments: c.arguments,
    active: c.activity !== "waiting",
    activity_status: c.activity,
  };
}

/** The consumers of one queue, found through the channels of its vhost's connections. */
function queueConsumers(b: Broker, q: Queue): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const conn of b.connections.inVhost(q.vhost)) {
    for (const ch of conn.info().channels) {
      for (const c of ch.consumers) if (c.queue === q.name) out.push(consumerRecord(c, ch));
    }
  }
  return out;
}

export function queueDetailRecord(b: Broker, q: Queue, rc: RecordContext, applied: AppliedPolicy): Record<string, unknown> {
  const r = queueRecord(q, rc, applied);
  r["consumer_details"] = queueConsumers(b, q);
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
