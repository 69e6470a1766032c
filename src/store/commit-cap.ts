/**
 * The cap on a group commit. One flush writes at most about `bytes` of live records of each
 * segment (the one being appended to, and one just rolled over with records still waiting), the
 * oldest first; the newer ones wait for the next flush, which
 * starts as soon as this one ends. When the disk is what limits a persistent stream, records so
 * queue up in memory, and a consumer's ack cancels a waiting record (pending-records.ts): the
 * disk's bandwidth goes to messages that are still wanted — as RabbitMQ's message store skips a
 * write whose message was removed while the write queued.
 *
 * The cap applies only while a consumer keeps up: in the last CAP_LINGER_MS, records were acked
 * (cancelled) or delivered while they waited for their write. A stream no one consumes is written in whole batches, as many bytes per fsync as have
 * arrived, as before the cap. A closing store writes everything, and no write leaves more than
 * DEFER_MAX bytes waiting (pending-records.ts): the bodies wait in memory.
 *
 * Positions: every append has a number (MessageStore.appends); a confirm waits for the number
 * current when it registered, and a flush tells those at or below the number it wrote through
 * (writtenThrough), so no confirm goes out before its records are on disk.
 */
import type { Segment } from "./segment.js";

/**
 * How long the cap stays on after the last flush that followed a record acked or delivered before
 * its write. Acks often come in runs (a consumer acking every 100 deliveries with multiple=true), and between two runs the
 * records must still be capped (and held, delivery-hold.ts) for the next run to cancel them.
 */
export const CAP_LINGER_MS = 100;

export class CommitCap {
  private early = 0;
  /** When a flush last began after such records (performance.now()); -Infinity: never. */
  private lastEarlyAt = -Infinity;

  constructor(private readonly bytes: number) {}

  /** A record was acked (it died) or delivered while it waited for its write. */
  consumedBeforeWrite(): void {
    this.early++;
  }

  /** The budget of the flush beginning at `now`, for each segment it writes. */
  nextBudget(closing: boolean, now: number): number {
    if (this.early > 0) this.lastEarlyAt = now;
    this.early = 0;
    return !closing && now - this.lastEarlyAt < CAP_LINGER_MS ? this.bytes : Infinity;
  }
}

/**
 * The append position a flush writes through, once its writes have taken their records: the one
 * before the oldest record any of them left pending (records are appended in segment order, and
 * a segment's pending records in append order).
 */
export function writtenThrough(segs: readonly Segment[], appends: number): number {
  let through = appends;
  for (const s of segs) through = Math.min(through, s.firstPendingAppend - 1);
  return through;
}

/**
 * How many of `positions` (ascending append positions) a flush that writes through `upTo`
 * covers: they form a prefix. All of them without a scan when the last one is covered.
 */
export function coveredCount(positions: readonly number[], upTo: number): number {
  const n = positions.length;
  if (n === 0 || positions[n - 1]! <= upTo) return n;
  let k = 0;
  while (positions[k]! <= upTo) k++;
  return k;
}
