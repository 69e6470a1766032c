/**
 * What a durable queue asks of the message store, seen from the domain (which knows no files).
 * A queue gets one QueueLog from its host when it is durable and not exclusive; it calls
 * `append` where a persistent entry is accepted, `delivered` the first time an entry is handed
 * out in ack mode (so a restart can set the redelivered flag), and `forget` wherever an entry
 * leaves the queue forever (ack, reject without requeue, no-ack delivery, purge, delete, drop).
 *
 * Paging: once a queue holds more ready messages in memory than the store's limits, further
 * messages stay only on disk, in order, behind the in-memory ones (`pageOut`); the queue asks for
 * them back as its in-memory part runs low (`pageIn`). Recovered messages start out paged.
 */
import type { Message } from "../message.js";
import type { QueueEntry } from "./queue-entry.js";

/** Receives messages paged back in, oldest first (Queue.restore). */
export interface PageSink {
  restore(message: Message, redelivered: boolean, storeRef: number): void;
}

export interface QueueLog {
  /** Records a persistent entry; sets `e.storeRef`. */
  append(e: QueueEntry): void;
  delivered(e: QueueEntry): void;
  forget(e: QueueEntry): void;
  /** Messages (and their body bytes) that are only on disk. */
  readonly pagedCount: number;
  readonly pagedBytes: number;
  /** Persistent messages (and body bytes) the store holds for the queue, in memory or paged out. */
  readonly storedCount: number;
  readonly storedBytes: number;
  /** Takes the message onto disk only (true) when the queue is over its memory limits or already paging. */
  pageOut(message: Message, readyLength: number, readyBytes: number): boolean;
  /** Brings paged messages back into `sink` while the in-memory part is below the limits. */
  pageIn(sink: PageSink, readyLength: number, readyBytes: number): void;
  /** Drops every paged message for good (purge); returns how many. */
  dropPaged(): number;
  /** The queue was deleted: its paged messages are dropped and the log is released. */
  queueDeleted(): void;
}

/** Told when records written so far are on disk (fsync), or could not be written. */
export interface SyncWaiter {
  synced(token: number, ok: boolean): void;
}

export interface QueueJournal {
  /** The log of a durable queue. */
  forQueue(vhost: string, name: string): QueueLog;
  /** Grows by one per record appended: a publisher compares it before and after routing. */
  readonly appends: number;
  /** Calls `waiter.synced(token)` once every record appended so far is fsynced. */
  whenSynced(waiter: SyncWaiter, token: number): void;
}
