/**
 * Holding a large record back while its message is out with a consumer (issue 30).
 *
 * Why: under a persistent stream that a consumer keeps up with, most records are acked shortly
 * after their delivery, often in runs (a consumer acking every 100 deliveries with
 * multiple=true). The commit cap (commit-cap.ts) writes the oldest live records first, and those
 * are exactly the delivered ones whose ack is on its way: the disk's bandwidth went to bodies
 * about to die. RabbitMQ's message store likewise does not write a message removed while its
 * write waits, and confirms it once it is removed.
 *
 * The rule: while the cap is on (a consumer takes records before their write), a write stops at the first
 * live record that is at least HOLD_MIN_BYTES, out with a consumer, and younger than `holdMs`
 * (pending-records.ts, cut). The records behind it wait too — the file is written in order, so
 * recovery, the write-failure rules and a cluster's followers see what they always did. If the
 * ack comes, the record dies unwritten and the next write steps past it; if not, it is written
 * once it is `holdMs` old (a timer wakes the store if nothing else does).
 *
 * What it costs: a confirm waits for the records before it (append positions, commit-cap.ts), so
 * while a record is held every later confirm in the store waits with it, for at most `holdMs`
 * beyond the group commit it would have waited for anyway. No confirm goes out for a record that
 * is neither on disk nor dead. Nothing is held when no consumer keeps up (the cap is off), and
 * records under HOLD_MIN_BYTES are never held.
 *
 * Holds must pay: a consumer that keeps large deliveries unacked for long (a slow worker with a
 * large prefetch) would otherwise keep a hold in place all the time and slow every confirming
 * publisher of the node (measured: a 16 B publisher from 54,000 to 5,000 msg/s beside 1 MB
 * messages acked after a second). So each queue's log tallies how its holds end — its ack came
 * (paid) or it was written after all (expired) — and stops holding its records for a while when
 * most expire (hold-judge.ts); the other queues' holds go on.
 */
import { HOLD_MIN_BYTES } from "./pending-records.js";
import type { Segment } from "./segment.js";

/**
 * 50 ms: a consumer acking every 100 deliveries of 256 KB acks a run every ~30 ms, so with 25 ms
 * about 40 % of holds ended unpaid; 50 ms wrote 2–3 KiB per 256 KB message where 25 ms wrote 9–23
 * (docs/PERFORMANCE.md, "Tenth pass"). Holds that do not pay stop (below), so a longer hold
 * costs others little.
 */
export const DEFAULT_HOLD_MS = 50;

export class DeliveryHold {
  private timer: NodeJS.Timeout | null = null;
  /** When the armed timer fires (performance.now()); Infinity when none is armed. */
  private wakeAt = Infinity;

  /** Segments whose last write stopped at a held record: no flush is due for them until an event or the timer. */
  private readonly holding = new Set<Segment>();

  constructor(
    /** How long a delivered record may be held back; 0 = never. */
    readonly holdMs: number,
    /** Marks a segment for the next flush (the store's touch()). */
    private readonly touch: (seg: Segment) => void,
  ) {}

  /** The segments whose pending records a flush of `segs` must count: theirs, and those holding records back. */
  withHolding(segs: Segment[]): Segment[] {
    return this.holding.size > 0 ? [...segs, ...this.holding] : segs;
  }

  /**
   * A flush of `segs` has taken its records: each one with records left is due again at
   * once (`dirty`: the cap left them) or, when it stopped at a held record, once an ack, a
   * delivery or a publish touches it, or the hold ends.
   */
  placeAfterWrite(segs: readonly Segment[], dirty: Set<Segment>): void {
    for (const s of segs) {
      this.holding.delete(s);
      if (!s.hasPending) continue;
      if (s.heldStamp > 0) {
        this.holding.add(s);
        this.wakeFor(s.heldStamp);
      } else {
        dirty.add(s);
      }
    }
  }

  /** The stamp of a record with a body of `bodySize` bytes: when it was appended if it may be held back, else 0. */
  static stampFor(bodySize: number): number {
    return bodySize >= HOLD_MIN_BYTES ? performance.now() : 0;
  }

  /** Records appended after this instant may be held by a write beginning at `now` (Infinity: none). */
  holdAfter(now: number): number {
    return this.holdMs > 0 ? now - this.holdMs : Infinity;
  }

  /**
   * A write stopped at a record appended at `stamp`: the store must flush again once it is
   * `holdMs` old, even if no publish, ack or delivery comes meanwhile.
   */
  private wakeFor(stamp: number): void {
    const at = stamp + this.holdMs;
    if (at >= this.wakeAt) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.wakeAt = at;
    // One millisecond late rather than early: a write that finds the record still young holds it again.
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wakeAt = Infinity;
      for (const seg of this.holding) this.touch(seg);
    }, Math.max(1, Math.ceil(at - performance.now()) + 1));
  }

  /** The store is closing: its last flush takes every segment holding records back (and writes them all). */
  close(): void {
    for (const seg of this.holding) this.touch(seg);
    this.holding.clear();
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.wakeAt = Infinity;
  }
}
