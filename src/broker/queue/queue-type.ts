/**
 * The queue-type interface: what every queue is to the rest of Coney, whatever keeps its
 * messages. Its shape follows RabbitMQ's `rabbit_queue_type` behaviour — declare-time checks,
 * publish (deliver), consume/cancel, settle (ack, requeue, discard), dequeue (`get`), purge,
 * delete, policy change, info and recover — as plain methods on the queue object.
 *
 * Implementations: classic and quorum queues (MessageQueue, queue.ts) and streams (StreamQueue,
 * streams/stream-queue.ts); neither subclasses the other. Every caller outside them — the AMQP
 * channel, MQTT, the stream protocol, shovels and federation, the management API, metrics, the
 * store's recovery, the cluster — holds a `Queue` and never the concrete class (the stream
 * protocol narrows to StreamQueue for what only a stream has), so a queue led by another node is
 * one more implementation (docs/CLUSTERING.md, "The seam").
 *
 * Cost: none per message. Callers make the same direct method calls on the same objects as
 * before the interface existed; an interface is only a compile-time type.
 */
import type { Binding } from "../binding.js";
import type { DeathReason } from "../dead-letter.js";
import type { Message } from "../message.js";
import type { FieldTable } from "../values/field-value.js";
import type { ConsumerActivity, QueueConsumer } from "./queue-consumer.js";
import type { QueueEntry } from "./queue-entry.js";
import type { QueueJournal } from "./queue-journal.js";
import type { QueueSettings } from "./queue-settings.js";
import type { QueueSpec } from "./queue-spec.js";
import type { ForwardedPublishes } from "./forwarded-publishes.js";
import type { QueueLeaderPort } from "./queue-leader-port.js";

/** The leader of a queue led by another node, and the broker's count of what it forwarded. */
export interface RemoteLeader {
  readonly port: QueueLeaderPort;
  readonly forwards: ForwardedPublishes;
}
import type { QueueType } from "./queue-type-rules.js";

/** Per-queue counters (the management API's message_stats). */
export interface QueueStats {
  publish: number;
  deliver: number;
  deliverNoAck: number;
  get: number;
  getNoAck: number;
  ack: number;
  redeliver: number;
  /** basic.get (or the management API's get) that found the queue empty. */
  getEmpty: number;
}

/** What a consumer asks for, as a queue type that restricts consumers checks it (Queue.admitConsumer). */
export interface ConsumerTerms {
  readonly noAck: boolean;
  /** The consumer's own prefetch (basic.qos global=false); 0 = none. */
  readonly prefetch: number;
  /** The channel-wide prefetch (basic.qos global=true); 0 = none. */
  readonly channelPrefetch: number;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** What a queue asks of its vhost. */
export interface QueueHost {
  /** An auto-delete queue lost its last consumer. */
  queueUnused(queue: Queue): void;
  /** The queue was unused for its `expires` time (x-expires / policy expires): delete it. */
  queueExpired(queue: Queue): void;
  /** Republishes a message that died in `queue` to the queue's dead-letter exchange. */
  deadLetter(queue: Queue, message: Message, reason: DeathReason): void;
  /** A consumer came or went (consumer.created / consumer.deleted events). */
  consumerChanged?(queue: Queue, consumer: QueueConsumer<Queue>, added: boolean): void;
  now(): number;
  /** The group a new queue joins (queue-groups.ts): `spec.group` when recorded and valid; null when exclusive. */
  placeQueue(vhost: string, spec: QueueSpec): number | null;
  /** A queue left its vhost: its group holds one queue fewer. */
  queueRemoved(queue: Queue): void;
  /**
   * Where a new queue is led when another node leads it (Broker.placement, set by the node's
   * composition: `coney --workers N`); null when this node leads it. Absent on a single node.
   */
  leaderElsewhere?(vhost: string, spec: QueueSpec): RemoteLeader | null;
  /** The message store for persistent messages in durable queues; absent = nothing is stored. */
  journal?: QueueJournal;
  /**
   * Messages whose publish was nacked after a failed store write (BrokerQueueHost.dropUnstored);
   * an unacked entry of one is dropped instead of requeued. Null until a write has ever failed.
   */
  unstored: WeakSet<Message> | null;
}

export interface Queue extends QueueSpec {
  readonly kind: "queue";
  /** Its queue group (queue-groups.ts): whose store keeps its messages; null for an exclusive queue. */
  readonly group: number | null;
  readonly vhost: string;
  readonly type: QueueType;
  /** As declared; replaced whole only by replaceExpires. */
  readonly arguments: FieldTable;
  readonly singleActiveConsumer: boolean;
  /** Bindings that route into this queue (the default exchange's implicit one excluded); kept by the vhost. */
  readonly boundFrom: Set<Binding>;
  /** Routing epoch stamp, see VHost.route. */
  routeEpoch: number;
  readonly createdAt: number;
  /** ms since epoch of the last consumer activity, for idle_since. */
  readonly lastActivity: number;
  /** True for a queue led by another node (remote-queue.ts): get, purge and delete are round trips to its leader. */
  readonly leadsElsewhere: boolean;
  /** The node leading it when another node does (RemoteQueue); null when this node leads it. */
  readonly leaderNode: string | null;

  // --- info (rabbit_queue_type:info / stat): what records, metrics and flow control read ---
  /** Resolved from arguments and policies (queue-settings.ts). */
  readonly settings: QueueSettings;
  readonly stats: QueueStats;
  /** Deliveries held in ack mode, not yet settled. */
  readonly unacked: number;
  readonly unackedBytes: number;
  /** Ready messages (a stream: the messages in its log). */
  readonly messageCount: number;
  readonly readyBytes: number;
  /** What publisher flow control (publish-flow.ts) weighs: what this queue has not yet caught up with. */
  readonly flowBacklog: number;
  readonly pagedOutCount: number;
  readonly pagedOutBytes: number;
  readonly persistentCount: number;
  readonly persistentBytes: number;
  /** The `timestamp` property of the message at the head, if it has one. */
  readonly headTimestamp: number | null;
  readonly consumerCount: number;
  readonly isDeleted: boolean;
  /**
   * Whether a consumer that `borrowsBodies` may be handed bodies valid only until its deliver()
   * returns (a stream reader reuses its chunk buffer): such a consumer copies them.
   */
  readonly lendsBodies: boolean;
  /** Whether its entries may count as holders of a lent body (values/body-lease.ts). */
  readonly countsBodyHolds: boolean;
  listConsumers(): readonly QueueConsumer<Queue>[];
  /** RabbitMQ's consumer activity: "up", or "single_active" / "waiting" on a single-active-consumer queue. */
  consumerActivity(c: QueueConsumer<Queue>): ConsumerActivity;
  /** The ready entries in order, for inspection (coney/testing); a stream has none. */
  readyEntries(): Iterable<QueueEntry>;

  // --- declare (rabbit_queue_type:declare / is_compatible / policy_changed) ---
  /** RabbitMQ's exclusive-queue rule; `strict` (redeclare) also refuses an exclusive declare of a queue that is not exclusive. */
  checkExclusiveAccess(owner: object | null, strict?: boolean): void;
  /** Redeclare counts as use for x-expires. */
  touch(): void;
  /** A policy (or operator policy) took effect or changed. */
  applyPolicy(definition: Readonly<Record<string, unknown>>): void;
  /** Replaces the queue's x-expires argument (MQTT 5 session expiry), settings resolved again with `policy`. */
  replaceExpires(ms: number, policy: Readonly<Record<string, unknown>>): void;

  // --- publish (rabbit_queue_type:deliver) ---
  /** Accepts a routed message; false when the queue refuses it (the publisher sees a nack). */
  enqueue(message: Message): boolean;

  // --- consume / cancel ---
  /** Checks a consumer before consume-ok (acknowledgement mode, prefetch, arguments). */
  admitConsumer(c: ConsumerTerms): void;
  /** Throws ACCESS_REFUSED when an exclusive consumer would share the queue. */
  checkConsumable(exclusive: boolean): void;
  addConsumer(c: QueueConsumer<Queue>): void;
  removeConsumer(c: QueueConsumer<Queue>): void;
  /** Gives ready messages to consumers that can take them (a consumer gained capacity). */
  dispatch(): void;

  // --- settle ---
  /** Checks a basic.nack / basic.reject before it is applied. */
  checkRejectable(): void;
  /** An ack-mode entry was acknowledged. */
  settle(e: QueueEntry): void;
  /** Ack-mode entries go back (or, on a stream, only return their credit); `deliveryFailed` (default true) counts toward a delivery limit. */
  requeue(entries: readonly QueueEntry[], deliveryFailed?: boolean): void;
  /** An ack-mode entry was rejected without requeue. */
  discard(e: QueueEntry): void;

  // --- dequeue, purge, delete ---
  /** basic.get: the oldest ready entry, or null. */
  get(noAck: boolean, countsBodyHolds?: boolean): QueueEntry | null;
  /** queue.purge: drops the ready messages; returns how many. */
  purge(): number;
  /** Marks the queue deleted, tells its consumers, drops its messages; returns the count delete-ok reports. */
  markDeleted(): number;
  /**
   * The queue's group moved to another node (docs/CLUSTERING.md, "Built: group stores under the
   * workers"): its consumers are cancelled and nothing is dispatched any more, but its messages stay
   * in its group's store for the next leader — an entry settled or returned from now on leaves the
   * store as it is (an ack may still be written before the store closes; a return is left there).
   */
  handOver(): void;

  // --- recover (rabbit_queue_type:recover), and the store's failed-write repair ---
  /** Recovery is over: timers (TTL at the head) start. */
  recovered(): void;
  /** A failed store write lost records: adds the messages of ready entries whose record is lost. */
  collectUnstored(isLost: (ref: number) => boolean, into: Set<Message>): void;
  /** Drops every ready entry of these (nacked) messages; returns how many. */
  dropMessages(lost: ReadonlySet<Message>): number;
}
