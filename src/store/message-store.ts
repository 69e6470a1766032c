/**
 * The message store: persistent messages of durable queues in append-only segment files under
 * `<data-dir>/messages`, one record per queue entry (see message-record.ts), deaths and deliveries
 * in each segment's side file (see segment.ts).
 *
 * Group commit: appends only buffer pieces; one flush per event-loop turn writes the buffered
 * pieces with one writev per file and one fdatasync per touched file, then tells every waiter
 * (publisher confirms, tx.commit) whose records it wrote. While a flush is on disk the loop keeps
 * reading publishes, which form the next batch: one fsync serves many publishers. A batch of only
 * deaths/deliveries is written without fsync (losing it in a crash can only cause redelivery,
 * which AMQP allows); close() syncs everything. A flush may write only the oldest records when
 * acks are cancelling the others (commit-cap.ts), and stop at a large record out with a consumer
 * whose ack is likely on its way (delivery-hold.ts). Write failures (a full disk, an I/O error):
 * write-failure.ts. Nothing is done per record on success. A node with several queue groups has
 * one store per group (grouped-journal.ts, `member`).
 *
 * Space: a segment whose records are all dead is deleted (with its side file) once it is no
 * longer the one being appended to; mostly-dead ones are compacted online (online-compaction.ts)
 * and at boot (store-recovery.ts). Memory: each durable queue's log (stored-queue-log.ts) pages
 * messages out beyond `paging` limits. Stream queues' chunk logs (stream/) join each batch.
 */
import { PriorityQueueLog } from "./priority-queue-log.js";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { STREAMS_DIR, StreamFiles } from "./stream/stream-files.js";
import { decodeBasicProperties, encodeBasicProperties } from "../amqp/codec/generated.js";
import { createMessage, type Message, type LostRecordsHandler, type QueueJournal, type SyncWaiter } from "../broker/index.js";
import { isBodyParts } from "../broker/values/message-body.js";
import type { Logger } from "../logging/logger.js";
import { encodeRecordHead, queueKey, RECORD_HEADER, recordTail } from "./message-record.js";
import { recordRef, refOffset, refSegment } from "./record-ref.js";
import { DELIVERED_BIT, SEGMENT_MAGIC, Segment } from "./segment.js";
import { SegmentReader } from "./segment-reader.js";
import { compactSegments } from "./online-compaction.js";
import type { CompactionTarget } from "./compaction-target.js";
import type { RefFifo } from "./ref-fifo.js";
import { SyncWaiters } from "./sync-waiters.js";
import { failureCode, giveUpUnsynced, settleWrites } from "./write-failure.js";
import { writeCleanShutdownMarker } from "./clean-shutdown.js";
import { FaultPoints, type FaultPointName } from "./fault-points.js";
import { StoredQueueLog, type LogStore, type PagingLimits } from "./stored-queue-log.js";
import { DEFAULT_COMMIT_BYTES, DEFAULT_PAGING, DEFAULT_SEGMENT_BYTES, type MessageStoreOptions } from "./message-store-options.js";
import type { StoreReplica } from "./store-replica.js";
import { confirmBatch } from "./batch-confirm.js";
import { HeldBodies } from "./held-bodies.js";
import { CommitCap, writtenThrough } from "./commit-cap.js";
import { SegmentReclaim } from "./segment-reclaim.js";
import { DEFAULT_HOLD_MS, DeliveryHold } from "./delivery-hold.js";
import type { HoldJudge } from "./hold-judge.js";
import type { GroupMember } from "./group-member.js";

export class MessageStore implements QueueJournal, LogStore, CompactionTarget {
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

  private current: Segment | null = null;
  private readonly dirty = new Set<Segment>();
  private readonly reclaim = new SegmentReclaim();
  private readonly waiters = new SyncWaiters();
  private scheduled = false;
  private flushing: Promise<void> | null = null;
  /** The last flush wrote everything it had, records and marks (close() relies on it). */
  private lastFlushWhole = true;
  private closing = false;
  private closed = false;
  /** Flush batches started (a cluster's followers acknowledge them by number). */
  private batchesStarted = 0;
  private readonly cap: CommitCap;
  private readonly hold: DeliveryHold;
  private newWaiters = false; // a waiter registered since the last flush began (it may need a flush of its own)
  private readonly flushWatchers = new Set<StoredQueueLog>();
  /** Lent bodies referenced by records not yet written (held-bodies.ts). */
  private readonly heldBodies = new HeldBodies();
  /** Stream queues' logs, beside `messages/`: an append counts in `appends` and is flushed by the next batch. */
  readonly streams: StreamFiles;
  readonly reader = new SegmentReader();
  private readonly compactTimer: NodeJS.Timeout | null;
  /** Crash-test hook (fault-points.ts); null in normal runs. */
  private readonly faults = FaultPoints.fromEnv();

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

  whenSynced(waiter: SyncWaiter, token: number): void {
    this.waiters.add(waiter, token, this.appends);
    this.newWaiters = true;
    this.schedule();
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

  /** Writes buffered records now without fsync (recovery's compaction copies must be readable at once; the next flush syncs them). */
  writePendingSync(): void {
    for (const seg of this.dirty) seg.writeSync(false, this.replica);
  }

  /**
   * Writes and fsyncs buffered records now (online compaction: its copies must be safe before the
   * originals' refs move). False when the write failed (handled as in writeFailed()).
   */
  syncPendingNow(): boolean {
    try {
      for (const seg of this.dirty) seg.writeSync(true, this.replica);
      return true;
    } catch (err) {
      this.writeFailed(err);
      this.waiters.take().tell(false);
      return false;
    }
  }

  /** A group commit is on disk (online compaction waits: its synchronous writes must not interleave). */
  get isFlushing(): boolean { return this.flushing !== null; }

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

  /** Resolves when everything appended so far is written and synced (used at close and by tests). */
  async sync(): Promise<void> {
    await new Promise<void>((resolve) => this.whenSynced({ synced: () => resolve() }, 0));
  }

  async close(): Promise<void> {
    if (this.compactTimer) clearInterval(this.compactTimer);
    this.closing = true;
    if (this.flushing) await this.flushing;
    this.hold.close(); // after the flush on disk, which may have held records back
    await this.flushNow();
    this.closed = true;
    for (const seg of this.segments.values()) seg.closeFiles();
    this.streams.close();
    // The marker vouches that every mark is on disk: not after a final flush that lost some.
    if (this.lastFlushWhole) writeCleanShutdownMarker(this.dir, this.logger);
    this.reader.closeAll();
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

  private schedule(): void {
    if (this.scheduled || this.flushing || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.closed) void this.flushNow();
    });
  }

  private flushNow(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.flushBatch().finally(() => {
      this.flushing = null;
      // Waiters left behind a held record wait for its ack, or for the hold's timer (delivery-hold.ts).
      if (this.dirty.size > 0 || this.newWaiters || this.streams.hasDirty) this.schedule();
    });
    return this.flushing;
  }

  private async flushBatch(): Promise<void> {
    const segs = [...this.dirty];
    this.dirty.clear();
    this.newWaiters = false;
    const streams = this.streams.seal();
    const batch = ++this.batchesStarted;
    const sync = this.closing || this.waiters.length > 0 || segs.some((s) => s.hasPendingData);
    const replica = this.replica;
    let failure: unknown = sync && this.beforeSync && !this.beforeSync() ? new Error("the definitions could not be saved") : null;
    let marksLost = false;
    this.stats.flushes++;
    if (sync) this.stats.syncs++;
    const appended = this.appends;
    let through = appended; // every record appended up to here is written by this batch
    let waiters: SyncWaiters;
    if (failure !== null) {
      // Nothing was written: side-file marks wait for the next flush (the records are given up below).
      for (const s of segs) if (s.hasPending) this.dirty.add(s);
      waiters = this.waiters.take(through);
    } else {
      const now = performance.now();
      const budget = this.cap.nextBudget(this.closing, now);
      const holdAfter = budget === Infinity ? Infinity : this.hold.holdAfter(now);
      const writes = [...segs.map((s) => s.write(sync, replica, budget, holdAfter, now)), ...streams.map((l) => l.flush(sync))];
      through = writtenThrough(this.hold.withHolding(segs), through); // holding segments count too
      waiters = this.waiters.take(through);
      const leases = this.heldBodies.take(through);
      // Followers get the batch's end before the local fsync starts: both disks work at once.
      replica?.batchEnd(batch, sync);
      ({ failure, marksLost } = await settleWrites(writes, this.logger));
      HeldBodies.release(leases);
      // Records left for the next flush (the cap), or held for their acks (delivery-hold.ts).
      this.hold.placeAfterWrite(segs, this.dirty);
    }
    const ok = failure === null;
    this.lastFlushWhole = ok && !marksLost;
    // Which kind of commit this was matters only to a crash test (fault-points.ts): not worked out otherwise.
    if (ok && sync && through >= this.appends) this.member?.allSynced();
    if (ok && sync && this.faults !== null) this.faultPoint(through >= appended ? "commit-synced" : segs.some((s) => s.heldStamp > 0) ? "commit-held" : "commit-capped");
    if (!ok) {
      this.writeFailed(failure);
      // Records appended while this batch was on disk were given up too: their publishers are nacked now.
      waiters.append(this.waiters);
      // Followers already hold bytes given up here: this node may no longer lead (docs/CLUSTERING.md).
      replica?.writeFailed();
    }
    for (const s of segs) if (s !== this.current) s.closeData();
    // Confirms, and what stream consumers may read, follow the confirm rule (batch-confirm.ts).
    confirmBatch(replica, batch, ok, waiters, streams);
    for (const log of this.flushWatchers) if (!log.flushed(through)) this.flushWatchers.delete(log);
    this.reclaim.flushed(ok, through);
    this.reclaim.run(this);
  }

  /** A write failed (ENOSPC, EIO, or the definitions could not be saved first): see write-failure.ts. */
  private writeFailed(err: unknown): void {
    this.stats.writeFailures++;
    const lostSegments = giveUpUnsynced(this.segments, this.logs.values(), this.lostRecords, this.stats, this.current, this.member?.group ?? 0);
    if (lostSegments.currentLost) this.current = null;
    // Only the cause's code: the rate limit folds identical lines; stacks and lost segments vary.
    this.logger.error("message store write failed; unsynced messages are dropped and their publishers nacked", { code: failureCode(err) });
    this.logger.debug("message store write failure", { err, segments: lostSegments.count });
    if (lostSegments.count === 0) return;
    for (const seg of this.segments.values()) if (seg.live === 0 && seg !== this.current) this.reclaim.add(seg);
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
