/**
 * Fresh counts for the management API's queue reads under `coney --workers N` and in a spread
 * cluster (docs/CLUSTERING.md, "Counts of a queue led elsewhere"). A RemoteQueue keeps the counts
 * its leader last reported; a read that answered them as they were, asking again behind the
 * answer, showed the figures of before the last change on the first read after idle. Here a read
 * waits for the answer of every queue whose counts are older than INFO_MAX_AGE_MS:
 *
 * - one ask per leading node for all of its stale queues (QueueLeaderPort.infoMany: one frame and
 *   one reply on the link), so a list of 10,000 queues costs a round trip per node, not per queue;
 * - a queue whose ask is already on its way (a background refresh, another read) joins it;
 * - a stream led elsewhere has its log's figures asked too (one STREAM_QUERY per stream);
 * - the wait is bounded (COUNTS_WAIT_MS): a leader that does not answer in time leaves the last
 *   known counts, and the queue says so (`countsStale`, shown by the API), as RabbitMQ's management
 *   answers from its last sample. A leader whose link is down is not asked.
 *
 * Never on a message's path: only the API calls it.
 */
import type { QueueLeaderPort } from "./queue-leader-port.js";
import type { Queue } from "./queue-type.js";
import { RemoteQueue } from "./remote-queue.js";
import { RemoteStreamQueue } from "../streams/remote-stream-queue.js";

/** How long a read waits for leaders' counts before it answers the last known ones. */
export const COUNTS_WAIT_MS = 1000;

/** Resolves once every remote queue among `queues` has counts no older than INFO_MAX_AGE_MS, or after `waitMs`. */
export function awaitFreshCounts(queues: Iterable<Queue>, waitMs: number = COUNTS_WAIT_MS): Promise<void> {
  const waits: Promise<void>[] = [];
  const stale = new Map<QueueLeaderPort, RemoteQueue[]>();
  for (const q of queues) {
    if (!(q instanceof RemoteQueue) || !q.leader.up) continue;
    // A stream's log figures (committed offset, segments…): one query per stream, asked with the counts.
    if (q instanceof RemoteStreamQueue) {
      const figures = q.refreshFigures();
      if (figures !== null) waits.push(figures);
    }
    const onItsWay = q.countsAsk;
    if (onItsWay !== null) waits.push(onItsWay);
    else if (q.countsStale) {
      const list = stale.get(q.leader);
      if (list === undefined) stale.set(q.leader, [q]);
      else list.push(q);
    }
  }
  for (const [leader, list] of stale) {
    const ask = leader.infoMany(list).then(
      (infos) => infos.forEach((info, i) => info !== null && list[i]!.tookInfo(info)),
      // A lost link or a refused ask: the last known counts stay, and say they are stale.
      () => undefined,
    );
    for (const q of list) q.awaitingInfo(ask);
    waits.push(ask);
  }
  if (waits.length === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, waitMs);
    void Promise.all(waits).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** For the API: when a queue led elsewhere shows counts older than the bound, when they were taken (0: never); null otherwise. */
export function staleCountsAt(q: Queue): number | null {
  return q instanceof RemoteQueue && q.countsStale ? q.countsAt : null;
}
