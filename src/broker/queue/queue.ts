/**
 * A classic or quorum queue, one implementation of the queue-type interface (queue-type.ts):
 * ready messages in order, the consumers that take them, and the count of messages handed out
 * and not yet settled. The queue never blocks and never does I/O; consumers pull
 * by being asked (dispatch) whenever a message arrives or a consumer gains capacity.
 *
 * Invariants:
 * - every entry is in exactly one place: the ready list, or held by one consumer/get caller;
 * - `unacked` counts entries held in ack mode; settle/requeue/discard each release one;
 * - dispatch() is not re-entered: a consumer's deliver() may publish or ack, which only
 *   schedules more work for the running loop;
 * - every entry arrives through arrive() and leaves for good through forget() (ack, reject,
 *   no-ack delivery, purge, delete, expiry, overflow, dead-lettering, delivery limit), so a
 *   message store has exactly two places to hook (plus paging).
 *
 * This file owns consumers, delivery and acknowledgement. What the queue holds (memory and
 * store, paging, TTL and length limits at the head) is QueueContents (queue-contents.ts), which
 * this class extends, so the message path stays plain method calls on one object. The rules it
 * applies live beside it: consumer-order.ts (who gets the next message), length-limit.ts,
 * message-expiry.ts, idle-expiry.ts (x-expires), queue-settings.ts (arguments and policies).
 */
import { BrokerError, describeResource } from "../../errors/broker-error.js";
import type { DeathReason } from "../dead-letter.js";
import type { Message } from "../message.js";
import { withHeader } from "../message-headers.js";
import { consumerActivity, insertConsumer, pickConsumer } from "./consumer-order.js";
import { IdleExpiry } from "./idle-expiry.js";
import { hasLengthLimit, wouldOverflow } from "./length-limit.js";
import { messageTtl } from "./message-expiry.js";
import { QueueContents } from "./queue-contents.js";
import type { ClaimHold } from "./claim-hold.js";
import type { ConsumerActivity, QueueConsumer } from "./queue-consumer.js";
import type { QueueEntry } from "./queue-entry.js";
import { resolveQueueSettings } from "./queue-settings.js";
import type { QueueSpec } from "./queue-spec.js";
import type { ConsumerTerms, Queue, QueueHost } from "./queue-type.js";

/** The interface, under the names importers of this module used before it existed (source compatibility). */
export type { ConsumerTerms, Queue, QueueHost } from "./queue-type.js";

export class MessageQueue extends QueueContents implements Queue {
  /** In serving order (consumer-order.ts). */
  private consumers: QueueConsumer<Queue>[] = [];
  /** Round-robin turn per consumer priority (consumer-order.ts). */
  private readonly turns = new Map<number, number>();
  private dispatching = false;
  private hadConsumer = false;
  private readonly idle: IdleExpiry;
  /** Its group moved to another node (handOver): returned entries stay in the store, for the next leader. */
  private handedOver = false;
  /** What its consumers held unsettled at the hand-over: carried with the ready ones (operations/queue-carry.ts). */
  heldAtHandOver: readonly QueueEntry[] = [];
  /** Set only on a spread node while this new queue's home claim is undecided (claim-hold.ts): routed messages wait there. */
  claimHold: ClaimHold | null = null;

  constructor(vhost: string, spec: QueueSpec, host: QueueHost) {
    super(vhost, spec, host);
    this.idle = new IdleExpiry(this, host.now, () => host.queueExpired(this));
    this.idle.arm();
  }

  /**
   * A policy (or operator policy) took effect or changed: new settings apply at once, so a
   * smaller max-length trims the queue now and a new expires starts counting.
   */
  applyPolicy(definition: Readonly<Record<string, unknown>>): void {
    this.settings = resolveQueueSettings(this.arguments, definition);
    if (this.deleted) return;
    this.idle.arm();
    this.expireHead(this.now());
    this.trim();
  }

  get consumerCount(): number {
    return this.consumers.length;
  }

  /**
   * Whether a consumer that `borrowsBodies` may be handed bodies valid only until its deliver()
   * returns (a stream reader reuses its chunk buffer): such a consumer copies them. Ordinary queues
   * hand out bodies that stay valid.
   */
  get lendsBodies(): boolean {
    return false;
  }

  /** Whether its entries may count as holders of a lent body (values/body-lease.ts): classic (its store holds for itself). */
  get countsBodyHolds(): boolean {
    return this.type === "classic";
  }

  listConsumers(): readonly QueueConsumer<Queue>[] {
    return this.consumers;
  }

  /** RabbitMQ's consumer activity: "up", or "single_active" / "waiting" on a single-active-consumer queue. */
  consumerActivity(c: QueueConsumer<Queue>): ConsumerActivity {
    return consumerActivity(this.consumers, c, this.singleActiveConsumer);
  }

  /**
   * Accepts a routed message; false when the queue refuses it (overflow reject-publish or
   * reject-publish-dlx at its length limit), which the publisher sees as a nack.
   */
  enqueue(message: Message): boolean {
    if (this.claimHold !== null) return this.claimHold.hold(message);
    const s = this.settings;
    const limited = hasLengthLimit(s);
    if (limited && s.overflow !== "drop-head" && wouldOverflow(s, this.messageCount, this.readyBytes, message.bodySize)) {
      if (s.overflow === "reject-publish-dlx") this.died(message, "maxlen");
      return false;
    }
    this.stats.publish++;
    if (this.log !== null && this.log.pageOut(message, this.ready)) {
      // On disk only; its expiry is fixed when it is paged back in (restore), from its publish time.
      this.dispatch();
      if (limited) this.trim();
      return true;
    }
    const ttl = messageTtl(s.messageTtl, message.properties.expiration);
    const now = ttl < 0 ? 0 : this.now();
    this.arrive(message, ttl < 0 ? 0 : now + ttl);
    // The arrival's own clock reading: the clock may tick before dispatch reads it again, and a
    // TTL-0 message must still reach a consumer that waits (deliver now or never, not never).
    this.dispatch(now);
    if (ttl >= 0) {
      this.hasTtl = true;
      // A TTL of 0 means "deliver now or never" (RabbitMQ): what dispatch could not hand out expires.
      this.expireHead(now);
    }
    if (limited) this.trim();
    return true;
  }

  /**
   * Checks a consumer before consume-ok is sent (its acknowledgement mode, prefetch and
   * arguments); the queue types that restrict consumers (streams) override it.
   */
  admitConsumer(_c: ConsumerTerms): void {}

  /** Checks a basic.nack / basic.reject before it is applied; stream queues refuse them (RabbitMQ 3.10). */
  checkRejectable(): void {}

  /** Throws ACCESS_REFUSED when an exclusive consumer would share the queue (RabbitMQ's text). */
  checkConsumable(exclusive: boolean): void {
    if (this.consumers.length > 0 && (exclusive || this.consumers.some((x) => x.exclusive))) {
      throw new BrokerError("accessRefused", `${describeResource("queue", this.name, this.vhost)} in exclusive use`);
    }
  }

  addConsumer(c: QueueConsumer<Queue>): void {
    this.checkConsumable(c.exclusive);
    insertConsumer(this.consumers, c, this.singleActiveConsumer);
    this.hadConsumer = true;
    this.lastActivity = this.now();
    this.host.consumerChanged?.(this, c, true);
    this.dispatch();
  }

  removeConsumer(c: QueueConsumer<Queue>): void {
    const i = this.consumers.indexOf(c);
    if (i < 0) return;
    this.consumers.splice(i, 1);
    this.lastActivity = this.now();
    this.host.consumerChanged?.(this, c, false);
    if (this.consumers.length === 0 && this.autoDelete && this.hadConsumer && !this.deleted) {
      this.host.queueUnused(this);
      return;
    }
    this.idle.arm();
    // The next consumer in line may become active (single active consumer).
    if (this.singleActiveConsumer) this.dispatch();
  }

  /**
   * basic.get: the oldest ready entry, or null; ack-mode gets are held like deliveries (`countsBodyHolds`: see QueueConsumer).
   * On a quorum queue a get always carries x-delivery-count, 0 the first time (RabbitMQ 3.10; a consumer's, from the first return). */
  get(noAck: boolean, countsBodyHolds = false): QueueEntry | null {
    const now = this.now();
    this.lastActivity = now;
    // Expired entries go at the head; paged-out ones are checked as they come back in.
    for (;;) {
      this.pageIn();
      if (this.hasTtl) this.expireHead(now);
      if (this.ready.length > 0 || this.log === null || this.log.pagedCount === 0) break;
    }
    const e = this.ready.shift();
    if (!e) this.stats.getEmpty++;
    if (!e) return null;
    if (this.hasTtl) this.armTtlTimer();
    this.stats[noAck ? "getNoAck" : "get"]++;
    if (!countsBodyHolds) e.message.lease?.pin();
    if (this.type === "quorum" && e.returns === 0) e.message = withHeader(e.message, "x-delivery-count", 0n);
    this.handOut(e, noAck);
    if (noAck) this.forget(e, null);
    return e;
  }

  /**
   * Gives ready messages to consumers that can take them. Cheap to call when there is nothing to do.
   * `at`: the time expiry is judged at (0: read the clock once a TTL needs it).
   */
  dispatch(at = 0): void {
    if (this.dispatching || this.deleted) return;
    this.dispatching = true;
    try {
      let now = at;
      this.pageIn();
      while (this.ready.length > 0 && this.consumers.length > 0) {
        const c = pickConsumer(this.consumers, this.turns, this.singleActiveConsumer);
        if (!c) break;
        const e = this.ready.shift()!;
        this.pageIn();
        if (e.expiresAt !== 0) {
          if (now === 0) now = this.now();
          // Strictly past: a TTL-0 entry may still go to a consumer in the tick it arrived.
          if (e.expiresAt < now) {
            this.forget(e, "expired");
            continue;
          }
        }
        if (c.noAck) this.stats.deliverNoAck++;
        else this.stats.deliver++;
        this.handOut(e, c.noAck);
        const lease = e.message.lease;
        if (lease !== null && c.countsBodyHolds !== true) lease.pin();
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

  /**
   * Ack-mode entries go back to their original positions, marked redelivered. `deliveryFailed`
   * false (AMQP 1.0's released, as RabbitMQ 4) returns them without counting toward a quorum
   * queue's delivery limit; every other return counts (0-9-1's requeue is RabbitMQ 4's
   * modify{delivery-failed}).
   */
  requeue(entries: readonly QueueEntry[], deliveryFailed = true): void {
    if (entries.length === 0) return;
    let back: readonly QueueEntry[] = entries;
    if (this.host.unstored !== null) back = this.dropUnstoredHeld(back, this.host.unstored);
    if (this.type === "quorum" && deliveryFailed) back = this.countReturns(back);
    for (const e of back) {
      this.release(e);
      e.redelivered = true;
    }
    if (this.deleted) {
      // A handed-over queue's returns stay in its group's store: the next leader delivers them again.
      if (!this.handedOver) for (const e of back) this.forget(e, null);
      return;
    }
    this.ready.requeue(back);
    if (this.hasTtl) this.expireHead(this.now());
    this.dispatch();
  }

  /** An ack-mode entry was rejected without requeue: it leaves the queue. */
  discard(e: QueueEntry): void {
    this.release(e);
    this.forget(e, "rejected");
  }

  /** Marks the queue deleted, tells its consumers, and drops its messages. Returns the ready count it had. */
  markDeleted(): number {
    if (this.deleted) return 0;
    const count = this.messageCount;
    this.deleted = true;
    this.claimHold?.gone(true);
    this.claimHold = null;
    const consumers = this.consumers;
    this.consumers = [];
    for (const c of consumers) c.cancelledByQueue(this);
    this.dropContents();
    this.idle.clear();
    return count;
  }

  handOver(): void {
    if (this.deleted) return;
    this.deleted = true;
    this.handedOver = true;
    const consumers = this.consumers;
    const held: QueueEntry[] = [];
    for (const c of consumers) c.heldEntries?.(this, held);
    this.heldAtHandOver = held;
    this.consumers = [];
    for (const c of consumers) c.cancelledByQueue(this);
    this.idle.clear();
    this.stopTimers();
  }

  /** Every death goes to the host, which counts it, and republishes it when there is a dead-letter exchange. */
  protected died(message: Message, reason: DeathReason): void {
    this.host.deadLetter(this, message, reason);
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

  /** Held entries of nacked messages (see QueueHost.unstored) leave instead of coming back. */
  private dropUnstoredHeld(entries: readonly QueueEntry[], unstored: WeakSet<Message>): readonly QueueEntry[] {
    return entries.filter((e) => {
      if (!unstored.has(e.message)) return true;
      this.release(e);
      this.forget(e, null);
      return false;
    });
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
}
