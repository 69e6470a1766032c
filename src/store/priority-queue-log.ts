/**
 * A durable priority queue's handle on the message store: one StoredQueueLog per priority level,
 * all under the queue's key, so each level pages to disk on its own. The invariant paging keeps:
 * the highest-priority message anywhere in the queue is in memory when the queue takes its next
 * message. So when a level with paged messages outranks every level in memory, that level is
 * brought back at once (up to the store's limits, whatever the lower levels hold); a level that
 * is also the top one in memory refills when it runs low, as a plain queue does. Memory stays
 * bounded by the limits per level touched, and order within a level stays FIFO.
 *
 * pageIn scans levels (≤ x-max-priority + 1, usually a handful), as PriorityReadyList does; the
 * paged total the queue checks per message is kept, not summed.
 */
import type { Message, QueueEntry, PageSink, QueueLog, ReadyFill } from "../broker/index.js";
import type { RefFifo } from "./ref-fifo.js";
import type { StoredQueueLog } from "./stored-queue-log.js";

export class PriorityQueueLog implements QueueLog {
  /** Paged messages over all levels, kept as levels change (the queue reads it per message). */
  private paged = 0;

  constructor(
    readonly key: Buffer,
    /** Index = priority level, 0..x-max-priority. */
    private readonly levels: readonly StoredQueueLog[],
    private readonly release: (log: PriorityQueueLog) => void,
  ) {}

  /** The level a priority falls in: above the maximum counts as the maximum, none as 0 (RabbitMQ's rule). */
  private levelOf(priority: number | undefined): StoredQueueLog {
    const p = priority ?? 0;
    return this.levels[p >= this.levels.length ? this.levels.length - 1 : p]!;
  }

  private sum(f: (l: StoredQueueLog) => number): number {
    let n = 0;
    for (const l of this.levels) n += f(l);
    return n;
  }

  get levelCount(): number {
    return this.levels.length;
  }

  tails(): RefFifo[] {
    return this.levels.flatMap((l) => l.tails());
  }

  get pagedCount(): number {
    return this.paged;
  }

  get pagedTransientCount(): number {
    return this.sum((l) => l.pagedTransientCount);
  }

  get pagedBytes(): number {
    return this.sum((l) => l.pagedBytes);
  }

  get storedCount(): number {
    return this.sum((l) => l.storedCount);
  }

  get storedBytes(): number {
    return this.sum((l) => l.storedBytes);
  }

  append(e: QueueEntry): void {
    this.levelOf(e.message.properties.priority).append(e);
  }

  delivered(e: QueueEntry): void {
    this.levelOf(e.message.properties.priority).delivered(e);
  }

  forget(e: QueueEntry): void {
    this.levelOf(e.message.properties.priority).forget(e);
  }

  pageOut(message: Message, ready: ReadyFill): boolean {
    if (!this.levelOf(message.properties.priority).pageOut(message, ready)) return false;
    this.paged++;
    return true;
  }

  pageIn(sink: PageSink, ready: ReadyFill): void {
    const top = ready.topLevel();
    for (let p = this.levels.length - 1; p >= 0 && p >= top; p--) {
      const level = this.levels[p]!;
      const before = level.pagedCount;
      if (before === 0) continue;
      if (p > top) level.refill(sink, 0, 0);
      else level.pageInBelow(sink, ready.levelLength(p), ready.bytes);
      this.paged -= before - level.pagedCount;
      return;
    }
  }

  pageInOne(sink: PageSink): void {
    for (let p = this.levels.length - 1; p >= 0; p--) {
      const level = this.levels[p]!;
      if (level.pagedCount === 0) continue;
      level.pageInOne(sink);
      this.paged--;
      return;
    }
  }

  dropPaged(): number {
    this.paged = 0;
    return this.sum((l) => l.dropPaged());
  }

  queueDeleted(): void {
    this.paged = 0;
    for (const l of this.levels) l.queueDeleted();
    this.release(this);
  }

  /** A failed write lost some records (see StoredQueueLog.dropLost). */
  dropLost(isLost: (ref: number) => boolean, into: Set<Message>): void {
    for (const l of this.levels) {
      const before = l.pagedCount;
      l.dropLost(isLost, into);
      this.paged -= before - l.pagedCount;
    }
  }

  /** Recovery: a record goes back to the tail of its priority's level. */
  restorePaged(ref: number, delivered: boolean, bodyBytes: number, priority = 0): void {
    this.levelOf(priority).restorePaged(ref, delivered, bodyBytes);
    this.paged++;
  }
}
