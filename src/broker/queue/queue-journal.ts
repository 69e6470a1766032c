/**
 * What a durable queue asks of the message store, seen from the domain (which knows no files).
 * A queue gets one QueueLog from its host when it is durable and not exclusive; it calls
 * `append` where a persistent entry is accepted, `delivered` the first time an entry is handed
 * out in ack mode (so a restart can set the redelivered flag), and `forget` wherever an entry
 * leaves the queue forever (ack, reject without requeue, no-ack delivery, purge, delete, drop).
 *
 * Paging: once a queue holds more ready messages in memory than the store's limits, further
 * messages stay only on disk, in order, behind the in-memory ones (`pageOut`); the queue asks for
 * them back as its in-memory part runs low (`pageIn`). Recovered messages start out paged. A
 * priority queue pages each priority level on its own, so a message on disk is never passed by
 * one of a lower priority in memory.
 */
import type { Message } from "../message.js";
import type { StreamLog } from "../streams/stream-log.js";
import type { QueueEntry } from "./queue-entry.js";

/** Receives messages paged back in, oldest first (Queue.restore). */
export interface PageSink {
  restore(message: Message, redelivered: boolean, storeRef: number): void;
}

/** The in-memory ready list as paging sees it. */
export interface ReadyFill {
  readonly length: number;
  readonly bytes: number;
  /** Ready entries in memory at a priority level (a plain queue has level 0 only). */
  levelLength(level: number): number;
  /** The highest priority level with entries in memory; -1 when there are none. */
  topLevel(): number;
}

export interface QueueLog {
  /** Records a persistent entry; sets `e.storeRef`. */
  append(e: QueueEntry): void;
  delivered(e: QueueEntry): void;
  forget(e: QueueEntry): void;
  /** Messages (and their body bytes) that are only on disk. */
  readonly pagedCount: number;
  readonly pagedBytes: number;
  /** Paged messages that are transient (written only to keep their place; a recovery skips them). */
  readonly pagedTransientCount: number;
  /** Persistent messages (and body bytes) the store holds for the queue, in memory or paged out. */
  readonly storedCount: number;
  readonly storedBytes: number;
  /** Takes the message onto disk only (true) when the queue is over its memory limits or already paging. */
  pageOut(message: Message, ready: ReadyFill): boolean;
  /**
   * Brings paged messages back into `sink` while the in-memory part is below the limits, and
   * always when a paged message outranks every one in memory (priority queues).
   */
  pageIn(sink: PageSink, ready: ReadyFill): void;
  /** Brings back only the oldest paged message (of the highest priority level): a queue's head, to time its expiry. */
  pageInOne(sink: PageSink): void;
  /** Drops every paged message for good (purge); returns how many. */
  dropPaged(): number;
  /** The queue was deleted: its paged messages are dropped and the log is released. */
  queueDeleted(): void;
}

/** Told when records written so far are on disk (fsync), or could not be written. */
export interface SyncWaiter {
  synced(token: number, ok: boolean): void;
}

/**
 * A failed write lost records (a full disk): `isLost` tells a record ref that was never stored;
 * `lost` already holds the messages of lost paged-out records, and the handler adds and drops the
 * rest. Their publishers are nacked, so those messages must be enqueued nowhere. Refs are a
 * store's own: `group` names the queue group whose store lost them (queue-groups.ts).
 */
export type LostRecordsHandler = (isLost: (ref: number) => boolean, lost: Set<Message>, group: number) => void;

export interface QueueJournal {
  /** Set by the broker: called on the failure path only (MessageStore.writeFailed). */
  lostRecords: LostRecordsHandler | null;
  /** How many queue groups it keeps apart (docs/CLUSTERING.md): each group's messages in its own store. */
  readonly groups: number;
  /**
   * The store slot of what belongs to no group (the delayed exchange's hidden queues) when a
   * node's groups move between nodes (`coney --workers N`): this node's own store, which never
   * moves. Absent: such a queue takes its name's group, as everything else.
   */
  readonly nodeGroup?: number;
  /**
   * The log of a durable queue in queue group `group` (< groups); `maxPriority` > 0 for a
   * priority queue (x-max-priority).
   */
  forQueue(vhost: string, name: string, maxPriority: number, group: number): QueueLog;
  /** Grows by one per message record appended: Broker.publish compares it before and after enqueueing. */
  readonly appends: number;
  /** Calls `waiter.synced(token)` once every record appended so far is fsynced. */
  whenSynced(waiter: SyncWaiter, token: number): void;
  /**
   * The log of a stream queue (docs/STREAMS.md): its messages are appended in the store's group
   * commit (they count in `appends`, so a confirm waits for their fsync). Throws a BrokerError
   * when this store cannot keep streams.
   */
  /** `filterBytes`: the size of a chunk's filter when its messages carry filter values (x-stream-filter-size-bytes); `group` as for forQueue. */
  forStream(vhost: string, name: string, segmentBytes: number, filterBytes: number | undefined, group: number): StreamLog;
}
