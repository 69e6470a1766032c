/**
 * A channel's deliveries awaiting basic.ack/nack/reject, in delivery-tag order (AMQP 0-9-1 §1.8.3.13:
 * tags grow by one per delivery on a channel; `multiple` settles every outstanding tag up to one).
 *
 * It replaces a Map<tag, {queue, entry, consumer}>: on the publish→deliver→ack path that Map cost an
 * object and a hash insert per delivery and a [tag, value] pair per settled tag, and the objects
 * lived as long as the message was unacked, so the garbage collector copied them. Here a delivery
 * is one slot in parallel ring arrays; settling in order (what clients do) pops from the front.
 *
 * Invariants: slots [0, count) hold strictly increasing tags; a settled slot that is not at the
 * front becomes a hole (entry null) until the front reaches it, or until holes outnumber live
 * slots and the ring is compacted — so memory stays proportional to what is unacked even when an
 * old delivery stays unacked while later ones are settled around it.
 */
import type { Queue, QueueEntry } from "../../broker/index.js";

/** The consumer a delivery went to, as settling sees it (a ChannelConsumer). */
export interface DeliveryConsumer {
  /** Its deliveries not yet settled (per-consumer prefetch). */
  unackedCount: number;
}

/** A delivery handed out and not yet settled; `consumer` is null for basic.get. */
export interface Unacked {
  readonly queue: Queue;
  readonly entry: QueueEntry;
  readonly consumer: DeliveryConsumer | null;
}

/** What settling visits for each delivery it removes. */
export type SettleVisitor = (queue: Queue, entry: QueueEntry, consumer: DeliveryConsumer | null) => void;

const INITIAL_CAPACITY = 16;
/** Holes are compacted away once they are this many and outnumber the live slots. */
const COMPACT_MIN_HOLES = 64;

export class UnackedDeliveries {
  private tags: number[] = new Array<number>(INITIAL_CAPACITY).fill(0);
  private queues: Array<Queue | null> = new Array<Queue | null>(INITIAL_CAPACITY).fill(null);
  private entries: Array<QueueEntry | null> = new Array<QueueEntry | null>(INITIAL_CAPACITY).fill(null);
  private consumers: Array<DeliveryConsumer | null> = new Array<DeliveryConsumer | null>(INITIAL_CAPACITY).fill(null);
  private mask = INITIAL_CAPACITY - 1;
  private head = 0;
  /** Slots in use, holes included. */
  private count = 0;
  private live = 0;

  /** Deliveries not yet settled. */
  get size(): number {
    return this.live;
  }

  /** Records a delivery; `tag` is larger than every tag added before. */
  add(tag: number, queue: Queue, entry: QueueEntry, consumer: DeliveryConsumer | null): void {
    if (this.count > this.mask) this.resize((this.mask + 1) * 2);
    const p = (this.head + this.count) & this.mask;
    this.tags[p] = tag;
    this.queues[p] = queue;
    this.entries[p] = entry;
    this.consumers[p] = consumer;
    this.count++;
    this.live++;
  }

  has(tag: number): boolean {
    return this.slotOf(tag) >= 0;
  }

  /** How many outstanding deliveries have a tag up to `tag` (every one for tag 0). */
  countUpTo(tag: number): number {
    if (tag === 0) return this.live;
    let n = 0;
    for (let i = 0; i < this.count; i++) {
      const p = (this.head + i) & this.mask;
      if (this.tags[p]! > tag) break;
      if (this.entries[p] !== null) n++;
    }
    return n;
  }

  /** Removes the delivery with `tag`, visiting it; false when it is not outstanding. */
  take(tag: number, visit: SettleVisitor): boolean {
    const i = this.slotOf(tag);
    if (i < 0) return false;
    const p = (this.head + i) & this.mask;
    const queue = this.queues[p]!;
    const entry = this.entries[p]!;
    const consumer = this.consumers[p]!;
    this.clearSlot(p);
    this.afterRemoval();
    visit(queue, entry, consumer);
    return true;
  }

  /** Removes every delivery with a tag up to `tag` (all for tag 0), oldest first, visiting each; returns how many. */
  takeUpTo(tag: number, visit: SettleVisitor): number {
    let n = 0;
    while (this.count > 0) {
      const p = this.head;
      if (tag !== 0 && this.tags[p]! > tag) break;
      const entry = this.entries[p] ?? null;
      const queue = this.queues[p]!;
      const consumer = this.consumers[p]!;
      this.clearSlot(p);
      // The front moves before the visit: a visit may deliver more (add) and grow the ring.
      this.head = (p + 1) & this.mask;
      this.count--;
      if (entry !== null) {
        n++;
        visit(queue, entry, consumer);
      }
    }
    this.afterRemoval();
    return n;
  }

  /** Outstanding deliveries in tag order (allocates: for the rare paths — recover, close, consumer_timeout). */
  *[Symbol.iterator](): IterableIterator<[number, Unacked]> {
    for (let i = 0; i < this.count; i++) {
      const p = (this.head + i) & this.mask;
      const entry = this.entries[p] ?? null;
      if (entry) yield [this.tags[p]!, { queue: this.queues[p]!, entry, consumer: this.consumers[p]! }];
    }
  }

  /** Forgets everything (the caller has given the messages back). */
  clear(): void {
    for (let i = 0; i < this.count; i++) this.clearSlot((this.head + i) & this.mask);
    this.head = 0;
    this.count = 0;
    this.live = 0;
  }

  /** The slot index (0 = front) of an outstanding tag, or -1. Settling in order hits the front at once. */
  private slotOf(tag: number): number {
    if (this.count === 0) return -1;
    let lo = 0;
    let hi = this.count - 1;
    if (this.tags[this.head] !== tag) {
      // Binary search over the ring's logical order.
      lo = 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const t = this.tags[(this.head + mid) & this.mask]!;
        if (t === tag) {
          lo = mid;
          break;
        }
        if (t < tag) lo = mid + 1;
        else hi = mid - 1;
      }
      if (lo > hi || this.tags[(this.head + lo) & this.mask] !== tag) return -1;
    }
    return this.entries[(this.head + lo) & this.mask] === null ? -1 : lo;
  }

  private clearSlot(p: number): void {
    if (this.entries[p] === null) return;
    this.queues[p] = null;
    this.entries[p] = null;
    this.consumers[p] = null;
    this.live--;
  }

  /** Drops holes at the front; compacts when holes dominate. */
  private afterRemoval(): void {
    while (this.count > 0 && this.entries[this.head] === null) {
      this.head = (this.head + 1) & this.mask;
      this.count--;
    }
    if (this.count === 0) this.head = 0;
    const holes = this.count - this.live;
    if (holes >= COMPACT_MIN_HOLES && holes > this.live) this.resize(this.mask + 1);
  }

  /** Copies the live slots, in order, into fresh arrays of `capacity` (a power of two > live). */
  private resize(capacity: number): void {
    const tags = new Array<number>(capacity).fill(0);
    const queues = new Array<Queue | null>(capacity).fill(null);
    const entries = new Array<QueueEntry | null>(capacity).fill(null);
    const consumers = new Array<DeliveryConsumer | null>(capacity).fill(null);
    let n = 0;
    for (let i = 0; i < this.count; i++) {
      const p = (this.head + i) & this.mask;
      if (this.entries[p] === null) continue;
      tags[n] = this.tags[p]!;
      queues[n] = this.queues[p]!;
      entries[n] = this.entries[p]!;
      consumers[n] = this.consumers[p]!;
      n++;
    }
    this.tags = tags;
    this.queues = queues;
    this.entries = entries;
    this.consumers = consumers;
    this.mask = capacity - 1;
    this.head = 0;
    this.count = n;
  }
}
