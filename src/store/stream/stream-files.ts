/**
 * The message store's streams (docs/STREAMS.md): each stream's chunk log under
 * `<data dir>/streams/<hash>/`, opened when its queue is declared or restored, and the batch
 * hooks — `seal` turns what each stream got since the last batch into chunks, the batch then
 * flushes them with its segments. In a cluster the leader's replication (the store's replica,
 * a StreamTap) is told each chunk and each deletion, so followers mirror the files and a
 * stream's confirm obeys the cluster's confirm rule (docs/STREAMS.md, "Replication").
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { StreamTap } from "../store-replica.js";
import { ChunkLog, type ChunkLogTap } from "./chunk-log.js";
import { StoredStreamLog } from "./stored-stream-log.js";
import { FILTER_BYTES } from "./chunk-filter.js";

/** The directory under the data dir that holds the streams (the store's `messages/` is its sibling). */
export const STREAMS_DIR = "streams";

export class StreamFiles {
  private readonly open = new Set<StoredStreamLog>();
  private readonly dirty = new Set<StoredStreamLog>();

  constructor(
    private readonly dir: string,
    /** A stream got its first message since the last batch: count an append and schedule a flush. */
    private readonly appended: () => void,
    /** The store's replica, read at each write (it is attached after recovery); null on a single node. */
    private readonly replica: () => StreamTap | null = () => null,
  ) {
    // A stream deleted just before a crash may have left its renamed directory (ChunkLog.destroy).
    if (existsSync(dir)) for (const f of readdirSync(dir)) if (f.includes(".deleted-")) rmSync(join(dir, f), { recursive: true, force: true });
  }

  get hasDirty(): boolean {
    return this.dirty.size > 0;
  }

  forStream(vhost: string, name: string, segmentBytes: number, filterBytes = FILTER_BYTES): StoredStreamLog {
    const id = streamDirId(vhost, name);
    const chunks = ChunkLog.open({ dir: join(this.dir, id), maxSegmentBytes: segmentBytes, tap: streamTap(id, this.replica) });
    const log = new StoredStreamLog(
      chunks,
      (l) => {
        this.dirty.add(l);
        this.appended();
      },
      (l) => {
        this.open.delete(l);
        this.dirty.delete(l);
      },
      undefined,
      filterBytes,
    );
    this.open.add(log);
    return log;
  }

  /** At a batch's start: every stream appended to becomes chunks; returns the logs the batch flushes. */
  seal(): StoredStreamLog[] {
    const logs = [...this.dirty];
    this.dirty.clear();
    for (const l of logs) l.seal();
    return logs;
  }

  /** A replica was attached (after recovery): it is told how far each open stream is committed. */
  announceCommitted(): void {
    for (const l of this.open) l.announceCommitted();
  }

  close(): void {
    for (const l of this.open) l.close();
  }
}

/** The directory a stream's files live in, under STREAMS_DIR: a hash, since vhost and queue names may hold any character. */
export function streamDirId(vhost: string, name: string): string {
  return createHash("sha256").update(`${vhost}\u0000${name}`).digest("hex").slice(0, 32);
}

/**
 * One stream's writes as the replica names them ("streams/<id>/…"); `replica` is read at each
 * write (it is attached after recovery), so a single node pays a null check per chunk.
 */
export function streamTap(id: string, replica: () => StreamTap | null): ChunkLogTap {
  const at = `${STREAMS_DIR}/${id}`;
  return {
    placed: (segment, position, pieces) => replica()?.streamAppend(`${at}/${segment}`, position, pieces),
    dropped: (segment) => replica()?.streamDrop(`${at}/${segment}`),
    destroyed: () => replica()?.streamDrop(at),
    replaced: (name, bytes) => replica()?.streamFileReplaced(`${at}/${name}`, bytes),
    committed: (nextOffset) => replica()?.streamCommitted(at, nextOffset),
  };
}
