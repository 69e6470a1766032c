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
 * Consecutive cancelled records are one stretch: the first one's skipped head spans them all and
 * the rest is one hole — one positioned write per stretch, not per record, and small records
 * that die together are left out too.
 *
 * Checksums are computed here, at write time, for the records that are written: a cancelled
 * record never has its body checksummed.
 *
 * A write may take only the oldest records (cut(): the store caps each group commit, see
 * commit-cap.ts); the rest stay here, and may still die before their turn.
 *
 * Invariants: records are appended in file order and never overlap; a record's pieces are
 * contiguous in the segment's piece list; their append positions (MessageStore.appends) ascend;
 * records taken for a write leave the table.
 */
import { fillRecordChecksum, markSkipped, MAX_SKIPPED_SPAN, SKIPPED_HEAD, spanSkipped } from "./message-record.js";
import type { HoldJudge } from "./hold-judge.js";

const NEEDS_CRC = 1;
const CANCELLED = 2;
/** Its queue entry is out with a consumer (whose ack would cancel the record). */
const DELIVERED = 4;
/** Large enough to be held back while delivered (HOLD_MIN_BYTES). */
const HOLDABLE = 8;
/** A write stopped at it: it was held back for its ack (how that ended is tallied on its queue's judge, hold-judge.ts). */
const HELD = 16;
/**
 * A record at least this large may be held back while its message is out with a consumer
 * (delivery-hold.ts): smaller ones cost less to write than the confirm latency a hold adds.
 */
export const HOLD_MIN_BYTES = 64 * 1024;
/**
 * A stretch of cancelled records at least this large is left out as a hole (its own positioned
 * write); a smaller one is written in place, without checksums: a write costs more than its bytes.
 */
export const HOLE_MIN = 64 * 1024;
/**
 * A capped write never leaves more than this many bytes pending: bodies wait in memory for their
 * write (an acked one too, until its skipped head is written), so the wait is bounded.
 */
export const DEFER_MAX = 64 * 1024 * 1024;

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
  /** The store's append position of each record (what its publisher's confirm waits for). */
  private readonly appendPos: number[] = [];
  /** When a holdable record was appended (performance.now()); 0 for the others. */
  private readonly stamp: number[] = [];
  /** A holdable record's queue's judge of whether holds pay (hold-judge.ts); null for the others. */
  private readonly judge: Array<HoldJudge | null> = [];
  private n = 0;
  /** File offset of the first pending byte: records before it are written (or being written). */
  private from = 0;
  /** When the record the last cut stopped at was appended; 0 when it stopped at no hold. */
  heldStamp = 0;

  constructor(from: number) {
    this.from = from;
  }

  get length(): number {
    return this.n;
  }

  /**
   * A record starts at file offset `position` with piece `pieceIndex`; it is the store's append
   * number `appendPosition`. `stamp` (when it was appended) is non-zero for a record large enough
   * to be held back while delivered (delivery-hold.ts); `judge` then says whether its queue's holds pay.
   */
  begin(position: number, pieceIndex: number, needsCrc: boolean, appendPosition: number, stamp = 0, judge: HoldJudge | null = null): void {
    const i = this.n++;
    this.pos[i] = position;
    this.first[i] = pieceIndex;
    this.count[i] = 0;
    this.flags[i] = (needsCrc ? NEEDS_CRC : 0) | (stamp > 0 && judge !== null ? HOLDABLE : 0);
    this.appendPos[i] = appendPosition;
    this.stamp[i] = stamp;
    this.judge[i] = judge;
  }

  /** The append position of the oldest record still pending; Infinity when none is. */
  get firstAppendPosition(): number {
    return this.n > 0 ? this.appendPos[0]! : Infinity;
  }

  /**
   * How many of the oldest records a write of about `budget` bytes takes: records in order until
   * the live ones among them reach the budget (the one that reaches it included). A cancelled
   * record costs nothing here: it is written as a 9-byte head, or a hole. `end` is the file
   * offset after the last pending byte. A budget of 0 or less takes none, unless more than
   * DEFER_MAX bytes would stay pending.
   * A capped write also stops at the first live record held back for its consumer's ack: a
   * holdable record out with a consumer, appended after `holdAfter`, whose queue's holds pay at
   * `now` (delivery-hold.ts, hold-judge.ts); `heldStamp` then says when that record was appended
   * (0: the write stopped at no hold).
   */
  cut(budget: number, end: number, holdAfter = Infinity, now = 0): number {
    this.heldStamp = 0;
    if (budget === Infinity || this.n === 0) return this.n;
    // Bytes that must go now whatever waits: the bound on what stays in memory.
    const forced = end - this.pos[0]! - DEFER_MAX;
    let left = Math.max(budget, forced);
    for (let i = 0; i < this.n; i++) {
      if (left <= 0) return i;
      const f = this.flags[i]!;
      if ((f & CANCELLED) !== 0) continue;
      if ((f & (HOLDABLE | DELIVERED)) === (HOLDABLE | DELIVERED) && this.stamp[i]! > holdAfter && this.pos[i]! - this.pos[0]! >= forced && this.judge[i]!.allows(now)) {
        this.heldStamp = this.stamp[i]!;
        this.flags[i] = f | HELD;
        return i;
      }
      if ((f & HELD) !== 0) this.judge[i]!.ended(false);
      left -= (i + 1 < this.n ? this.pos[i + 1]! : end) - this.pos[i]!;
    }
    return this.n;
  }

  /** Where record `i` starts: its file offset and its first piece's index. */
  fileOffset(i: number): number {
    return this.pos[i]!;
  }

  firstPiece(i: number): number {
    return this.first[i]!;
  }

  /** The record begun last ends before piece `pieceIndex`. */
  end(pieceIndex: number): void {
    const i = this.n - 1;
    this.count[i] = pieceIndex - this.first[i]!;
  }

  /**
   * The record at `offset` was handed to a consumer: while it waits for its write, a capped
   * write may hold it back for the ack (delivery-hold.ts). Most deliveries are of the record
   * appended last (a consumer keeping up), which is checked first. True when it was pending.
   */
  deliver(offset: number): boolean {
    const n = this.n;
    if (n === 0 || offset < this.from) return false;
    if (this.pos[n - 1] === offset) {
      this.flags[n - 1]! |= DELIVERED;
      return true;
    }
    const i = this.find(offset);
    if (i < 0) return false;
    this.flags[i]! |= DELIVERED;
    return true;
  }

  /**
   * The record at `offset` died. True when it is still pending (it will be written as skipped);
   * false when its bytes were already handed to a write.
   */
  cancel(offset: number): boolean {
    if (offset < this.from || this.n === 0) return false;
    const i = this.find(offset);
    if (i < 0) return false;
    if ((this.flags[i]! & HELD) !== 0) this.judge[i]!.ended(true);
    this.flags[i]! |= CANCELLED;
    return true;
  }

  /** The index of the pending record at file offset `offset`, or -1 (a binary search: offsets ascend). */
  private find(offset: number): number {
    let lo = 0;
    let hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const p = this.pos[mid]!;
      if (p === offset) return mid;
      if (p < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /**
   * Fills in checksums and returns the runs to write for `pieces` (starting at file offset
   * `start`), which hold the oldest `taken` records (all by default) and end at file offset `end`;
   * those records leave the table. A cancelled record is marked skipped in its own
   * head and written without a checksum; a stretch of consecutive ones of at least HOLE_MIN bytes
   * is left out as one hole after the first head, which spans it, unless `holes` is false (a
   * cluster leader: followers append the same bytes in order).
   * Records that arrived already encoded (compaction copies) are written as they are: their
   * death mark keeps them dead.
   */
  plan(pieces: Buffer[], start: number, end: number, holes: boolean, taken = this.n): WriteRun[] {
    const n = taken;
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
      // The stretch of cancelled records starting here (records compaction copied are written as they are).
      let last = i;
      let len = recordLength(pieces, first, count);
      while (last + 1 < n && (this.flags[last + 1]! & (NEEDS_CRC | CANCELLED)) === (NEEDS_CRC | CANCELLED)) {
        const more = recordLength(pieces, this.first[last + 1]!, this.count[last + 1]!);
        if (len + more > MAX_SKIPPED_SPAN) break;
        len += more;
        last++;
      }
      if (len < HOLE_MIN) {
        for (let k = i + 1; k <= last; k++) markSkipped(pieces[this.first[k]!]!);
        i = last;
        continue;
      }
      if (last > i) spanSkipped(pieces[first]!, len);
      // Only the head (whose first SKIPPED_HEAD bytes say all) ends this run; the next starts after the stretch.
      if (!split) {
        split = true;
        run = [];
      }
      for (; next < first; next++) run.push(pieces[next]!);
      run.push(pieces[first]!.subarray(0, SKIPPED_HEAD));
      runs.push({ position: runStart, pieces: run });
      run = [];
      next = this.first[last]! + this.count[last]!;
      runStart = this.pos[i]! + len;
      i = last;
    }
    if (split) for (; next < pieces.length; next++) run.push(pieces[next]!);
    if (run.length > 0) runs.push({ position: runStart, pieces: run });
    this.dropOldest(taken, pieces.length);
    this.from = end;
    return runs;
  }

  /** The oldest `k` records were taken with the first `pieceCount` pieces: the rest move up. */
  private dropOldest(k: number, pieceCount: number): void {
    const rest = this.n - k;
    for (let j = 0; j < rest; j++) {
      this.pos[j] = this.pos[j + k]!;
      this.first[j] = this.first[j + k]! - pieceCount;
      this.count[j] = this.count[j + k]!;
      this.flags[j] = this.flags[j + k]!;
      this.appendPos[j] = this.appendPos[j + k]!;
      this.stamp[j] = this.stamp[j + k]!;
      this.judge[j] = this.judge[j + k]!;
    }
    // Judges of records taken are not kept alive by the slots past the end.
    for (let j = rest; j < this.n; j++) this.judge[j] = null;
    this.n = rest;
  }

  /** Everything pending was given up (a failed write): the table restarts at `from`. */
  reset(from: number): void {
    this.judge.fill(null, 0, this.n);
    this.n = 0;
    this.from = from;
  }
}

function recordLength(pieces: readonly Buffer[], first: number, count: number): number {
  let len = 0;
  for (let k = first; k < first + count; k++) len += pieces[k]!.length;
  return len;
}
