/**
 * A queue: ready messages in order, the consumers that take them, and the count of messages
 * handed out and not yet settled. The queue never blocks and never does I/O; consumers pull
 * by being asked (dispatch) whenever a message arrives or a consumer gains capacity.
 *
 * Invariants:
 * - every entry is in exactly one place: the ready list, or held by one consumer/get caller;
 * - `unacked` counts entries held in ack mode; settle/requeue/discard each release one;
 * - dispatch() is not re-entered: a consumer's deliver() may publish or ack, which only
 *   schedules more work for the running loop;
 * - every entry arrives through arrive() and leaves for good through forget() (ack, reject,
 *   no-ack delivery, purge, delete, expiry, overflow, dead-lettering, delivery limit), so a
 *   message store has exactly two places to hook (plus paging, below).
 *
 * Persistence: a durable, non-exclusive queue gets a QueueLog from the message store. arrive()
 * stores persistent entries, forget() tells the store they are gone, and beyond the store's
 * memory limits messages stay on disk only (pageOut) and come back through restore() as the
 * in-memory part runs low (pageIn); a priority queue's log pages each priority level apart.
 *
 * TTL (RabbitMQ's semantics): an entry's expiry is fixed on arrival (the smaller of the queue's
 * message-ttl and the message's expiration); expired entries are dropped only at the head, when
 * a delivery reaches them or when the one TTL timer fires, never by scanning the queue.
 */
import type { FieldTable } from "../values/field-value.js";
import { BrokerError, describeResource } from "../../errors/broker-error.js";
import type { Binding } from "../binding.js";
import type { Message } from "../message.js";
import { withHeader } from "../message-headers.js";
import type { DeathReason } from "../dead-letter.js";
import { DeadlineTimer } from "./deadline-timer.js";
import { PriorityReadyList } from "./priority-ready-list.js";
import type { ConsumerActivity, QueueConsumer } from "./queue-consumer.js";
import type { QueueEntry } from "./queue-entry.js";
import type { PageSink, QueueJournal, QueueLog } from "./queue-journal.js";
import { maxPriorityOf, resolveQueueSettings, type QueueSettings } from "./queue-settings.js";
import { ReadyList, type ReadyEntries } from "./ready-list.js";

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
  /** The queue was unused for its `expires` time (x-expires / policy expires): delete it. */
  queueExpired(queue: Queue): void;
  /** Republishes a message that died in `queue` to the queue's dead-letter exchange. */
  deadLetter(queue: Queue, message: Message, reason: DeathReason): void;
  now(): number;
  /** The message store for persistent messages in durable queues; absent = nothing is stored. */
  journal?: QueueJournal;
  /**
   * Messages whose publish was nacked after a failed store write (Broker.dropUnstored); an
   * unacked entry of one is dropped instead of requeued. Null until a write has ever failed.
   */
  unstored: WeakSet<Message> | null;
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
  /** Resolved from arguments and policies; replaced by applyPolicy(). */
  settings: QueueSettings;
  readonly singleActiveConsumer: boolean;
  /** Bindings that route into this queue (the default exchange's implicit one excluded); kept by the vhost. */
  readonly boundFrom = new Set<Binding>();
  /** Routing epoch stamp, see VHost.route. */
  routeEpoch = 0;
  readonly stats: QueueStats = { publish: 0, deliver: 0, deliverNoAck: 0, get: 0, getNoAck: 0, ack: 0, redeliver: 0 };
  readonly createdAt: number;

  private readonly ready: ReadyEntries;
  /** Sorted by priority, highest first; round-robin within a priority. */
  private consumers: QueueConsumer<Queue>[] = [];
  private readonly rrByPriority = new Map<number, number>();
  private nextSeq = 1;
  private dispatching = false;
  private hadConsumer = false;
  private deleted = false;
  /** Set once an entry with an expiry arrives: from then on dispatch keeps the TTL timer armed. */
  private hasTtl = false;
  /** Expiry of the head entry (message TTL). */
  private readonly ttlTimer: DeadlineTimer;
  /** x-expires: deletes the queue once it has been unused that long. */
  private readonly idleTimer: DeadlineTimer;
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
    this.singleActiveConsumer = spec.arguments["x-single-active-consumer"] === true;
    const maxPriority = maxPriorityOf(spec.arguments);
    this.ready = maxPriority > 0 ? new PriorityReadyList(maxPriority) : new ReadyList();
    this.settings = resolveQueueSettings(spec.arguments, {});
    this.createdAt = host.now();
    this.lastActivity = this.createdAt;
    this.ttlTimer = new DeadlineTimer(() => {
      if (!this.deleted) this.expireHead(this.host.now());
    }, host.now);
    this.idleTimer = new DeadlineTimer(() => this.onIdle(), host.now);
    this.log = spec.durable && spec.exclusiveOwner === null && host.journal ? host.journal.forQueue(vhost, spec.name, maxPriority) : null;
    this.armIdleTimer();
  }

  /**
   * A policy (or operator policy) took effect or changed: new settings apply at once, so a
   * smaller max-length trims the queue now and a new expires starts counting.
   */
  applyPolicy(definition: Readonly<Record<string, unknown>>): void {
    this.settings = resolveQueueSettings(this.arguments, definition);
    if (this.deleted) return;
    this.armIdleTimer();
    this.expireHead(this.host.now());
    this.trim();
  }

  /** Redeclare counts as use for x-expires. */
  touch(): void {
    this.lastActivity = this.host.now();
  }

  /** Ready messages, including those paged out to the message store. */
  get messageCount(): number {
    return this.log === null ? this.ready.length : this.ready.length + this.log.pagedCount;
  }

  get readyBytes(): number {
    return this.log === null ? this.ready.bytes : this.ready.bytes + this.log.pagedBytes;
  }

  /** Ready messages held only in the message store (RabbitMQ's `messages_paged_out`). */
  get pagedOutCount(): number {
    return this.log === null ? 0 : this.log.pagedCount;
  }

  get pagedOutBytes(): number {
    return this.log === null ? 0 : this.log.pagedBytes;
  }

  /** Persistent messages held by the message store for this queue (RabbitMQ's `messages_persistent`). */
  get persistentCount(): number {
    return this.log === null ? 0 : this.log.storedCount;
  }

  get persistentBytes(): number {
    return this.log === null ? 0 : this.log.storedBytes;
  }

  /** The `timestamp` property of the message at the head (in memory), if it has one. */
  get headTimestamp(): number | null {
    const t = this.ready.peek()?.message.properties.timestamp;
    return typeof t === "number" ? t : null;
  }

  get consumerCount(): number {
    return this.consumers.length;
  }

  get isDeleted(): boolean {
    return this.deleted;
  }

  listConsumers(): readonly QueueConsumer<Queue>[] {
    return this.consumers;
  }

  /**
   * RabbitMQ's consumer activity: "up" on an ordinary queue; on a single-active-consumer queue the
   * earliest consumer is "single_active" and the rest are "waiting" (see addConsumer / pick).
   */
  consumerActivity(c: QueueConsumer<Queue>): ConsumerActivity {
    if (!this.singleActiveConsumer) return "up";
    return this.consumers[0] === c ? "single_active" : "waiting";
  }

  readyEntries(): Iterable<QueueEntry> {
    return this.ready;
  }

  /**
   * Accepts a routed message; false when the queue refuses it (overflow reject-publish or
   * reject-publish-dlx at its length limit), which the publisher sees as a nack.
   */
  enqueue(message: Message): boolean {
    const s = this.settings;
    if ((s.maxLength !== null || s.maxLengthBytes !== null) && s.overflow !== "drop-head" && this.wouldOverflow(message)) {
      if (s.overflow === "reject-publish-dlx") this.deadLetter(message, "maxlen");
      return false;
    }
    this.stats.publish++;
    if (this.log !== null && this.log.pageOut(message, this.ready)) {
      // On disk only; its expiry is fixed when it is paged back in (restore), from its publish time.
      this.dispatch();
      if (s.maxLength !== null || s.maxLengthBytes !== null) this.trim();
      return true;
    }
    const ttl = this.ttlOf(message);
    const now = ttl < 0 ? 0 : this.host.now();
    this.arrive({ message, seq: this.nextSeq++, redelivered: false, deliveryCount: 0, returns: 0, expiresAt: ttl < 0 ? 0 : now + ttl, storeRef: 0 });
    if (ttl >= 0) {
      this.hasTtl = true;
      // A TTL of 0 means "deliver now or never" (RabbitMQ): what dispatch could not hand out expires.
      this.expireHead(now);
    }
    if (s.maxLength !== null || s.maxLengthBytes !== null) this.trim();
    return true;
  }

  /** A stored message paged back in (after the ones in memory), without being stored again. */
  restore(message: Message, redelivered: boolean, storeRef: number): void {
    const ttl = this.ttlOf(message);
    if (ttl >= 0) this.hasTtl = true;
    this.ready.push({ message, seq: this.nextSeq++, redelivered, deliveryCount: 0, returns: 0, expiresAt: ttl < 0 ? 0 : message.publishedAt + ttl, storeRef });
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

  addConsumer(c: QueueConsumer<Queue>): void {
    this.checkConsumable(c.exclusive);
    let i = 0;
    while (i < this.consumers.length && this.consumers[i]!.priority >= c.priority) i++;
    // Single active consumer: the earliest consumer is the active one, so keep arrival order.
    if (this.singleActiveConsumer) i = this.consumers.length;
    this.consumers.splice(i, 0, c);
    this.hadConsumer = true;
    this.lastActivity = this.host.now();
    this.dispatch();
  }

  removeConsumer(c: QueueConsumer<Queue>): void {
    const i = this.consumers.indexOf(c);
    if (i < 0) return;
    this.consumers.splice(i, 1);
    this.lastActivity = this.host.now();
    if (this.consumers.length === 0 && this.autoDelete && this.hadConsumer && !this.deleted) {
      this.host.queueUnused(this);
      return;
    }
    this.armIdleTimer();
    // The next consumer in line may become active (single active consumer).
    if (this.singleActiveConsumer) this.dispatch();
  }

  /** basic.get: the oldest ready entry, or null. Ack-mode gets are held like deliveries. */
  get(noAck: boolean): QueueEntry | null {
    const now = this.host.now();
    this.lastActivity = now;
    // Expired entries go at the head; paged-out ones are checked as they come back in.
    for (;;) {
      this.pageIn();
      if (this.hasTtl) this.expireHead(now);
      if (this.ready.length > 0 || this.log === null || this.log.pagedCount === 0) break;
    }
    const e = this.ready.shift();
    if (!e) return null;
    if (this.hasTtl) this.armTtlTimer();
    if (noAck) this.stats.getNoAck++;
    else this.stats.get++;
    this.handOut(e, noAck);
    if (noAck) this.forget(e, null);
    return e;
  }

  /** Gives ready messages to consumers that can take them. Cheap to call when there is nothing to do. */
  dispatch(): void {
    if (this.dispatching || this.deleted) return;
    this.dispatching = true;
    try {
      let now = 0;
      this.pageIn();
      while (this.ready.length > 0 && this.consumers.length > 0) {
        const c = this.pickConsumer();
        if (!c) break;
        const e = this.ready.shift()!;
        this.pageIn();
        if (e.expiresAt !== 0) {
          if (now === 0) now = this.host.now();
          // Strictly past: a TTL-0 entry may still go to a consumer in the tick it arrived.
          if (e.expiresAt < now) {
            this.forget(e, "expired");
            continue;
          }
        }
        if (c.noAck) this.stats.deliverNoAck++;
        else this.stats.deliver++;
        this.handOut(e, c.noAck);
        c.deliver(this, e);
        if (c.noAck) this.forget(e, null);
      }
    } finally {
      this.dispatching = false;
    }
    if (this.hasTtl) this.armTtlTimer();
  }

  /** An ack-mode entry was acknowledged. */
  settle(e: QueueEntry): void {
    this.release(e);
    this.stats.ack++;
    this.forget(e, null);
  }

  /** Ack-mode entries go back to their original positions, marked redelivered. */
  requeue(entries: readonly QueueEntry[]): void {
    if (entries.length === 0) return;
    let back: readonly QueueEntry[] = entries;
    if (this.host.unstored !== null) back = this.dropUnstoredHeld(back, this.host.unstored);
    if (this.type === "quorum") back = this.countReturns(entries);
    for (const e of back) {
      this.release(e);
      e.redelivered = true;
    }
    if (this.deleted) {
      for (const e of back) this.forget(e, null);
      return;
    }
    this.ready.requeue(back);
    if (this.hasTtl) this.expireHead(this.host.now());
    this.dispatch();
  }

  /** An ack-mode entry was rejected without requeue: it leaves the queue. */
  discard(e: QueueEntry): void {
    this.release(e);
    this.forget(e, "rejected");
  }

  /** A failed store write lost records: adds the messages of ready entries whose record is lost. */
  collectUnstored(isLost: (ref: number) => boolean, into: Set<Message>): void {
    if (this.log === null) return;
    for (const e of this.ready) if (e.storeRef && isLost(e.storeRef)) into.add(e.message);
  }

  /** Drops every ready entry of these (nacked) messages, wherever it sits; returns how many. */
  dropMessages(lost: ReadonlySet<Message>): number {
    const dropped = this.ready.removeWhere((e) => lost.has(e.message));
    for (const e of dropped) this.forget(e, null);
    return dropped.length;
  }

  /** Held entries of nacked messages (see QueueHost.unstored) leave instead of coming back. */
  private dropUnstoredHeld(entries: readonly QueueEntry[], unstored: WeakSet<Message>): readonly QueueEntry[] {
    return entries.filter((e) => {
      if (!unstored.has(e.message)) return true;
      this.release(e);
      this.forget(e, null);
      return false;
    });
  }

  /** queue.purge: drops the ready messages (not the unacknowledged ones); returns how many. */
  purge(): number {
    const dropped = this.ready.clear();
    for (const e of dropped) this.forget(e, null);
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
    // RabbitMQ does not dead-letter the messages of a deleted (or expired) queue.
    for (const e of this.ready.clear()) this.forget(e, null);
    this.log?.queueDeleted();
    this.ttlTimer.clear();
    this.idleTimer.clear();
    return count;
  }

  /** The one place an entry enters the queue. */
  private arrive(e: QueueEntry): void {
    if (this.log !== null && e.message.persistent) this.log.append(e);
    this.ready.push(e);
    this.dispatch();
  }

  /**
   * The one place an entry leaves the queue for good. With a death reason it is dead-lettered
   * when the queue has a dead-letter exchange, and dropped otherwise.
   */
  private forget(e: QueueEntry, reason: DeathReason | null): void {
    if (e.storeRef) this.log!.forget(e);
    if (reason !== null) this.deadLetter(e.message, reason);
  }

  /** Brings messages paged out to the store back into memory when the ready list runs low. */
  private pageIn(): void {
    if (this.log !== null && this.log.pagedCount > 0) this.log.pageIn(this, this.ready);
  }

  /** Every death goes to the host, which counts it, and republishes it when there is a dead-letter exchange. */
  private deadLetter(message: Message, reason: DeathReason): void {
    this.host.deadLetter(this, message, reason);
  }

  /** Quorum queues count returns; past x-delivery-limit an entry is dead-lettered or dropped. */
  private countReturns(entries: readonly QueueEntry[]): QueueEntry[] {
    const limit = this.settings.deliveryLimit;
    const back: QueueEntry[] = [];
    for (const e of entries) {
      e.returns++;
      if (limit !== null && e.returns > limit) {
        this.release(e);
        this.forget(e, "delivery_limit");
        continue;
      }
      e.message = withHeader(e.message, "x-delivery-count", BigInt(e.returns));
      back.push(e);
    }
    return back;
  }

  /** ms to live for a new message: the smaller of message-ttl and its expiration; -1 = forever. */
  private ttlOf(message: Message): number {
    let ttl = this.settings.messageTtl ?? -1;
    const exp = message.properties.expiration;
    if (exp !== undefined) {
      const n = Number(exp);
      if (Number.isInteger(n) && n >= 0 && (ttl < 0 || n < ttl)) ttl = n;
    }
    return ttl;
  }

  /** RabbitMQ's will_overflow: would one more message exceed max-length or max-length-bytes? */
  private wouldOverflow(message: Message): boolean {
    const s = this.settings;
    return (s.maxLength !== null && this.messageCount + 1 > s.maxLength) || (s.maxLengthBytes !== null && this.readyBytes + message.bodySize > s.maxLengthBytes);
  }

  /** drop-head: drops (dead-letters, reason maxlen) the oldest ready entries while over a limit. */
  private trim(): void {
    const s = this.settings;
    if (s.overflow !== "drop-head") return;
    while ((s.maxLength !== null && this.messageCount > s.maxLength) || (s.maxLengthBytes !== null && this.readyBytes > s.maxLengthBytes)) {
      // The oldest may be paged out: bring the head back first.
      if (this.ready.length === 0) this.pageIn();
      const e = this.ready.shift();
      if (!e) break;
      this.forget(e, "maxlen");
    }
    if (this.hasTtl) this.armTtlTimer();
  }

  /** Drops expired entries at the head (only there, as RabbitMQ does) and re-arms the timer. */
  private expireHead(now: number): void {
    for (let e = this.ready.peek(); e && e.expiresAt !== 0 && e.expiresAt <= now; e = this.ready.peek()) {
      this.ready.shift();
      this.forget(e, "expired");
    }
    this.armTtlTimer();
  }

  /** Aims the TTL timer at the head's expiry, when the head has one. */
  private armTtlTimer(): void {
    const head = this.ready.peek();
    if (head && head.expiresAt !== 0 && !this.deleted) this.ttlTimer.armBy(head.expiresAt);
  }

  /** x-expires: counts from the last use while the queue has no consumer. */
  private armIdleTimer(): void {
    this.idleTimer.clear();
    const expires = this.settings.expires;
    if (expires !== null && this.consumers.length === 0 && !this.deleted) this.idleTimer.armBy(this.lastActivity + expires);
  }

  private onIdle(): void {
    const expires = this.settings.expires;
    if (this.deleted || expires === null || this.consumers.length > 0) return;
    if (this.host.now() - this.lastActivity >= expires) this.host.queueExpired(this);
    else this.armIdleTimer();
  }

  private handOut(e: QueueEntry, noAck: boolean): void {
    e.deliveryCount++;
    if (e.redelivered) this.stats.redeliver++;
    if (!noAck) {
      this.unacked++;
      this.unackedBytes += e.message.bodySize;
      // Stored so that a restart marks it redelivered: it may have reached a consumer.
      if (e.storeRef && !e.redelivered && e.deliveryCount === 1) this.log!.delivered(e);
    }
  }

  private release(e: QueueEntry): void {
    this.unacked--;
    this.unackedBytes -= e.message.bodySize;
  }

  /** The highest-priority consumer with capacity, round-robin among equals. */
  private pickConsumer(): QueueConsumer<Queue> | null {
    const cs = this.consumers;
    if (this.singleActiveConsumer) return cs.length > 0 && cs[0]!.canTake() ? cs[0]! : null;
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
