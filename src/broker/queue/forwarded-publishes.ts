/**
 * Publisher confirms for messages forwarded to queues led by other nodes (docs/CLUSTERING.md, "A
 * publish that crosses nodes", step 6): a publish is confirmed once every target has stored it —
 * the local store (its fsync) and every leader it was forwarded to — and nacked when any refused
 * it or a link was lost first. One pending counter per publish (StoreJoin), as for several local
 * queues.
 *
 * Broker.publish reads `count` before and after enqueueing (as it reads the journal's `appends`):
 * a change makes the outcome PUBLISH_STORED, and the caller's `whenStored` then lands in `wait`,
 * which waits on the ports touched since the last wait. Invariant: `port` and `touched` name each
 * port at most once, with the first and last position forwarded over it since the last wait;
 * `touched` is empty while `port` is null. Its length
 * is bounded by the number of nodes (one entry in the usual case), so the search is not a scan
 * over messages or queues. Nothing here runs for a publish that forwards nothing.
 */
import type { QueueJournal, SyncWaiter } from "./queue-journal.js";
import type { QueueLeaderPort } from "./queue-leader-port.js";

/** What a publish forwarded to reports stored: a leader's port, or a queue's claim hold (claim-hold.ts). */
export type StoredSource = Pick<QueueLeaderPort, "whenStored">;

interface Touch {
  port: StoredSource;
  first: number;
  last: number;
}

/** Waits for several sources, then tells the publisher once: ok only when every source said ok. */
class StoreJoin implements SyncWaiter {
  private ok = true;
  constructor(private pending: number, private readonly waiter: SyncWaiter, private readonly token: number) {}

  synced(_token: number, ok: boolean): void {
    if (!ok) this.ok = false;
    if (--this.pending === 0) this.waiter.synced(this.token, this.ok);
  }
}

export class ForwardedPublishes {
  /** Grows by one per forwarded message. */
  count = 0;
  /** A forwarded publish also appended to the local store (its confirm waits for both). */
  journalToo = false;
  /**
   * The first port touched since the last wait, in fields (the usual publish forwards over one
   * link: no object per publish), and any others in `touched`.
   */
  private port: StoredSource | null = null;
  private first = 0;
  private last = 0;
  private touched: Touch[] = [];

  /** RemoteQueue.enqueue forwarded a message over `port` at `position` (or a ClaimHold held one). */
  noteForward(port: StoredSource, position: number): void {
    this.count++;
    if (this.port === null) {
      this.port = port;
      this.first = this.last = position;
      return;
    }
    if (this.port === port) {
      this.last = position;
      return;
    }
    const touched = this.touched;
    for (let i = 0; i < touched.length; i++) {
      const t = touched[i]!;
      if (t.port === port) {
        t.last = position;
        return;
      }
    }
    touched.push({ port, first: position, last: position });
  }

  /** Broker.publish forwarded this publish: its outcome is PUBLISH_STORED (3), waiting also on the store when `appended`. */
  stored(appended: boolean): 3 {
    if (appended) this.journalToo = true;
    return 3;
  }

  /** True when something was forwarded since the last wait. */
  get pending(): boolean {
    return this.port !== null;
  }

  /** Broker.whenStored for a publish that forwarded: waits for the ports (and the store when it appended too). */
  wait(waiter: SyncWaiter, token: number, journal: QueueJournal | null): void {
    const port = this.port;
    const touched = this.touched;
    if (touched.length > 0) this.touched = [];
    this.port = null;
    const withJournal = this.journalToo && journal !== null;
    this.journalToo = false;
    const sources = (port === null ? 0 : 1) + touched.length + (withJournal ? 1 : 0);
    const target = sources === 1 ? waiter : new StoreJoin(sources, waiter, token);
    if (withJournal) journal.whenSynced(target, token);
    port?.whenStored(target, token, this.first, this.last);
    for (const t of touched) t.port.whenStored(target, token, t.first, t.last);
  }
}
