/**
 * The leading node's end of native stream reads (stream-read-frames.ts): for each READ_SUBSCRIBE
 * a reader of the stream's log from the subscription's start, which writes whole committed chunks
 * as READ_CHUNK — the bytes the segment file holds, without the chunk's filter, as a client is sent
 * them, referenced by the link's writer until written (no copy, no per-message work) — while the
 * subscription has credit and the link's socket is not backed up, and resumes at each commit, at
 * more credit and when the socket drains. A chunk whose filter cannot match the subscription's
 * filter.N is skipped, as for a local subscription (stream-subscriptions.ts).
 *
 * The stream deleted, or moved to another node (its group moved), ends the read: READ_ENDED, and
 * the subscribing node tells its client stream_not_available as RabbitMQ does. A deletion's
 * READ_ENDED goes once every node applied it (`followed`): a client told the stream is gone asks
 * Metadata next (rabbitmq-stream-js-client does, before it unsubscribes), on whichever node its
 * locator is, and must hear stream_does_not_exist there, as RabbitMQ tells it after its
 * coordinator deleted the stream everywhere.
 *
 * A single-active-consumer read (`single-active-consumer=true` with a `name`) joins the stream's
 * group here, beside the leader's own subscriptions (Broker.streamGroups): it writes nothing until
 * the group makes it active; each turn goes to the subscribing node as READ_UPDATE, whose client
 * answers ConsumerUpdate, and comes back as READ_UPDATED with the offset it starts from.
 *
 * Invariant: chunks written ≤ credit granted (the subscribing node buffers no more than its client asked for).
 */
import { PARTITION_INDEX_PROPERTY, StreamQueue, type ChunkCursor, type Queue, type SacMember, type SingleActiveGroups, type StreamReadEnd, type StreamReadTerms, type StreamWatcher } from "../broker/index.js";
import type { BodyLease } from "../broker/values/body-lease.js";
import { ChunkMatcher, filterFromProperties } from "../store/stream/chunk-filter.js";
import { chunkForClient, filterOf } from "../store/stream/chunk-format.js";
import { FRAME_HEAD } from "./link-frames.js";
import type { LinkWriter } from "./link-writer.js";
import { CHUNK_FIXED, READ_CANCEL, READ_CHUNK, READ_CREDIT, READ_STARTED, READ_SUBSCRIBE, READ_UPDATED, endedFrame, idFrame, readSubscribe, updateFrame, updatedStart } from "./stream-read-frames.js";

/** A chunk's release as a body lease: the writer holds it until the socket wrote the turn, then releases once. */
function chunkLease(release: () => void): BodyLease {
  return { hold: () => undefined, handOver: () => undefined, pin: () => undefined, release };
}

class ServedRead implements StreamWatcher, SacMember {
  private stopped = false;
  /** False while another member of its single-active-consumer group is active. */
  private active: boolean;
  /** The group's wait for this read's answer to its turn (READ_UPDATED). */
  private answered: (() => void) | null = null;
  private turn = false;

  constructor(
    private readonly reads: ServedStreamReads,
    readonly id: number,
    readonly queue: StreamQueue,
    private cursor: ChunkCursor,
    private readonly matcher: ChunkMatcher | null,
    public credit: number,
    /** Its group's key, when it is a single-active-consumer read. */
    readonly groupKey: string | null,
  ) {
    this.active = groupKey === null;
  }

  /** Its group's turn (SacMember): the subscribing node asks its client. */
  update(active: boolean, answered: () => void): void {
    if (!active) this.active = false;
    this.answered?.();
    this.answered = answered;
    this.turn = active;
    this.reads.writer.write(updateFrame(this.id, active));
  }

  /** The client's answer to its turn (READ_UPDATED): activated from its offset, or where the read stands. */
  updated(f: Buffer): void {
    const answered = this.answered;
    this.answered = null;
    if (this.turn && !this.stopped) {
      const start = updatedStart(f);
      const cursor = start === null ? null : this.queue.stream.chunkCursor(this.queue.startOffset(start));
      if (cursor !== null) this.cursor = cursor;
      this.active = true;
      this.pump();
    }
    answered?.();
  }

  committed(): void {
    this.pump();
  }

  deleted(): void {
    this.end(null);
    this.reads.endAfterFollowed(this.id, "unavailable");
  }

  /** Writes chunks while there is credit, something committed and room in the link's socket. */
  pump(): void {
    const w = this.reads.writer;
    const log = this.queue.stream;
    while (!this.stopped && this.active && this.credit > 0 && !w.backedUp) {
      const chunk = this.cursor.next();
      if (chunk === null) return;
      if (this.matcher !== null && !this.matcher.matches(filterOf(chunk.bytes))) {
        chunk.release?.();
        continue;
      }
      this.credit--;
      const parts = chunkForClient(chunk.bytes);
      let n = 0;
      for (const p of parts) n += p.length;
      const at = w.reserve(FRAME_HEAD + CHUNK_FIXED);
      const b = w.slab;
      b.writeUInt32LE(1 + CHUNK_FIXED + n, at);
      b[at + 4] = READ_CHUNK;
      const p = at + FRAME_HEAD;
      b.writeUInt32LE(this.id, p);
      b.writeDoubleLE(chunk.firstOffset, p + 4);
      b.writeUInt32LE(chunk.count, p + 12);
      // Deliver v2's committed chunk id, as a local subscription computes it.
      b.writeDoubleLE(Math.max(chunk.firstOffset, log.lastChunkOffset < log.committedOffset ? log.lastChunkOffset : chunk.firstOffset), p + 16);
      b.writeDoubleLE(log.committedOffset, p + 24);
      w.writeBody(parts, chunk.release === null ? null : chunkLease(chunk.release));
    }
  }

  /** Stops reading; `why` given: the subscribing node is told (READ_ENDED). */
  end(why: StreamReadEnd | null): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.groupKey !== null) this.reads.groups.leave(this.groupKey, this);
    const answered = this.answered;
    this.answered = null;
    answered?.();
    this.queue.unwatch(this);
    this.queue.nativeConsumerChanged(-1);
    this.reads.forget(this.id);
    if (why !== null) this.reads.writer.write(endedFrame(this.id, why));
  }
}

export class ServedStreamReads {
  private readonly reads = new Map<number, ServedRead>();

  constructor(
    readonly writer: LinkWriter,
    /** The queue behind a link id, as the session knows it. */
    private readonly queueOf: (id: number) => Queue | null,
    /** This node's single-active-consumer groups (its own subscriptions' too). */
    readonly groups: SingleActiveGroups,
    /** Resolves once every other node applied this node's definition changes so far; null when none follows. */
    private readonly followed: () => Promise<void> | null = () => null,
  ) {}

  /** The link closed: nothing more is written. */
  private closed = false;

  /** READ_ENDED for `readId` once the change being made now (a deletion) is applied everywhere. */
  endAfterFollowed(readId: number, why: StreamReadEnd): void {
    // A turn later: the deletion that called this enters the mirror's outbox after its watchers ran.
    setImmediate(() => {
      const write = (): void => {
        if (!this.closed) this.writer.write(endedFrame(readId, why));
      };
      const followed = this.followed();
      if (followed === null) write();
      else followed.then(write, write);
    });
  }

  /** A frame of 70–72 or 79; false for another type. */
  onFrame(f: Buffer): boolean {
    const type = f[4];
    if (type === READ_SUBSCRIBE) this.subscribe(f);
    else if (type === READ_CREDIT) {
      const r = this.reads.get(f.readUInt32LE(FRAME_HEAD));
      if (r !== undefined) {
        r.credit += f.readUInt32LE(FRAME_HEAD + 4);
        r.pump();
      }
    } else if (type === READ_CANCEL) this.reads.get(f.readUInt32LE(FRAME_HEAD))?.end(null);
    else if (type === READ_UPDATED) this.reads.get(f.readUInt32LE(FRAME_HEAD))?.updated(f);
    else return false;
    return true;
  }

  private subscribe(f: Buffer): void {
    const { readId, queueId, terms } = readSubscribe(f);
    const q = this.queueOf(queueId);
    if (q === null || q.isDeleted || !(q instanceof StreamQueue)) return this.writer.write(endedFrame(readId, "notFound"));
    // Led elsewhere now (its group moved), or a log kept in memory (no chunks to hand on): not available here.
    const cursor = terms === null || q.leadsElsewhere ? null : q.stream.chunkCursor(q.startOffset(terms.start));
    if (cursor === null) return this.writer.write(endedFrame(readId, "unavailable"));
    const properties = (terms as StreamReadTerms).properties;
    const filter = filterFromProperties(properties);
    // A single-active-consumer read (the subscribing node checked it has a name), in its group as the leader's own subscriptions are (stream-subscriptions.ts).
    const groupKey = properties.get("single-active-consumer") === "true" ? `${q.vhost}\u0000${q.name}\u0000${properties.get("name") ?? ""}` : null;
    const r = new ServedRead(this, readId, q, cursor, filter === null ? null : new ChunkMatcher(filter), (terms as StreamReadTerms).credit, groupKey);
    this.reads.get(readId)?.end(null);
    this.reads.set(readId, r);
    q.watch(r);
    q.nativeConsumerChanged(1);
    this.writer.write(idFrame(READ_STARTED, readId));
    if (groupKey !== null) this.groups.join(groupKey, r, Number(properties.get(PARTITION_INDEX_PROPERTY) ?? -1));
    else r.pump();
  }

  forget(id: number): void {
    this.reads.delete(id);
  }

  /** The socket drained: every read may write again. */
  drained(): void {
    for (const r of this.reads.values()) r.pump();
  }

  /** The link closed: every read stops (nobody to tell). */
  end(): void {
    this.closed = true;
    for (const r of [...this.reads.values()]) r.end(null);
  }
}
