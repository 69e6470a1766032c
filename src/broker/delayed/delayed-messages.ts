/**
 * What an x-delayed-message exchange holds: messages published with an `x-delay` header, each
 * due at its publish time + x-delay ms. They wait in an internal queue of the exchange's vhost
 * ("amq.delayed.<exchange>", never listed, routed to or consumed by clients), so the message
 * store journals a persistent message of a durable exchange exactly as it journals any durable
 * queue's, and a cluster replicates it with the rest of the store; after a restart or failover
 * the store gives the queue its messages back, and the due times follow from their stored
 * publish times. This object is the queue's only consumer: it takes every entry as an unacked
 * delivery, keeps them in a heap by due time (due-heap.ts) with one timer armed for the earliest,
 * routes each through the exchange when due, and acks it only once every queue it reached holds
 * it (so a crash between the two can route a message twice, never lose it). A queue led by another
 * node that cannot take it (its leader down or moving: a workers start, a failover) makes the
 * release wait and try again, RETRY_MS later, at most RETRY_LIMIT times; a local queue's refusal
 * (its length limit) drops it, as the plugin's own publish does.
 */
import type { MessageHold } from "../exchange/exchange.js";
import type { Message } from "../message.js";
import { withHeader } from "../message-headers.js";
import type { Queue } from "../queue/queue-type.js";
import type { QueueConsumer } from "../queue/queue-consumer.js";
import type { QueueEntry } from "../queue/queue-entry.js";
import type { FieldTable } from "../values/field-value.js";
import { DueHeap } from "./due-heap.js";

/** setTimeout's longest delay; a later due time is reached in several steps. */
const MAX_TIMER_MS = 2_147_483_647;
/** Messages released per event-loop turn when many are due at once. */
const RELEASE_BATCH = 1000;
/** A release a queue led elsewhere could not take is tried again this much later… */
const RETRY_MS = 1000;
/** …this many times (a minute), then dropped as an unroutable one: a leader that long gone lost the queue. */
const RETRY_LIMIT = 60;

/** What the holder asks of the broker. */
export interface DelayedRelease {
  /**
   * Routes a due message from the exchange now, as a publish would (alternate exchange included),
   * then calls `done(true)` once every queue it reached holds it (at once when none is led
   * elsewhere), or `done(false)` when a queue led elsewhere could not take it (try again).
   */
  route(message: Message, done: (ok: boolean) => void): void;
  now(): number;
  /** How long before a refused release is tried again (RETRY_MS; tests shorten it). */
  readonly retryMs?: number;
}

/**
 * The x-delay header's value in ms, as the plugin reads it: an integer, a float (truncated) or a
 * string holding an integer; 0 when there is none or it is something else (route at once).
 */
export function delayOf(headers: FieldTable | undefined): number {
  if (headers === undefined) return 0;
  const d = headers["x-delay"];
  if (typeof d === "number") return Number.isFinite(d) ? Math.trunc(d) : 0;
  if (typeof d === "bigint") return Number(d);
  if (typeof d === "string" && d.trim() !== "") {
    const n = Number(d);
    return Number.isInteger(n) ? n : 0;
  }
  return 0;
}

export class DelayedMessages implements MessageHold, QueueConsumer<Queue> {
  readonly tag = "amq.delayed";
  readonly noAck = false;
  readonly exclusive = true;
  readonly priority = 0;
  private readonly heap = new DueHeap<QueueEntry>();
  private timer: NodeJS.Timeout | null = null;
  /** The due time the timer is armed for; Infinity when none. */
  private armedFor = Infinity;
  private disposed = false;
  /** Releases wait (pause/resume); what is due meanwhile is released on resume. */
  private paused = false;
  /** Entries whose release was refused, with how many times (empty unless a leader elsewhere was down). */
  private readonly retries = new Map<QueueEntry, number>();

  constructor(
    private readonly queue: Queue,
    private readonly release: DelayedRelease,
  ) {
    queue.addConsumer(this);
    // Recovered messages reach the queue after the definitions that created it (node-persistence.ts): hand them over then.
    setImmediate(() => this.queue.dispatch()).unref();
  }

  get owner(): object {
    return this;
  }

  get heldIn(): Queue {
    return this.queue;
  }

  /** Held now: in the heap, plus any the queue has not handed over yet (paged in on the next dispatch). */
  get count(): number {
    return this.heap.size + this.queue.messageCount;
  }

  hold(message: Message): boolean {
    if (delayOf(message.properties.headers) <= 0) return false;
    this.queue.enqueue(message);
    return true;
  }

  canTake(): boolean {
    return !this.disposed;
  }

  deliver(_queue: Queue, entry: QueueEntry): void {
    const m = entry.message;
    const due = m.publishedAt + delayOf(m.properties.headers);
    this.heap.push(due, entry);
    if (due < this.armedFor) this.arm(due);
  }

  cancelledByQueue(_queue: Queue): void {}

  /** The exchange is gone: its held messages go with it (the plugin drops them too). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.queue.removeConsumer(this);
    this.queue.requeue(this.heap.drain());
    this.queue.markDeleted();
  }

  /** The broker stops: the timer goes; the held messages stay in the store for the next start. */
  halt(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    if (!this.disposed && this.heap.size > 0) this.arm(this.heap.nextDue);
  }

  private arm(due: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = due;
    const wait = Math.min(Math.max(due - this.release.now(), 0), MAX_TIMER_MS);
    this.timer = setTimeout(() => this.fire(), wait);
    this.timer.unref();
  }

  /** Routes every message that is due; a timer that fired a little early (clocks differ) re-arms. */
  private fire(): void {
    this.timer = null;
    this.armedFor = Infinity;
    // Paused: nothing released, no timer; resume() re-arms for the earliest.
    if (this.disposed || this.paused) return;
    const now = this.release.now();
    let released = 0;
    for (let e = this.heap.popDue(now); e !== undefined; e = this.heap.popDue(now)) {
      // As the plugin: the routed message carries x-delay negated, so consumers (and a delayed
      // exchange further on) can tell it has already waited.
      this.release.route(withHeader(e.message, "x-delay", -delayOf(e.message.properties.headers)), (ok) => this.routed(e, ok));
      // Many messages due at once are released a batch per turn, so clients are served between batches.
      if (++released === RELEASE_BATCH) break;
    }
    if (this.heap.size > 0) this.arm(released === RELEASE_BATCH ? now : this.heap.nextDue);
  }

  /** A release's outcome: acked once held where it went; refused by a queue led elsewhere, tried again. */
  private routed(e: QueueEntry, ok: boolean): void {
    // Halted: left unacked in the store for the next start; disposed: the queue went with the exchange.
    if (this.disposed) return;
    const tries = this.retries.get(e) ?? 0;
    if (ok || tries >= RETRY_LIMIT) {
      if (tries > 0) this.retries.delete(e);
      this.queue.settle(e);
      return;
    }
    this.retries.set(e, tries + 1);
    const due = this.release.now() + (this.release.retryMs ?? RETRY_MS);
    this.heap.push(due, e);
    if (due < this.armedFor) this.arm(due);
  }
}
