/**
 * What a queue needs from a consumer. The AMQP channel implements it (and so does the direct
 * reply-to pseudo-consumer); the queue knows nothing of frames or sockets.
 *
 * `Q` is the queue that hands entries over. queue.ts uses QueueConsumer<Queue>; this module does
 * not import queue.ts (which imports it), so the default leaves the type to the implementer,
 * whose own parameter type (Queue) is what it receives.
 */
import type { FieldTable } from "../values/field-value.js";
import type { QueueEntry } from "./queue-entry.js";

/** Whether a consumer gets messages: always on an ordinary queue, one at a time with single active consumer. */
export type ConsumerActivity = "up" | "single_active" | "waiting";

/** What a consumer tells about itself for consumer.created (its channel, user, prefetch, arguments). */
export interface ConsumerDescription {
  readonly channel: string;
  readonly user: string;
  readonly prefetchCount: number;
  readonly arguments: FieldTable;
}

export interface QueueConsumer<Q = unknown> {
  readonly tag: string;
  readonly noAck: boolean;
  readonly exclusive: boolean;
  /** x-priority: higher priority consumers get messages first while they have capacity. */
  readonly priority: number;
  /** Identity of the owning connection, for exclusive-queue checks. */
  readonly owner: object;
  /**
   * True when deliver() is done with the entry's body once it returns (it copies what it sends or
   * keeps), so a queue whose `lendsBodies` is true may hand it a body in a buffer it reuses for the
   * next messages (a stream reading a large backlog: no garbage buffer per chunk). Absent: every
   * body it gets stays valid as long as it holds it (a shovel keeps bodies past deliver()).
   */
  readonly borrowsBodies?: boolean;
  /**
   * True when the consumer counts its holds on a lent body (values/body-lease.ts): each write of
   * it holds until written, and the entry's hold is released once settled or, no-ack, delivered.
   * Absent: the queue pins a lent body before handing it over.
   */
  readonly countsBodyHolds?: boolean;
  /** True while the consumer can take one more message (prefetch not exhausted, channel flowing). */
  canTake(): boolean;
  /**
   * Hands over one entry. Ack-mode consumers keep it until acked, rejected or requeued and then
   * call queue.settle / queue.requeue; no-ack consumers own it immediately.
   */
  deliver(queue: Q, entry: QueueEntry): void;
  /**
   * Adds to `into` the entries of `queue` it holds unsettled: a planned hand-over of the queue's
   * group carries them to the next leader (operations/queue-carry.ts). Absent: none are carried.
   */
  heldEntries?(queue: Q, into: QueueEntry[]): void;
  /** The queue went away (deleted): RabbitMQ's consumer_cancel_notify sends basic.cancel. */
  cancelledByQueue(queue: Q): void;
  /** Its channel, user, prefetch and arguments, for consumer.created (asked only while events are wanted). */
  describe?(): ConsumerDescription;
}
