/**
 * Holding a new queue's messages while its home claim is undecided (a spread cluster:
 * docs/CLUSTERING.md, "One name declared on two nodes at once"; the hold itself is
 * queue/claim-hold.ts). The cluster's definitions log calls these: `holdUntilClaimed` in the same
 * turn as the client's declare (before anything can be routed to the queue), then exactly one of
 * `claimWon`, or `takeClaimHold` + `releaseToWinner` once the queue was replaced by a RemoteQueue.
 *
 * Classic and quorum queues (MessageQueue) and streams (StreamQueue) hold: a held message reaches
 * a stream's log only once its claim is won (a native publisher's append is refused meanwhile,
 * stream_not_available: stream-queue.ts).
 */
import { ClaimHold } from "../queue/claim-hold.js";
import type { ForwardedPublishes } from "../queue/forwarded-publishes.js";
import type { QueueJournal } from "../queue/queue-journal.js";
import { MessageQueue } from "../queue/queue.js";
import type { Queue } from "../queue/queue-type.js";
import { RemoteQueue } from "../queue/remote-queue.js";
import { StreamQueue } from "../streams/stream-queue.js";

interface HoldingBroker {
  readonly forwards: ForwardedPublishes;
  readonly journal: QueueJournal | null;
}

/** The queue types that hold while their claim is undecided (each has a `claimHold` its enqueue checks). */
const holds = (q: Queue | undefined): q is MessageQueue | StreamQueue => q instanceof MessageQueue || q instanceof StreamQueue;

/** From now on what is routed to `q` waits for its claim's outcome; false when `q` cannot hold (a RemoteQueue). */
export function holdUntilClaimed(b: HoldingBroker, q: Queue): boolean {
  if (!holds(q) || q.claimHold !== null || q.isDeleted) return false;
  q.claimHold = new ClaimHold(b.forwards);
  return true;
}

/** The claim was won: what `q` held is enqueued in order, its publishers confirmed once stored. */
export function claimWon(b: HoldingBroker, q: Queue): void {
  if (!holds(q) || q.claimHold === null) return;
  const hold = q.claimHold;
  q.claimHold = null;
  hold.won((m) => q.enqueue(m), b.journal);
}

/** The claim was lost: `q` stops holding (before it is replaced); its hold goes to releaseToWinner. */
export function takeClaimHold(q: Queue | undefined): ClaimHold | null {
  if (!holds(q) || q.claimHold === null) return null;
  const hold = q.claimHold;
  q.claimHold = null;
  return hold;
}

/** What a lost claim's queue held goes, in order, to the winner's queue (`now`, the RemoteQueue that replaced it); nacked when there is none. */
export function releaseToWinner(hold: ClaimHold, now: Queue | undefined): void {
  if (now instanceof RemoteQueue) hold.lost(now.leader, now);
  else hold.gone(false);
}
