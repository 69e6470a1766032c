/**
 * What a stream queue's management record adds (docs/STREAMS.md, "Operators"): RabbitMQ's stream
 * fields that Coney knows truthfully — its node as leader, member and online, `readers` per node,
 * osiris's `committed_offset`, `first_offset` and `segments` — plus Coney's `last_offset`, without
 * the classic queue's memory and paging figures (untrue of a log on disk) and without RabbitMQ's
 * stream `memory` (its writer process's, which Coney has no counterpart of); and, on
 * the one-queue GET, `stream_consumers`: every reader of the stream, AMQP 0-9-1 consumers and
 * native subscriptions alike, with the offset each is sent next and how far behind the committed
 * end it is. Figures are read from the stream's log when the request is served.
 */
import type { Broker, ClusterView, RemoteStreamQueue, StreamFigures, StreamQueue } from "../broker/index.js";
import type { PeerNodes } from "./peer-nodes.js";
import { addPlacement } from "./store-copies-record.js";

/** RabbitMQ's stream fields on a queue record (list and detail). */
export function addStreamFields(r: Record<string, unknown>, q: StreamQueue, node: string, clusterView: ClusterView | null | undefined, peers?: PeerNodes | null): void {
  // The API is served by the node that writes the stream (in a cluster, its leader); every
  // cluster node keeps a copy (docs/STREAMS.md, Replication), and the running ones are online.
  // In a spread cluster the copies are those of its node's store (PeerNodes.storeCopies).
  const cluster = clusterView?.members();
  const copies = cluster ? null : (peers?.storeCopies?.(node) ?? null);
  const log = q.stream;
  const figures = { firstOffset: log.firstOffset, committedOffset: log.committedOffset, nextOffset: log.nextOffset, segmentCount: log.segmentCount };
  const members = cluster ? cluster.map((m) => m.name) : copies ? [...copies.members] : [node];
  setStreamFields(r, node, members, cluster ? cluster.filter((m) => m.running).map((m) => m.name) : copies ? [...copies.online] : [node], q.consumerCount, figures);
  addPlacement(r, copies);
}

/**
 * The same fields for a stream another node leads: under `coney --workers N` that worker is its
 * leader and only member (nothing is replicated between workers), online while its link is up;
 * in a spread cluster its members are the copies of its home's store (PeerNodes.storeCopies). The
 * offsets are the leader's last report (RemoteStreamQueue.figures), absent until it answers.
 */
export function addRemoteStreamFields(r: Record<string, unknown>, q: RemoteStreamQueue, peers?: PeerNodes | null): void {
  const copies = peers?.storeCopies?.(q.node);
  const online = copies ? copies.online.filter((n) => n !== q.node || q.leader.up) : q.leader.up ? [q.node] : [];
  setStreamFields(r, q.node, copies ? [...copies.members] : [q.node], online, q.consumerCount, q.figures);
  addPlacement(r, copies);
}

function setStreamFields(r: Record<string, unknown>, leader: string, members: string[], online: string[], readers: number, log: Omit<StreamFigures, "lastChunkOffset"> | null): void {
  r["leader"] = leader;
  r["members"] = members;
  r["online"] = online;
  // RabbitMQ counts a stream's readers per node: its AMQP consumers and native subscriptions.
  r["readers"] = { [leader]: readers };
  if (log !== null) {
    // osiris's counters are inclusive offsets (-1: none yet); the log's ends are exclusive.
    r["committed_offset"] = log.committedOffset - 1;
    r["first_offset"] = log.firstOffset;
    r["last_offset"] = log.nextOffset - 1;
    r["segments"] = log.segmentCount;
  }
  // A classic queue's memory and paging figures say nothing true of a log read from its segments
  // one chunk at a time (RabbitMQ's stream record has none of them either); a classic queue's
  // `memory` would count the whole log as held in memory. RabbitMQ's stream record does have a
  // `memory` (its writer process's); Coney has no figure of the same meaning (docs/COMPATIBILITY.md).
  for (const f of NOT_OF_STREAMS) delete r[f];
}

const NOT_OF_STREAMS = ["messages_ready_ram", "messages_unacknowledged_ram", "messages_ram", "message_bytes_ram", "messages_paged_out", "message_bytes_paged_out", "messages_persistent", "message_bytes_persistent", "memory"] as const;

/** One reader of a stream as `stream_consumers` lists it. */
export interface StreamConsumerRecord extends Record<string, unknown> {
  readonly protocol: "amqp091" | "stream";
  /** The offset it is sent next. */
  readonly offset: number;
  /** Committed messages beyond its position. */
  readonly offset_lag: number;
}

/** Every reader of the stream with its offset: AMQP 0-9-1 consumers first, then native subscriptions. */
export function streamConsumers(b: Broker, q: StreamQueue): StreamConsumerRecord[] {
  const committed = q.stream.committedOffset;
  const out: StreamConsumerRecord[] = [];
  for (const { consumer, offset } of q.consumerOffsets()) {
    const d = consumer.describe?.();
    out.push({ protocol: "amqp091", consumer_tag: consumer.tag, channel: d?.channel ?? null, user: d?.user ?? null, offset, offset_lag: Math.max(0, committed - offset) });
  }
  for (const c of b.connections.inVhost(q.vhost)) {
    if (c.streamDetails === undefined) continue;
    const info = c.info();
    for (const s of c.streamDetails().consumers) {
      if (s.stream !== q.name) continue;
      out.push({ protocol: "stream", subscription_id: s.id, connection_name: info.name, user: info.user, offset: s.offset, offset_lag: s.offsetLag, credits: s.credits, consumed: s.consumed, active: s.active });
    }
  }
  return out;
}
