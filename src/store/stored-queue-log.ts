/**
 * A durable queue's handle on the message store: its records, and its paged-out tail. The tail
 * is a RefFifo of record refs (8 bytes per message) behind the queue's in-memory ready list.
 * A record still waiting for the group commit cannot be read from its file yet, so its Message
 * is also held in `inFlight` (a suffix of the tail, in the same order) until a flush has written it.
 * An inFlight record holds the message's lent body in its queue entry's stead (pageOut); records
 * dropped otherwise (a purge, a lost write) release nothing, which only leaves the memory to the
 * garbage collector (values/body-lease.ts: a release missed is safe, one too many is not).
 */
import type { Message, QueueEntry, PageSink, QueueLog, ReadyFill } from "../broker/index.js";
import { RefFifo } from "./ref-fifo.js";
import { HoldJudge } from "./hold-judge.js";

/** A queue keeps at most this much in memory before new messages stay on disk only. */
export interface PagingLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

/** What the log needs of the store (MessageStore). */
export interface LogStore {
  readonly paging: PagingLimits;
  /** The store's append position of the record appended last (a flush writes through a position). */
  readonly appendPosition: number;
  appendMessage(key: Buffer, m: Message, judge: HoldJudge | null): number;
  markDelivered(ref: number): void;
  markDead(ref: number): void;
  readMessage(ref: number): Message | null;
  watchFlush(log: StoredQueueLog): void;
  /** The log's queue is gone. */
  release(log: StoredQueueLog): void;
}

interface InFlight {
  readonly ref: number;
  /** The record's append position. */
  readonly position: number;
  readonly message: Message;
}

export class StoredQueueLog implements QueueLog {
  readonly tail = new RefFifo();
  pagedBytes = 0;
  /** Messages ever paged out (for stats and tests). */
  pagedOutTotal = 0;
  /** Persistent messages of the queue the store holds, in memory or paged out (messages_persistent). */
  storedCount = 0;
  storedBytes = 0;
  /** The persistent part of the paged-out tail (the rest are transient messages keeping their place). */
  private pagedPersistent = 0;
  private pagedPersistentBytes = 0;
  private inFlight: Array<InFlight | undefined> = [];
  /** Whether holding this queue's delivered records back for their acks pays (hold-judge.ts). */
  readonly holdJudge = new HoldJudge();
  private inFlightHead = 0;

  constructor(private readonly store: LogStore, readonly key: Buffer) {}

  get pagedCount(): number {
    return this.tail.length;
  }

  get pagedTransientCount(): number {
    return this.tail.length - this.pagedPersistent;
  }

  /** The paged-out refs (online compaction moves them). */
  tails(): RefFifo[] {
    return [this.tail];
  }

  append(e: QueueEntry): void {
    e.storeRef = this.store.appendMessage(this.key, e.message, this.holdJudge);
    this.storedCount++;
    this.storedBytes += e.message.bodySize;
  }

  delivered(e: QueueEntry): void {
    if (e.storeRef) this.store.markDelivered(e.storeRef);
  }

  forget(e: QueueEntry): void {
    const ref = e.storeRef;
    e.storeRef = 0;
    if (!ref) return;
    this.store.markDead(ref);
    this.storedCount--;
    this.storedBytes -= e.message.bodySize;
  }

  pageOut(message: Message, ready: ReadyFill): boolean {
    const limits = this.store.paging;
    if (this.tail.length === 0 && (!message.persistent || (ready.length < limits.maxEntries && ready.bytes < limits.maxBytes))) return false;
    // Its lent body (values/body-lease.ts): the hold the publish hands to this queue's entry is
    // kept by the inFlight record instead, and passes to the entry if the record is paged back in
    // from there (refill), or is released once a flush has written it (flushed: from then on it is
    // read back from the file, as a message of its own).
    // Transient messages follow the tail to disk too, or they would overtake it.
    const ref = this.store.appendMessage(this.key, message, this.holdJudge);
    this.tail.push(ref);
    this.pagedOutTotal++;
    this.pagedBytes += message.bodySize;
    if (message.persistent) this.countPaged(1, message.bodySize);
    this.inFlight.push({ ref, position: this.store.appendPosition, message });
    this.store.watchFlush(this);
    return true;
  }

  /** Refills from low water (half the limits) up to the limits, so reads come in runs. */
  pageIn(sink: PageSink, ready: ReadyFill): void {
    this.pageInBelow(sink, ready.length, ready.bytes);
  }

  pageInOne(sink: PageSink): void {
    // refill() always brings one; with the limits counted as reached it brings no more.
    if (this.tail.length > 0) this.refill(sink, Infinity, Infinity);
  }

  /** pageIn for `length` messages of `bytes` in memory (a priority level passes its own count). */
  pageInBelow(sink: PageSink, length: number, bytes: number): void {
    const limits = this.store.paging;
    if (length >= limits.maxEntries / 2 || bytes >= limits.maxBytes / 2) return;
    this.refill(sink, length, bytes);
  }

  /**
   * Brings messages back, oldest first, until `n` messages of `bytes` would pass the limits, and
   * at least one: a caller that asks must get the message it needs next.
   */
  refill(sink: PageSink, n: number, bytes: number): void {
    const limits = this.store.paging;
    let first = true;
    while (this.tail.length > 0 && (first || (n < limits.maxEntries && bytes < limits.maxBytes))) {
      first = false;
      const v = this.tail.shift();
      const ref = Math.abs(v);
      const f = this.inFlight[this.inFlightHead];
      let message: Message | null;
      if (f !== undefined && f.ref === ref) {
        message = f.message;
        this.inFlight[this.inFlightHead++] = undefined;
      } else {
        message = this.store.readMessage(ref);
      }
      // Unreadable: logged and marked dead by the store. Whether it was persistent is not known
      // here, so messages_persistent may count it until the queue is purged or deleted.
      if (message === null) continue;
      this.pagedBytes = Math.max(0, this.pagedBytes - message.bodySize);
      // A persistent message stays stored (and counted) once back in memory, now as an entry.
      if (message.persistent) this.pagedPersistentOut(message.bodySize);
      sink.restore(message, v < 0, message.persistent ? ref : 0);
      // A transient message's record only kept the order: it is dead once back in memory.
      if (!message.persistent) this.store.markDead(ref);
      n++;
      bytes += message.bodySize;
    }
    this.compactInFlight();
  }

  /** Priority levels whose messages this log keeps apart (PriorityQueueLog has more). */
  readonly levelCount = 1;

  /** Restores a recovered record into the tail (recovery only; one level, so the priority does not matter). */
  restorePaged(ref: number, delivered: boolean, bodyBytes: number, _priority = 0): void {
    this.tail.push(delivered ? -ref : ref);
    this.pagedBytes += bodyBytes;
    this.countPaged(1, bodyBytes);
  }

  private countPaged(n: number, bytes: number): void {
    this.storedCount += n;
    this.storedBytes += bytes;
    this.pagedPersistent += n;
    this.pagedPersistentBytes += bytes;
  }

  private pagedPersistentOut(bytes: number): void {
    this.pagedPersistent--;
    this.pagedPersistentBytes -= bytes;
  }

  dropPaged(): number {
    const refs = this.tail.drain();
    for (const v of refs) this.store.markDead(Math.abs(v));
    this.inFlight = [];
    this.inFlightHead = 0;
    this.pagedBytes = 0;
    this.countPaged(-this.pagedPersistent, -this.pagedPersistentBytes);
    return refs.length;
  }

  /**
   * A failed write lost some records (MessageStore.writeFailed): their refs leave the tail, and
   * their messages (still held in `inFlight`: a lost record was never flushed) go into `into`.
   */
  dropLost(isLost: (ref: number) => boolean, into: Set<Message>): void {
    if (this.inFlightHead === this.inFlight.length) return;
    const refs = this.tail.drain();
    const kept: Array<InFlight | undefined> = [];
    const byRef = new Map<number, InFlight>();
    for (let i = this.inFlightHead; i < this.inFlight.length; i++) byRef.set(this.inFlight[i]!.ref, this.inFlight[i]!);
    for (const v of refs) {
      const ref = Math.abs(v);
      const f = byRef.get(ref);
      if (f === undefined || !isLost(ref)) {
        this.tail.push(v);
        if (f !== undefined) kept.push(f);
        continue;
      }
      into.add(f.message);
      this.pagedBytes -= f.message.bodySize;
      if (f.message.persistent) this.countPaged(-1, -f.message.bodySize);
      this.store.markDead(ref);
    }
    this.inFlight = kept;
    this.inFlightHead = 0;
  }

  queueDeleted(): void {
    this.dropPaged();
    this.store.release(this);
  }

  /** Records appended up to append position `through` are in their files: they can be read back from there. */
  flushed(through: number): boolean {
    while (this.inFlightHead < this.inFlight.length) {
      const f = this.inFlight[this.inFlightHead]!;
      if (f.position > through) break;
      this.inFlight[this.inFlightHead++] = undefined;
      f.message.lease?.release(); // the record's hold (pageOut): read back from the file from now on
    }
    this.compactInFlight();
    return this.inFlightHead < this.inFlight.length;
  }

  private compactInFlight(): void {
    if (this.inFlightHead === this.inFlight.length) {
      this.inFlight = [];
      this.inFlightHead = 0;
    } else if (this.inFlightHead > 1024 && this.inFlightHead * 2 > this.inFlight.length) {
      this.inFlight = this.inFlight.slice(this.inFlightHead);
      this.inFlightHead = 0;
    }
  }
}
