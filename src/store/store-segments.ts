/**
 * The message store's segments and the records in them: persistent messages of durable queues in
 * append-only segment files under `<data-dir>/messages`, one record per queue entry (see
 * message-record.ts), deaths and deliveries in each segment's side file (see segment.ts); each
 * durable queue's log (stored-queue-log.ts) by its key, stream queues' chunk logs (stream/)
 * beside them. Appends and marks only buffer pieces in their segment and mark it dirty; writing
 * and syncing the dirty segments is the group commit's (MessageStore, message-store.ts).
 *
 * Space: a segment whose records are all dead is deleted (with its side file) once it is no
 * longer the one being appended to (segment-reclaim.ts); mostly-dead ones are compacted online
 * (online-compaction.ts) and at boot (store-recovery.ts). Memory: each durable queue's log pages
 * messages out beyond `paging` limits.
 *
 * Invariant: `appends` counts every append (records and stream chunks) in order; a record's
 * position is its value right after its append, which is what waiters and holds are told against.
 */
import { PriorityQueueLog } from "./priority-queue-log.js";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { STREAMS_DIR, StreamFiles } from "./stream/stream-files.js";
import { decodeBasicProperties, encodeBasicProperties } from "../amqp/codec/generated.js";
import { createMessage, type Message, type LostRecordsHandler } from "../broker/index.js";
import { isBodyParts } from "../broker/values/message-body.js";
import type { Logger } from "../logging/logger.js";
import { encodeRecordHead, queueKey, RECORD_HEADER, recordTail } from "./message-record.js";
import { recordRef, refOffset, refSegment } from "./record-ref.js";
import { DELIVERED_BIT, SEGMENT_MAGIC, Segment } from "./segment.js";
import { SegmentReader } from "./segment-reader.js";
import { compactSegments } from "./online-compaction.js";
import type { RefFifo } from "./ref-fifo.js";
import { FaultPoints, type FaultPointName } from "./fault-points.js";
import { StoredQueueLog, type PagingLimits } from "./stored-queue-log.js";
import { DEFAULT_COMMIT_BYTES, DEFAULT_PAGING, DEFAULT_SEGMENT_BYTES, type MessageStoreOptions } from "./message-store-options.js";
import type { StoreReplica } from "./store-replica.js";
import { HeldBodies } from "./held-bodies.js";
import { CommitCap } from "./commit-cap.js";
import { SegmentReclaim } from "./segment-reclaim.js";
import { DEFAULT_HOLD_MS, DeliveryHold } from "./delivery-hold.js";
import type { HoldJudge } from "./hold-judge.js";
import type { GroupMember } from "./group-member.js";

export abstract class StoreSegments {
  readonly dir: string;
  readonly segmentBytes: number;
  readonly logger: Logger;
  readonly paging: PagingLimits;
  /** Each durable queue's log by its key "vhost\0name" (recovery finds queues here). */
  readonly logs = new Map<string, StoredQueueLog | PriorityQueueLog>();
  appends = 0;
  /** A lone store is one queue group (QueueJournal.groups); several: grouped-journal.ts. */
  readonly groups = 1;
  /** Runs before each fsync batch: the definitions confirmed messages need go first (false fails the batch). */
  beforeSync: (() => boolean) | null = null;
  /** Told which records a failed write lost (the broker drops their entries everywhere). */
  lostRecords: LostRecordsHandler | null = null;
  /** A cluster leader's replication (store-replica.ts); null on a single node, so group commit costs what it did. */
  replica: StoreReplica | null = null;
  /** Its queue group's journal when the node has several (grouped-journal.ts); null for the lone store. */
  member: GroupMember | null = null;
  readonly segments = new Map<number, Segment>();
  /** Next store-wide record sequence (see message-record.ts). */
  nextStoreSeq = 1;
  nextSegmentId = 1;
  readonly stats = { flushes: 0, syncs: 0, records: 0, segmentsDeleted: 0, segmentsCompacted: 0, writeFailures: 0, recordsLost: 0 };

  protected current: Segment | null = null;
  protected readonly dirty = new Set<Segment>();
  protected readonly reclaim = new SegmentReclaim();
  protected readonly cap: CommitCap;
  protected readonly hold: DeliveryHold;
  protected readonly flushWatchers = new Set<StoredQueueLog>();
  /** Lent bodies referenced by records not yet written (held-bodies.ts). */
  protected readonly heldBodies = new HeldBodies();
  /** Stream queues' logs, beside `messages/`: an append counts in `appends` and is flushed by the next batch. */
  readonly streams: StreamFiles;
  readonly reader = new SegmentReader();
  protected readonly compactTimer: NodeJS.Timeout | null;
  /** Crash-test hook (fault-points.ts); null in normal runs. */
  protected readonly faults = FaultPoints.fromEnv();

  // The group commit's (MessageStore): a dirty segment is written by the next batch; online compaction waits for one on disk.
  protected abstract schedule(): void;
  abstract get isFlushing(): boolean;
  abstract syncPendingNow(): boolean;

  constructor(options: MessageStoreOptions) {
    this.dir = options.dir;
    this.streams = new StreamFiles(join(dirname(this.dir), STREAMS_DIR), () => void (this.appends++, this.member?.appended(), this.schedule()), () => this.replica);
    this.logger = options.logger;
    this.segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    this.paging = options.paging ?? DEFAULT_PAGING;
    this.cap = new CommitCap(options.commitBytes ?? DEFAULT_COMMIT_BYTES);
    this.hold = new DeliveryHold(options.holdMs ?? DEFAULT_HOLD_MS, (seg) => this.touch(seg));
    const every = options.compactEveryMs ?? 30_000;
    this.compactTimer = every > 0 ? setInterval(() => this.compact(), every).unref() : null;
    mkdirSync(this.dir, { recursive: true });
  }

  forQueue(vhost: string, name: string, maxPriority = 0): StoredQueueLog | PriorityQueueLog {
    const key = queueKey(vhost, name);
    const keyBytes = Buffer.from(key, "utf8");
    const log =
      maxPriority > 0
        ? new PriorityQueueLog(keyBytes, Array.from({ length: maxPriority + 1 }, () => new StoredQueueLog(this, keyBytes)), (l) => this.release(l))
        : new StoredQueueLog(this, keyBytes);
    this.logs.set(key, log);
    return log;
  }

  forStream = (vhost: string, name: string, segmentBytes: number, filterBytes?: number): ReturnType<StreamFiles["forStream"]> => this.streams.forStream(vhost, name, segmentBytes, filterBytes);

  /** The append position of the last record appended (a log waits for a flush to write through it). */
  get appendPosition(): number { return this.appends; }

  watchFlush(log: StoredQueueLog): void {
    this.flushWatchers.add(log);
  }

  /** The log's queue is gone (a priority queue's levels are released one by one, then the queue's log). */
  release(log: StoredQueueLog | PriorityQueueLog): void {
    const key = log.key.toString("utf8");
    if (this.logs.get(key) === log) this.logs.delete(key);
    if (log instanceof StoredQueueLog) this.flushWatchers.delete(log);
  }

  *tails(): Iterable<RefFifo> {
    for (const log of this.logs.values()) yield* log.tails();
  }

  /** Appends one message's record for a queue (`judge`: its holds pay, hold-judge.ts) and returns its ref; bytes are written as they are. */
  appendMessage(key: Buffer, m: Message, judge: HoldJudge | null = null): number {
    const props = (m.rawProperties ??= encodeBasicProperties(m.properties));
    const head = encodeRecordHead(key, m, props, this.nextStoreSeq++);
    const seg = this.segmentFor(RECORD_HEADER + head.readUInt32LE(0));
    const ref = recordRef(seg.id, seg.size);
    const position = ++this.appends;
    seg.beginRecord(true, position, DeliveryHold.stampFor(m.bodySize), judge);
    seg.append(head);
    seg.append(props);
    if (m.original !== null) for (const part of recordTail(m)) seg.append(part);
    else if (!isBodyParts(m.body)) seg.append(m.body);
    else for (const part of m.body) seg.append(part);
    seg.endRecord();
    if (m.lease !== null) this.heldBodies.hold(m.lease, position);
    seg.live++;
    seg.records++;
    this.stats.records++;
    this.member?.appended();
    this.touch(seg);
    return ref;
  }

  /** Reads a paged-out message back; an unreadable record is logged and counted dead. */
  readMessage(ref: number): Message | null {
    const seg = this.segments.get(refSegment(ref));
    const r = seg ? this.reader.read(seg.id, seg.path, refOffset(ref)) : null;
    if (r === null) {
      this.logger.error("message store: a paged-out message could not be read back; it is dropped", { segment: refSegment(ref), offset: refOffset(ref) });
      this.markDead(ref);
      return null;
    }
    return createMessage(r.exchange, r.routingKey, decodeBasicProperties(r.properties), r.properties, r.body, r.publishedAt, null, r.original);
  }

  /** Copies an already-encoded record (compaction); returns its new ref. */
  appendRaw(record: Buffer, delivered: boolean): number {
    const seg = this.segmentFor(record.length);
    const ref = recordRef(seg.id, seg.size);
    seg.beginRecord(false, ++this.appends);
    seg.append(record);
    seg.endRecord();
    seg.live++;
    seg.records++;
    if (delivered) seg.mark(refOffset(ref) | DELIVERED_BIT);
    this.touch(seg);
    return ref;
  }

  markDelivered(ref: number): void {
    const seg = this.segments.get(refSegment(ref));
    if (!seg) return;
    seg.mark(refOffset(ref) | DELIVERED_BIT);
    // A consumer takes records before their write: its acks will likely cancel the next ones (commit-cap.ts).
    if (seg.deliverPending(refOffset(ref))) this.cap.consumedBeforeWrite();
    this.touch(seg);
  }

  markDead(ref: number): void {
    const seg = this.segments.get(refSegment(ref));
    if (!seg || seg.live === 0) return; // gone, or retired by compaction
    seg.mark(refOffset(ref));
    if (seg.cancelPending(refOffset(ref))) this.cap.consumedBeforeWrite();
    seg.live--;
    if (seg.live === 0 && seg !== this.current) this.reclaim.add(seg);
    this.touch(seg);
  }

  /** Online compaction (see online-compaction.ts); returns how many segments were compacted. */
  compact(below = 0.5, maxSegments = 4): number {
    return compactSegments(this, below, maxSegments);
  }

  /** A named step of the store's life (fault-points.ts): a crash test may die here. */
  faultPoint(name: FaultPointName): void { if (this.faults !== null) this.faults.reached(name); }

  get currentSegment(): Segment | null { return this.current; }

  /** Registers a recovered segment (read-only; only its side file is appended to). */
  adoptSegment(seg: Segment): void {
    this.segments.set(seg.id, seg);
    if (seg.id >= this.nextSegmentId) this.nextSegmentId = seg.id + 1;
  }

  /**
   * A segment whose live records were copied elsewhere: deleted after a flush has written
   * through the copies, so they are synced first.
   */
  retire(seg: Segment): void {
    seg.live = 0;
    this.reclaim.retire(seg, this.appends);
    this.schedule();
  }

  private segmentFor(bytes: number): Segment {
    let seg = this.current;
    if (seg === null || (seg.size + bytes > this.segmentBytes && seg.size > SEGMENT_MAGIC.length)) {
      if (seg !== null && seg.live === 0) this.reclaim.add(seg);
      seg = new Segment(this.dir, this.nextSegmentId++, 0, true);
      this.segments.set(seg.id, seg);
      this.current = seg;
      this.touch(seg);
      this.faultPoint("segment-rolled");
    }
    return seg;
  }

  private touch(seg: Segment): void {
    this.dirty.add(seg);
    this.schedule();
  }

  /** Deletes a segment whose records are all dead (segment-reclaim.ts decides when). */
  forgetSegment(seg: Segment): void {
    this.dirty.delete(seg);
    this.segments.delete(seg.id);
    this.reader.forget(seg.id);
    seg.destroy();
    this.replica?.segmentDeleted(seg.id);
    this.stats.segmentsDeleted++;
    this.logger.debug("message store segment deleted", { segment: seg.id });
  }
}
