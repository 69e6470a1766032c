/**
 * A queue: ready messages in order, the consumers that take them, and the count of messages
 * handed out and not yet settled. The queue never blocks and never does I/O; consumers pull
 * by being asked (dispatch) whenever a message arrives or a consumer gains capacity.
 *
 * Invariants:
 * - every entry is in exactly one place: the ready list, or held by one consumer/get caller;
 * - `unacked` counts entries held in ack mode; settle/requeue/discard each release one;
 * - dispatch() is not re-entered: a consumer's deliver() may publish or ack, which only
 *   schedules more work for the running loop.
 */
import type { FieldTable } from "../../amqp/codec/field-table.js";
import { BrokerError, describeResource } from "../../errors/broker-error.js";
import type { Binding } from "../binding.js";
import type { Message } from "../message.js";
import type { QueueConsumer } from "./queue-consumer.js";
import type { QueueEntry } from "./queue-entry.js";
import type { PageSink, QueueJournal, QueueLog } from "./queue-journal.js";
import { ReadyList } from "./ready-list.js";

export interface QueueSpec {
  readonly name: string;
  readonly durable: boolean;
  readonly autoDelete: boolean;
  /** The owning connection of an exclusive queue, null otherwise. */
  readonly exclusiveOwner: object | null;
  readonly arguments: FieldTable;
}

/** What a queue asks of its vhost. */
export interface QueueHost {
  /** An auto-delete queue lost its last consumer. */
  queueUnused(queue: Queue): void;
  now(): number;
  /** The message store for persistent messages in durable queues; absent = nothing is stored. */
  journal?: QueueJournal;
}

export interface QueueStats {
  publish: number;
  deliver: number;
  deliverNoAck: number;
  get: number;
  getNoAck: number;
  ack: number;
  redeliver: number;
}

export class Queue implements QueueSpec, PageSink {
  readonly kind = "queue" as const;
  readonly name: string;
  readonly durable: boolean;
  readonly autoDelete: boolean;
  readonly exclusiveOwner: object | null;
  readonly arguments: FieldTable;
  readonly type: "classic" | "quorum";
  /** Bindings that route into this queue (the default exchange's implicit one excluded). */
  readonly boundFrom = new Set<Binding>();
  /** Routing epoch stamp, see VHost.route. */
  routeEpoch = 0;
  readonly stats: QueueStats = { publish: 0, deliver: 0, deliverNoAck: 0, get: 0, getNoAck: 0, ack: 0, redeliver: 0 };
  readonly createdAt: number;

  private readonly ready = new ReadyList();
  /** Sorted by priority, highest first; round-robin within a priority. */
  private consumers: QueueConsumer[] = [];
  private readonly rrByPriority = new Map<number, number>();
  private nextSeq = 1;
  private dispatching = false;
  private hadConsumer = false;
  private deleted = false;
  /** Set for durable, non-exclusive queues when the broker has a message store. */
  private readonly log: QueueLog | null;
  unacked = 0;
  unackedBytes = 0;
  /** ms since epoch of the last consumer activity, for idle_since. */
  lastActivity: number;

  constructor(readonly vhost: string, spec: QueueSpec, private readonly host: QueueHost) {
    this.name = spec.name;
    this.durable = spec.durable;
    this.autoDelete = spec.autoDelete;
    this.exclusiveOwner = spec.exclusiveOwner;
    this.arguments = spec.arguments;
    this.type = spec.arguments["x-queue-type"] === "quorum" ? "quorum" : "classic";
    this.createdAt = host.now();
    this.lastActivity = this.createdAt;
    this.log = spec.durable && spec.exclusiveOwner === null && host.journal ? host.journal.forQueue(vhost, spec.name) : null;
  }

  /** Ready messages, including those paged out to the message store. */
  get messageCount(): number {
    return this.log === null ? this.ready.length : this.ready.length + this.log.pagedCount;
  }

  get readyBytes(): number {
    return this.log === null ? this.ready.bytes : this.ready.bytes + this.log.pagedBytes;
  }

  get consumerCount(): number {
    return this.consumers.length;
  }

  get isDeleted(): boolean {
    return this.deleted;
  }

  listConsumers(): readonly QueueConsumer[] {
    return this.consumers;
  }

  readyEntries(): Iterable<QueueEntry> {
    return this.ready;
  }

  /** Accepts a routed message. */
  enqueue(message: Message): void {
    this.stats.publish++;
    if (this.log !== null && this.log.pageOut(message, this.ready.length, this.ready.bytes)) {
      this.dispatch();
      return;
    }
    const e: QueueEntry = { message, seq: this.nextSeq++, redelivered: false, deliveryCount: 0, expiresAt: 0, storeRef: 0 };
    if (this.log && message.persistent) this.log.append(e);
    this.ready.push(e);
    this.dispatch();
  }

  /** A stored message paged back in (after the ones in memory), without being stored again. */
  restore(message: Message, redelivered: boolean, storeRef: number): void {
    this.ready.push({ message, seq: this.nextSeq++, redelivered, deliveryCount: 0, expiresAt: 0, storeRef });
  }

  /**
   * RabbitMQ's exclusive-queue rule: only the owning connection may use it. `strict` (redeclare)
   * also refuses an exclusive declare of a queue that is not exclusive.
   */
  checkExclusiveAccess(owner: object | null, strict = false): void {
    if (this.exclusiveOwner !== owner && (strict || this.exclusiveOwner !== null)) {
      throw new BrokerError(
        "resourceLocked",
        `cannot obtain exclusive access to locked ${describeResource("queue", this.name, this.vhost)}. It could be originally declared on another connection or the exclusive property value does not match that of the original declaration.`,
      );
    }
  }

  /** Throws ACCESS_REFUSED when an exclusive consumer would share the queue (RabbitMQ's text). */
  checkConsumable(exclusive: boolean): void {
    if (this.consumers.length > 0 && (exclusive || this.consumers.some((x) => x.exclusive))) {
      throw new BrokerError("accessRefused", `${describeResource("queue", this.name, this.vhost)} in exclusive use`);
    }
  }

  addConsumer(c: QueueConsumer): void {
    this.checkConsumable(c.exclusive);
    let i = 0;
    while (i < this.consumers.length && this.consumers[i]!.priority >= c.priority) i++;
    this.consumers.splice(i, 0, c);
    this.hadConsumer = true;
    this.lastActivity = this.host.now();
    this.dispatch();
  }

  removeConsumer(c: QueueConsumer): void {
    const i = this.consumers.indexOf(c);
    if (i < 0) return;
    this.consumers.splice(i, 1);
    this.lastActivity = this.host.now();
    if (this.consumers.length === 0 && this.autoDelete && this.hadConsumer && !this.deleted) this.host.queueUnused(this);
  }

  /** basic.get: the oldest ready entry, or null. Ack-mode gets are held like deliveries. */
  get(noAck: boolean): QueueEntry | null {
    this.pageIn();
    const e = this.ready.shift();
    if (!e) return null;
    this.lastActivity = this.host.now();
    if (noAck) this.stats.getNoAck++;
    else this.stats.get++;
    this.handOut(e, noAck);
    return e;
  }

  /** Gives ready messages to consumers that can take them. Cheap to call when there is nothing to do. */
  dispatch(): void {
    if (this.dispatching || this.deleted) return;
    this.dispatching = true;
    try {
      this.pageIn();
      while (this.ready.length > 0 && this.consumers.length > 0) {
        const c = this.pickConsumer();
        if (!c) break;
        const e = this.ready.shift()!;
        this.pageIn();
        if (c.noAck) this.stats.deliverNoAck++;
        else this.stats.deliver++;
        this.handOut(e, c.noAck);
        c.deliver(this, e);
      }
    } finally {
      this.dispatching = false;
    }
  }

  /** An ack-mode entry was acknowledged. */
  settle(e: QueueEntry): void {
    this.release(e);
    this.forget(e);
    this.stats.ack++;
  }

  /** Ack-mode entries go back to their original positions, marked redelivered. */
  requeue(entries: readonly QueueEntry[]): void {
    if (entries.length === 0) return;
    for (const e of entries) {
      this.release(e);
      e.redelivered = true;
    }
    if (this.deleted) {
      for (const e of entries) this.forget(e);
      return;
    }
    this.ready.requeue(entries);
    this.dispatch();
  }

  /** An ack-mode entry was rejected without requeue: it leaves the queue. */
  discard(e: QueueEntry): void {
    this.release(e);
    this.forget(e);
  }

  /** queue.purge: drops the ready messages (not the unacknowledged ones); returns how many. */
  purge(): number {
    const dropped = this.ready.clear();
    for (const e of dropped) this.forget(e);
    return dropped.length + (this.log === null ? 0 : this.log.dropPaged());
  }

  /** Marks the queue deleted, tells its consumers, and drops its messages. Returns the ready count it had. */
  markDeleted(): number {
    if (this.deleted) return 0;
    const count = this.messageCount;
    this.deleted = true;
    const consumers = this.consumers;
    this.consumers = [];
    for (const c of consumers) c.cancelledByQueue(this);
    for (const e of this.ready.clear()) this.forget(e);
    this.log?.queueDeleted();
    return count;
  }

  private handOut(e: QueueEntry, noAck: boolean): void {
    e.deliveryCount++;
    if (e.redelivered) this.stats.redeliver++;
    if (noAck) {
      this.forget(e);
    } else {
      this.unacked++;
      this.unackedBytes += e.message.body.length;
      if (e.storeRef && !e.redelivered && e.deliveryCount === 1) this.log!.delivered(e);
    }
  }

  /** Brings messages paged out to the store back into memory when the ready list runs low. */
  private pageIn(): void {
    if (this.log !== null && this.log.pagedCount > 0) this.log.pageIn(this, this.ready.length, this.ready.bytes);
  }

  /** Every entry that leaves the queue forever passes here, so the store can reclaim its record. */
  private forget(e: QueueEntry): void {
    if (e.storeRef) this.log!.forget(e);
  }

  private release(e: QueueEntry): void {
    this.unacked--;
    this.unackedBytes -= e.message.body.length;
  }

  /** The highest-priority consumer with capacity, round-robin among equals. */
  private pickConsumer(): QueueConsumer | null {
    const cs = this.consumers;
    const n = cs.length;
    let i = 0;
    while (i < n) {
      const p = cs[i]!.priority;
      let j = i + 1;
      while (j < n && cs[j]!.priority === p) j++;
      const len = j - i;
      const start = (this.rrByPriority.get(p) ?? 0) % len;
      for (let k = 0; k < len; k++) {
        const idx = i + ((start + k) % len);
        const c = cs[idx]!;
        if (c.canTake()) {
          this.rrByPriority.set(p, (start + k + 1) % len);
          return c;
        }
      }
      i = j;
    }
    return null;
  }
}
