/**
 * When a follower counts for confirms (docs/CLUSTERING.md, "Falling behind"): the leader's record
 * of when each recent batch went out, and the three bounds that decide, from a follower's
 * acknowledgements, whether confirms wait for it.
 *   - demote: a batch a confirm waits for unacknowledged for `ackTimeoutMs`, while at least
 *     min-in-sync listed followers hold it (so confirms can go on without the late one) — the
 *     follower stops being required (it is taken out of the in-sync set in etcd before any confirm
 *     goes without it) but stays connected and keeps receiving frames;
 *   - promote: its acknowledgement of a batch sent less than half that bound ago, or of every batch
 *     sent so far, or any acknowledgement while fewer than min-in-sync followers are listed (confirms
 *     wait then anyway: requiring it adds no wait and is the way back) — confirms wait for it again,
 *     and it is listed in sync once it acknowledged what was sent by then;
 *   - disconnect: silent (no acknowledgement) for `LAG_LIMIT_MS` while frames are outstanding.
 * The half-bound gap between demote and promote keeps a follower that is merely as slow as the
 * bound from flapping in and out, each time pausing confirms for a whole bound.
 */

/** How often the leader checks its lease, its followers' pace and the in-sync set; a tick twice as late means its event loop stalled. */
export const TICK_MS = 100;

/** A follower that acknowledges nothing for this long while batches are outstanding is disconnected (it re-syncs when it returns). */
export const LAG_LIMIT_MS = 5000;

/** How many recent batches' send times are kept; an acknowledgement of an older one counts as late. */
const WINDOW = 1024;

export class BatchClock {
  private readonly sentAt = new Float64Array(WINDOW);
  private last = -1;

  /** Batch `batch` (numbered upwards by the store) was handed to the followers at `now`. */
  sent(batch: number, now: number): void {
    this.sentAt[batch % WINDOW] = now;
    this.last = batch;
  }

  /** How long ago `batch` was sent; Infinity when it is older than the window (or was never recorded). */
  ageOf(batch: number, now: number): number {
    if (batch < 0 || batch > this.last || this.last - batch >= WINDOW) return Infinity;
    return now - this.sentAt[batch % WINDOW]!;
  }
}

/**
 * Whether a live follower that just acknowledged `acked` may become required: it holds its
 * snapshot, and it is close behind — every batch sent so far acknowledged (an idle store), or the
 * acknowledged batch sent less than half the ack bound ago — or too few followers are listed in
 * sync (`short`) for any confirm to go out without it.
 */
export function mayRequire(acked: number, snapBatch: number, lastBatch: number, ageOfAcked: number, ackTimeoutMs: number, short: boolean): boolean {
  if (acked < snapBatch) return false;
  return short || acked >= lastBatch || ageOfAcked < ackTimeoutMs / 2;
}

/** What the pace rules read of a follower link (follower-link.ts). */
export interface PacedFollower {
  readonly required: boolean;
  readonly state: "waiting" | "snapshot" | "live";
  readonly acked: number;
  readonly snapBatch: number;
  readonly lastAckAt: number;
}

/** The oldest batch whose confirms wait, and since when (performance.now()). */
export interface Waiting {
  readonly batch: number;
  readonly since: number;
}

/**
 * This tick's verdict on one follower: "demote" a required one that has not acknowledged the
 * oldest batch a confirm waits for (`waiting`) within the ack bound, when confirms could go on
 * without it (`spare`: enough listed followers hold that batch); "drop" (disconnect) one past its
 * snapshot with batches outstanding and no acknowledgement for LAG_LIMIT_MS (counted from the
 * later of its last acknowledgement and the first batch it lacks going out).
 */
export function paceVerdict(l: PacedFollower, waiting: Waiting | undefined, spare: boolean, lastBatch: number, clock: BatchClock, now: number, ackTimeoutMs: number): "keep" | "demote" | "drop" {
  if (l.state !== "live" || l.acked < l.snapBatch) return "keep";
  if (l.required && spare && waiting !== undefined && l.acked < waiting.batch && now - waiting.since > ackTimeoutMs) return "demote";
  if (l.acked >= lastBatch) return "keep";
  return Math.min(now - l.lastAckAt, clock.ageOf(l.acked + 1, now)) > LAG_LIMIT_MS ? "drop" : "keep";
}

/** Whether at least `min` followers listed in sync hold `batch` and are required: confirms of it need no other follower. */
export function spareFor(batch: number, inSync: ReadonlySet<string>, links: ReadonlyMap<string, InSyncCandidate>, min: number): boolean {
  let holding = 0;
  for (const name of inSync) {
    const l = links.get(name);
    if (l !== undefined && l.required && l.acked >= batch) holding++;
  }
  return holding >= min;
}

/** What the in-sync computation reads of a follower link (follower-link.ts). */
export interface InSyncCandidate {
  readonly required: boolean;
  readonly acked: number;
  readonly joinTarget: number;
}

/**
 * The in-sync set etcd should list next, or null when it lists the right one. Removals come
 * alone and first (etcd must stop listing a follower before a confirm goes out without it), then
 * additions: required followers that acknowledged everything sent when they became required
 * (confirms have waited for them since, so they hold every confirmed message).
 */
export function nextInSync(inSync: ReadonlySet<string>, links: ReadonlyMap<string, InSyncCandidate>): string[] | null {
  const keep = [...inSync].filter((n) => links.get(n)?.required === true);
  if (keep.length !== inSync.size) return keep;
  const added: string[] = [];
  for (const [name, l] of links) if (l.required && l.acked >= l.joinTarget && !inSync.has(name)) added.push(name);
  return added.length === 0 ? null : [...keep, ...added];
}
