/**
 * What a queue holds: its ready entries in order, in memory (ready-list.ts, or one list per
 * priority) and, for a durable queue, in the message store. Entries enter through arrive() and
 * leave for good through forget(), the two places a message store hooks; restore() takes back
 * messages the store paged out.
 *
 * Persistence: a durable, non-exclusive queue gets a QueueLog from the message store. arrive()
 * stores persistent entries, forget() tells the store they are gone, and beyond the store's
 * memory limits messages stay on disk only (pageOut) and come back through restore() as the
 * in-memory part runs low (pageIn); a priority queue's log pages each priority level apart.
 *
 * The rules that drop entries from the head live here too. TTL (RabbitMQ's semantics): an
 * entry's expiry is fixed on arrival (message-expiry.ts); expired entries are dropped only at the
 * head, when a delivery reaches them or when the one TTL timer fires, never by scanning the
 * queue. Length limits (length-limit.ts): drop-head overflow drops the oldest while over a limit.
 *
 * MessageQueue (queue.ts) extends this class with consumers, delivery and acknowledgement; what
 * every queue type shares (identity, counters, settings) is DeclaredQueue, below it. One object
 * on purpose: a message costs plain method calls on it, never a hop to a helper object.
 */
import type { DeathReason } from "../dead-letter.js";
import type { Message } from "../message.js";
import { DeadlineTimer } from "./deadline-timer.js";
import { DeclaredQueue } from "./declared-queue.js";
import { isOverLimit } from "./length-limit.js";
import { messageTtl } from "./message-expiry.js";
import { PriorityReadyList } from "./priority-ready-list.js";
import type { QueueEntry } from "./queue-entry.js";
import type { PageSink, QueueLog } from "./queue-journal.js";
import { maxPriorityOf } from "./queue-settings.js";
import type { QueueSpec } from "./queue-spec.js";
import type { QueueHost } from "./queue-type.js";
import { ReadyList, type ReadyEntries } from "./ready-list.js";

export abstract class QueueContents extends DeclaredQueue implements PageSink {
  protected readonly ready: ReadyEntries;
  /** Set for durable, non-exclusive queues when the broker has a message store. */
  protected readonly log: QueueLog | null;
  /** A non-durable queue's log of the records a planned hand-over wrote (storeForHandOver); null otherwise. */
  private carryLog: QueueLog | null = null;
  /** Set once an entry with an expiry arrives: from then on the TTL timer is kept armed. */
  protected hasTtl = false;
  private nextSeq = 1;
  /** Expiry of the head entry (message TTL). */
  private readonly ttlTimer: DeadlineTimer;

  constructor(vhost: string, spec: QueueSpec, host: QueueHost) {
    super(vhost, spec, host);
    const maxPriority = maxPriorityOf(spec.arguments);
    this.ready = maxPriority > 0 ? new PriorityReadyList(maxPriority) : new ReadyList();
    this.ttlTimer = new DeadlineTimer(() => {
      if (!this.deleted) this.expireHead(this.now());
    }, host.now);
    const stored = spec.durable && spec.exclusiveOwner === null;
    this.log = stored && host.journal ? host.journal.forQueue(vhost, spec.name, maxPriority, spec.group ?? 0) : null;
  }

  /** An entry left with a death reason: dead-lettered, or only counted when there is no dead-letter exchange. */
  protected abstract died(message: Message, reason: DeathReason): void;

  /** Ready messages, including those paged out to the message store. */
  get messageCount(): number {
    return this.log === null ? this.ready.length : this.ready.length + this.log.pagedCount;
  }

  /**
   * What publisher flow control (publish-flow.ts) weighs: messages this queue holds that its
   * consumers have not taken yet. A stream counts what its writer has not committed instead.
   */
  get flowBacklog(): number {
    return this.messageCount;
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

  readyEntries(): Iterable<QueueEntry> {
    return this.ready;
  }

  /** A stored message paged back in (after the ones in memory), without being stored again. */
  restore(message: Message, redelivered: boolean, storeRef: number): void {
    const ttl = messageTtl(this.settings.messageTtl, message.properties.expiration);
    if (ttl >= 0) this.hasTtl = true;
    this.ready.push({ message, seq: this.nextSeq++, redelivered, deliveryCount: 0, returns: 0, expiresAt: ttl < 0 ? 0 : message.publishedAt + ttl, storeRef });
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

  /** queue.purge: drops the ready messages (not the unacknowledged ones); returns how many. */
  purge(): number {
    const dropped = this.ready.clear();
    for (const e of dropped) this.forget(e, null);
    return dropped.length + (this.log === null ? 0 : this.log.dropPaged());
  }

  /**
   * A planned hand-over of its group (operations/queue-carry.ts): what only memory holds is
   * written to the group's store, so the next leader recovers it. `carry` is the log a queue
   * without one of its own (non-durable) writes into; `held` the entries its consumers held
   * unsettled at the hand-over. A durable queue holding nothing unstored writes nothing;
   * otherwise every message is written again in queue order (by seq: a held entry where a requeue
   * would put it back), so the store's sequence (recovery's order) is the queue's — its paged-out
   * tail read back first, and each old record dropped. A transient message is written as a
   * persistent record (a recovery skips transient ones); one delivered before gets its delivered
   * mark (redelivered at the next leader). A held entry settled before the store closes drops its
   * new record as before (forget). Returns how many were written.
   */
  storeForHandOver(carry: QueueLog | null, held: readonly QueueEntry[]): number {
    const own = this.log;
    const log = own ?? carry;
    if (log === null) return 0;
    if (own !== null) {
      let unstored = own.pagedTransientCount > 0;
      for (const e of this.ready) if (!e.storeRef) unstored = true;
      for (const e of held) if (!e.storeRef) unstored = true;
      if (!unstored) return 0;
      while (own.pagedCount > 0) own.pageInOne(this);
    } else {
      this.carryLog = carry;
    }
    const entries = [...held, ...this.ready].sort((a, b) => a.seq - b.seq);
    for (const e of entries) {
      if (e.storeRef) log.forget(e);
      if (!e.message.persistent) e.message = { ...e.message, persistent: true };
      log.append(e);
      if (e.redelivered || e.deliveryCount > 0) log.delivered(e);
    }
    return entries.length;
  }

  /**
   * A stored message moved in from another store (a data dir taken over, src/workers/store-drain.ts):
   * written to this queue's log only, with its delivered mark when it had one there, so the next
   * start recovers it as a restart would (redelivered). Never on a message path; the queue's
   * memory is not touched (the record waits in the store's write buffer for its fsync). False
   * when the queue has no log (not durable, or exclusive).
   */
  storeMovedIn(message: Message, redelivered: boolean): boolean {
    if (this.log === null) return false;
    const e: QueueEntry = { message, seq: 0, redelivered, deliveryCount: 0, returns: 0, expiresAt: 0, storeRef: 0 };
    this.log.append(e);
    if (redelivered) this.log.delivered(e);
    return true;
  }

  /** The one place an entry enters the queue; `expiresAt` 0 = never. */
  protected arrive(message: Message, expiresAt: number): void {
    const e: QueueEntry = { message, seq: this.nextSeq++, redelivered: false, deliveryCount: 0, returns: 0, expiresAt, storeRef: 0 };
    if (this.log !== null && message.persistent) this.log.append(e);
    this.ready.push(e);
  }

  /** The one place an entry leaves the queue for good; with a death reason it has died (see died()). */
  protected forget(e: QueueEntry, reason: DeathReason | null): void {
    // A non-durable queue's entry has a record only once carried (storeForHandOver).
    if (e.storeRef) (this.log ?? this.carryLog!).forget(e);
    if (reason !== null) this.died(e.message, reason);
  }

  /** Brings messages paged out to the store back into memory when the ready list runs low. */
  protected pageIn(): void {
    if (this.log !== null && this.log.pagedCount > 0) this.log.pageIn(this, this.ready);
  }

  /** The queue is deleted: its messages go without dying (RabbitMQ does not dead-letter them) and the log is released. */
  protected dropContents(): void {
    if (this.ready.length > 0) for (const e of this.ready.clear()) this.forget(e, null);
    this.log?.queueDeleted();
    this.ttlTimer.clear();
  }

  /** The TTL timer stops (a handed-over queue: its entries are the next leader's). */
  protected stopTimers(): void {
    this.ttlTimer.clear();
  }

  /** drop-head: drops (dead-letters, reason maxlen) the oldest ready entries while over a limit. */
  protected trim(): void {
    const s = this.settings;
    if (s.overflow !== "drop-head") return;
    while (isOverLimit(s, this.messageCount, this.readyBytes)) {
      // The oldest may be paged out: bring the head back first.
      if (this.ready.length === 0) this.pageIn();
      const e = this.ready.shift();
      if (!e) break;
      this.forget(e, "maxlen");
    }
    if (this.hasTtl) this.armTtlTimer();
  }

  /**
   * Drops expired entries at the head (only there, as RabbitMQ does) and re-arms the timer. When
   * the in-memory part runs empty, the next head is brought back from the store so its expiry is
   * timed too, consumers or not.
   */
  protected expireHead(now: number): void {
    for (;;) {
      let e = this.ready.peek();
      if (e === undefined && this.log !== null && this.log.pagedCount > 0) {
        this.log.pageInOne(this);
        e = this.ready.peek();
      }
      if (!e || e.expiresAt === 0 || e.expiresAt > now) break;
      this.ready.shift();
      this.forget(e, "expired");
    }
    this.armTtlTimer();
  }

  /**
   * After recovery, where every message starts out paged: the head comes back to memory so that a
   * TTL on it (the queue's or its own) is timed even if nobody consumes (RabbitMQ expires at the
   * head regardless of consumers). One message per queue, whatever its depth.
   */
  recovered(): void {
    if (this.ready.length === 0 && this.log !== null && this.log.pagedCount > 0) this.log.pageInOne(this);
    if (this.hasTtl) this.expireHead(this.now());
  }

  /** Aims the TTL timer at the head's expiry, when the head has one. */
  protected armTtlTimer(): void {
    const head = this.ready.peek();
    if (head && head.expiresAt !== 0 && !this.deleted) this.ttlTimer.armBy(head.expiresAt);
  }
}
