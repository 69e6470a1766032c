/**
 * What a durable queue asks of the message store, seen from the domain (which knows no files).
 * A queue gets one QueueLog from its host when it is durable and not exclusive; it calls
 * `append` where a persistent entry is accepted, `delivered` the first time an entry is handed
 * out in ack mode (so a restart can set the redelivered flag), and `forget` wherever an entry
 * leaves the queue forever (ack, reject without requeue, no-ack delivery, purge, delete, drop).
 */
import type { QueueEntry } from "./queue-entry.js";

export interface QueueLog {
  /** Records a persistent entry; sets `e.storeRef`. */
  append(e: QueueEntry): void;
  delivered(e: QueueEntry): void;
  forget(e: QueueEntry): void;
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
