/**
 * The message store's replication hook (see docs/CLUSTERING.md). On a single node the store's
 * `replica` is null and none of this runs; in a cluster the leader's replication is told, inside
 * group commit, exactly the bytes the store writes, so followers can mirror its files.
 */

/** Told the pieces a segment is about to write, synchronously, before the local write starts. */
export interface SegmentTap {
  segmentWrite(segment: number, data: readonly Buffer[], acks: Buffer | null): void;
}

/**
 * Told what the streams' chunk logs (src/store/stream) write: names are relative to the data dir
 * ("streams/<id>/<first offset>.segment"; a whole stream is "streams/<id>").
 */
export interface StreamTap {
  /** A chunk placed at `position` of a stream segment, inside the batch that writes it, before the local write. */
  streamAppend(file: string, position: number, pieces: readonly Buffer[]): void;
  /** A stream segment (retention) or a whole stream (deleted) was removed. */
  streamDrop(path: string): void;
  /** A stream's side file ("streams/<id>/<name>.json", e.g. its tracking) was replaced whole. */
  streamFileReplaced(file: string, bytes: Buffer): void;
  /**
   * Stream `dir` ("streams/<id>") is readable up to `nextOffset` (its commit, batch-confirm.ts):
   * followers serve their consumers that far (docs/STREAMS.md, "Followers serve the stream port").
   */
  streamCommitted(dir: string, nextOffset: number): void;
}

/**
 * Told when a node state file at the data dir's root ("<name>.json", other than definitions.json,
 * e.g. MQTT's retained messages and QoS 2 session state) was replaced whole, after the local write.
 */
export interface NodeFileTap {
  nodeFileReplaced(name: string, bytes: Buffer): void;
}

export interface StoreReplica extends SegmentTap, StreamTap {
  /** Every byte of group-commit batch `batch` has been handed to segmentWrite; `sync` asks followers to fsync. */
  batchEnd(batch: number, sync: boolean): void;
  /** The local write of `batch` has finished: the files on disk are at a batch boundary. */
  batchWritten(batch: number): void;
  /**
   * A local write failed and the store gave up its unsynced records, which followers may already
   * hold: the leader must step down so they are never confirmed from a follower's copy.
   */
  writeFailed(): void;
  /** A segment whose records are all dead was deleted. */
  segmentDeleted(segment: number): void;
  /**
   * Resolves true once `batch` is on enough followers' disks for its confirms to be sent, false
   * when this node may no longer confirm (it lost leadership): its waiters are then not told.
   */
  replicated(batch: number): Promise<boolean>;
}
