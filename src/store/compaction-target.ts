/**
 * What online compaction (online-compaction.ts) needs of the message store, and nothing more:
 * the segments and the queues' paged tails to find survivors, a way to copy a record and sync it,
 * and the store's bookkeeping for a segment it retires. MessageStore implements it.
 */
import type { Logger } from "../logging/logger.js";
import type { FaultPointName } from "./fault-points.js";
import type { RefFifo } from "./ref-fifo.js";
import type { Segment } from "./segment.js";
import type { SegmentReader } from "./segment-reader.js";

export interface CompactionTarget {
  readonly segments: ReadonlyMap<number, Segment>;
  /** The segment being appended to: never compacted. */
  readonly currentSegment: Segment | null;
  /** A group commit is on disk: compaction's synchronous writes must not interleave with it. */
  readonly isFlushing: boolean;
  /** Every durable queue's paged-out refs. */
  tails(): Iterable<RefFifo>;
  readonly reader: SegmentReader;
  readonly logger: Logger;
  readonly stats: { segmentsCompacted: number };
  /** Copies an already-encoded record; returns its new ref. */
  appendRaw(record: Buffer, delivered: boolean): number;
  /** Writes and fsyncs what is buffered; false when the write failed. */
  syncPendingNow(): boolean;
  markDead(ref: number): void;
  /** Deletes the segment after a later flush has synced the copies of its records. */
  retire(seg: Segment): void;
  faultPoint(name: FaultPointName): void;
}
