/**
 * The message store, its group commit: appends (StoreSegments, store-segments.ts: segment files,
 * records, marks) only buffer pieces; one flush per event-loop turn writes the buffered pieces
 * with one writev per file and one fdatasync per touched file, then tells every waiter (publisher
 * confirms, tx.commit) whose records it wrote. While a flush is on disk the loop keeps reading
 * publishes, which form the next batch: one fsync serves many publishers. A batch of only
 * deaths/deliveries is written without fsync (losing it in a crash can only cause redelivery,
 * which AMQP allows); close() syncs everything. A flush may write only the oldest records when
 * acks are cancelling the others (commit-cap.ts), and stop at a large record out with a consumer
 * whose ack is likely on its way (delivery-hold.ts). Write failures (a full disk, an I/O error):
 * write-failure.ts. Nothing is done per record on success. A node with several queue groups has
 * one store per group (grouped-journal.ts, `member`). Stream queues' chunk logs join each batch.
 */
import { type QueueJournal, type SyncWaiter } from "../broker/index.js";
import type { CompactionTarget } from "./compaction-target.js";
import { SyncWaiters } from "./sync-waiters.js";
import { failureCode, giveUpUnsynced, settleWrites } from "./write-failure.js";
import { writeCleanShutdownMarker } from "./clean-shutdown.js";
import { type LogStore } from "./stored-queue-log.js";
import { confirmBatch } from "./batch-confirm.js";
import { HeldBodies } from "./held-bodies.js";
import { writtenThrough } from "./commit-cap.js";
import { StoreSegments } from "./store-segments.js";

export class MessageStore extends StoreSegments implements QueueJournal, LogStore, CompactionTarget {
  private readonly waiters = new SyncWaiters();
  private scheduled = false;
  private flushing: Promise<void> | null = null;
  /** The last flush wrote everything it had, records and marks (close() relies on it). */
  private lastFlushWhole = true;
  private closing = false;
  private closed = false;
  /** Flush batches started (a cluster's followers acknowledge them by number). */
  private batchesStarted = 0;
  private newWaiters = false; // a waiter registered since the last flush began (it may need a flush of its own)

  whenSynced(waiter: SyncWaiter, token: number): void {
    this.waiters.add(waiter, token, this.appends);
    this.newWaiters = true;
    this.schedule();
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

  protected schedule(): void {
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
}
