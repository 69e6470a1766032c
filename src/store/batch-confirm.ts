/**
 * When a written batch counts as stored (docs/CLUSTERING.md, the confirm rule): on a single node
 * once it is on this disk; in a cluster once it is on this disk and on enough followers. Two
 * things wait for that moment: the publishers' confirms (the batch's sync waiters) and the
 * streams' chunks, which no consumer may read before — a chunk read before it is replicated
 * could vanish in a failover and its offset be given to another message (RabbitMQ delivers only
 * committed chunks).
 */
import type { StoredStreamLog } from "./stream/stored-stream-log.js";
import type { StoreReplica } from "./store-replica.js";
import type { SyncWaiters } from "./sync-waiters.js";

/** Called once the batch's writes have settled (`ok`: all of them succeeded), before the next batch starts. */
export function confirmBatch(replica: StoreReplica | null, batch: number, ok: boolean, waiters: SyncWaiters, streams: readonly StoredStreamLog[]): void {
  // Each stream's end as this batch wrote it: a later batch may have moved it on by the time
  // followers acknowledge this one.
  const ends = ok && streams.length > 0 ? streams.map((l) => l.flushedOffset) : null;
  const commit = (): void => {
    if (ends !== null) streams.forEach((l, i) => l.commit(ends[i]!));
  };
  if (replica === null) {
    waiters.tell(ok);
    commit();
    return;
  }
  replica.batchWritten(batch);
  if (!ok || (waiters.length === 0 && ends === null)) {
    waiters.tell(ok);
    return;
  }
  // Not awaited: the next batch is written while followers acknowledge this one (pipelining);
  // replicated() resolves batches in order, so confirms and commits still go in batch order.
  void replica.replicated(batch).then((tell) => {
    if (!tell) return;
    waiters.tell(true);
    commit();
  });
}
