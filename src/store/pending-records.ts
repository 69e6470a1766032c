/**
 * The records a segment holds in memory between their append and their group commit, and the
 * plan for writing them.
 *
 * Why: a consumer often acknowledges a persistent message while it still waits for its batch
 * (the previous batch's fsync is on disk meanwhile). Such a record is dead before it was
 * written; RabbitMQ's message store likewise never writes a message removed before its write.
 * Writing it anyway costs its checksum, a copy into the page cache and disk bandwidth for bytes
 * no one will read. A cancelled record's head is marked "skipped" (a zero checksum, kind
 * SKIPPED); a large one is written as those 9 bytes only and the rest of its extent is left as a
 * hole (the next run is a positioned write further on), so every other record keeps the file
 * offset its ref names. Recovery reads a skipped head as a dead record (message-record.ts).
 *
 * Checksums are computed here, at write time, for the records that are written: a cancelled
 * record never has its body checksummed.
 *
 * Invariants: records are appended in file order and never overlap; a record's pieces are
 * contiguous in the segment's piece list; the table is emptied when its pieces are taken for a
 * write.
 */
import { fillRecordChecksum, markSkipped, SKIPPED_HEAD } from "./message-record.js";

const NEEDS_CRC = 1;
const CANCELLED = 2;
/**
 * A cancelled record at least this large is left out as a hole (its own positioned write);
 * a smaller one is written in place, without a checksum: a write costs more than its bytes.
 */
export const HOLE_MIN = 64 * 1024;

/** A contiguous stretch of the file: its position and the pieces that fill it. */
export interface WriteRun {
  readonly position: number;
  readonly pieces: Buffer[];
}

export class PendingRecords {
  /** File offset of each pending record, ascending. */
  private readonly pos: number[] = [];
  /** Index of the record's first piece in the segment's piece list. */
  private readonly first: number[] = [];
  private readonly count: number[] = [];
  private readonly flags: number[] = [];
  private n = 0;
  /** File offset of the first pending byte: records before it are written (or being written). */
  private from = 0;
  cancelled = 0;

  constructor(from: number) {
    this.from = from;
  }

  get length(): number {
    return this.n;
  }

  /** A record starts at file offset `position` with piece `pieceIndex`. */
  begin(position: number, pieceIndex: number, needsCrc: boolean): void {
    const i = this.n++;
    this.pos[i] = position;
    this.first[i] = pieceIndex;
    this.count[i] = 0;
    this.flags[i] = needsCrc ? NEEDS_CRC : 0;
  }

  /** The record begun last ends before piece `pieceIndex`. */
  end(pieceIndex: number): void {
    const i = this.n - 1;
    this.count[i] = pieceIndex - this.first[i]!;
  }

  /**
   * The record at `offset` died. True when it is still pending (it will be written as skipped);
   * false when its bytes were already handed to a write.
   */
  cancel(offset: number): boolean {
    if (offset < this.from || this.n === 0) return false;
    let lo = 0;
    let hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const p = this.pos[mid]!;
      if (p === offset) {
        if ((this.flags[mid]! & CANCELLED) === 0) {
          this.flags[mid]! |= CANCELLED;
          this.cancelled++;
        }
        return true;
      }
      if (p < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /**
   * Fills in checksums and returns the runs to write for `pieces` (starting at file offset
   * `start`); the table starts afresh at `end`. A cancelled record is marked skipped in its own
   * head and written without a checksum; one of at least HOLE_MIN bytes is left out as a hole,
   * unless `holes` is false (a cluster leader: followers append the same bytes in order).
   * Records that arrived already encoded (compaction copies) are written as they are: their
   * death mark keeps them dead.
   */
  plan(pieces: Buffer[], start: number, end: number, holes: boolean): WriteRun[] {
    const n = this.n;
    const runs: WriteRun[] = [];
    let run: Buffer[] = pieces;
    let runStart = start;
    let next = 0; // with holes: the next piece not yet placed in a run
    let split = false;
    for (let i = 0; i < n; i++) {
      const f = this.flags[i]!;
      if ((f & NEEDS_CRC) === 0) continue;
      const first = this.first[i]!;
      const count = this.count[i]!;
      if ((f & CANCELLED) === 0) {
        fillRecordChecksum(pieces, first, count);
        continue;
      }
      markSkipped(pieces[first]!);
      if (!holes) continue;
      const len = recordLength(pieces, first, count);
      if (len < HOLE_MIN) continue;
      // Only the head (whose first SKIPPED_HEAD bytes say all) ends this run; the next starts after the record.
      if (!split) {
        split = true;
        run = [];
      }
      for (; next < first; next++) run.push(pieces[next]!);
      run.push(pieces[first]!.subarray(0, SKIPPED_HEAD));
      runs.push({ position: runStart, pieces: run });
      run = [];
      next = first + count;
      runStart = this.pos[i]! + len;
    }
    if (split) for (; next < pieces.length; next++) run.push(pieces[next]!);
    if (run.length > 0) runs.push({ position: runStart, pieces: run });
    this.n = 0;
    this.cancelled = 0;
    this.from = end;
    return runs;
  }

  /** Everything pending was given up (a failed write): the table restarts at `from`. */
  reset(from: number): void {
    this.n = 0;
    this.cancelled = 0;
    this.from = from;
  }
}

function recordLength(pieces: readonly Buffer[], first: number, count: number): number {
  let len = 0;
  for (let k = first; k < first + count; k++) len += pieces[k]!.length;
  return len;
}
