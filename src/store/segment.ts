/**
 * One segment of the message store: an append-only record file `NNNNNNNN.seg` and its side file
 * `NNNNNNNN.acks`. The side file is a list of u32 offsets of records in this segment: an offset
 * means the record is dead (acked, dropped); an offset with the top bit set means the entry was
 * handed to a consumer (restored as redelivered). Keeping a segment's acks beside it means a
 * segment whose records are all dead can be deleted with its side file, with nothing elsewhere
 * referring to it.
 *
 * Writes are buffered here (pieces of records, never copied) and written by the store's group
 * commit; a record that dies before then is not written (pending-records.ts). `live` counts the
 * records not yet dead.
 */
import { closeSync, constants, fdatasync, fdatasyncSync, ftruncateSync, openSync, renameSync, rm, writev, writevSync } from "node:fs";
import { join } from "node:path";
import type { SegmentTap } from "./store-replica.js";
import { PendingRecords, type WriteRun } from "./pending-records.js";
import type { HoldJudge } from "./hold-judge.js";

/** Side-file marks could not be written (they stay buffered for the next write); the records are safe. */
export class MarksNotWritten extends Error {
  constructor(override readonly cause: unknown) {
    super("message store: deaths and deliveries could not be written; kept for the next write");
  }
}

/**
 * A write that stopped part way: libuv retries short writes itself and, when a later write fails
 * after some bytes went out, reports the bytes written and drops the error (a full disk, in
 * practice). The code is the same for every such failure, so repeats log as one line.
 */
export class ShortWrite extends Error {
  readonly code = "ESHORTWRITE";
  constructor(written: number, total: number) {
    super(`short write: ${written} of ${total} bytes (the disk may be full)`);
  }
}

/** Writes are positioned (a record that died before its write leaves a hole), so not O_APPEND. */
const DATA_FLAGS = constants.O_WRONLY | constants.O_CREAT;

export const SEGMENT_MAGIC = Buffer.from("CONEYMS1", "latin1");
export const DELIVERED_BIT = 0x80000000;
/** A deleted segment's data file while it is being unlinked. */
export const DELETED_SUFFIX = ".deleted";

export function segmentFileName(id: number, ext: "seg" | "acks"): string {
  return `${String(id).padStart(8, "0")}.${ext}`;
}

export class Segment {
  readonly path: string;
  readonly ackPath: string;
  /** Logical end: bytes written plus bytes waiting to be written. */
  size: number;
  live = 0;
  /** Records ever stored here (live or dead): live / records is what compaction looks at. */
  records = 0;
  /**
   * Bytes of the data file written and fsynced. After a failed write (a full disk) everything past
   * it is given up: `lostFrom` is set there and the segment takes no more records (see
   * MessageStore.writeFailed). Infinity = nothing lost.
   */
  syncedSize: number;
  lostFrom = Infinity;
  /** Bytes of the side file known written, where a failed mark write is cut back to. */
  private ackBytes = 0;
  /** The side file could not be cut back after a failed write: later marks would be misaligned, so none are written. */
  private acksBroken = false;
  private dataFd: number | null = null;
  private ackFd: number | null = null;
  private pending: Buffer[] = [];
  /** The records among `pending` (their offsets, pieces and whether they died meanwhile). */
  private readonly records_: PendingRecords;
  private acks: Buffer = Buffer.allocUnsafe(4096);
  private ackLen = 0;
  /** writeSync() wrote records that no fsync has covered yet. */
  private unsynced = false;

  constructor(dir: string, readonly id: number, size: number, readonly writable: boolean) {
    this.path = join(dir, segmentFileName(id, "seg"));
    this.ackPath = join(dir, segmentFileName(id, "acks"));
    this.size = size;
    this.syncedSize = size;
    this.records_ = new PendingRecords(size);
    if (writable) {
      this.dataFd = openSync(this.path, DATA_FLAGS, 0o600);
      if (size === 0) this.append(SEGMENT_MAGIC);
    }
  }

  /** Opens the side file of a recovered segment for appending, cutting a torn last entry. */
  openAcks(validBytes: number): void {
    this.ackFd = openSync(this.ackPath, "a", 0o600);
    ftruncateSync(this.ackFd, validBytes);
    this.ackBytes = validBytes;
  }

  get hasPending(): boolean {
    return this.pending.length > 0 || this.ackLen > 0;
  }

  /** Records not yet both written and synced. */
  get hasPendingData(): boolean {
    return this.pending.length > 0 || this.unsynced;
  }

  append(piece: Buffer): void {
    if (piece.length === 0) return;
    this.pending.push(piece);
    this.size += piece.length;
  }

  /**
   * A record starts here: the pieces appended until endRecord() are its head (whose checksum
   * is filled in at write time when `needsCrc`), property bytes and body.
   */
  beginRecord(needsCrc: boolean, appendPosition: number, stamp = 0, judge: HoldJudge | null = null): void {
    this.records_.begin(this.size, this.pending.length, needsCrc, appendPosition, stamp, judge);
  }

  /** The record at `offset` was handed to a consumer (a capped write may hold it back, delivery-hold.ts); true when it is not yet written. */
  deliverPending(offset: number): boolean {
    return this.records_.deliver(offset);
  }

  /** When the record the last write stopped at was appended, if it was held back for its ack; else 0. */
  get heldStamp(): number {
    return this.records_.heldStamp;
  }

  /** The store's append position of the oldest record not yet handed to a write; Infinity when none. */
  get firstPendingAppend(): number {
    return this.records_.firstAppendPosition;
  }

  endRecord(): void {
    this.records_.end(this.pending.length);
  }

  /** The record at `offset` died: if it is not yet written, it never will be (true). */
  cancelPending(offset: number): boolean {
    return this.records_.cancel(offset);
  }

  mark(offsetWithFlags: number): void {
    if (this.ackLen + 4 > this.acks.length) {
      const bigger = Buffer.allocUnsafe(this.acks.length * 2);
      this.acks.copy(bigger, 0, 0, this.ackLen);
      this.acks = bigger;
    }
    this.acks.writeUInt32LE(offsetWithFlags >>> 0, this.ackLen);
    this.ackLen += 4;
  }

  /**
   * Writes what is buffered (records first, then marks) and, when `sync`, fdatasyncs both files.
   * A failed record write rejects with the error (the store gives up every unsynced record); a
   * failed mark write cuts the side file back, keeps the marks for the next write and rejects
   * with MarksNotWritten (marks are sets of offsets: their order does not matter).
   * `tap` (a cluster leader's replication) is shown the same pieces before the first await.
   * With a `budget`, only the oldest records up to about that many bytes are written, and none
   * from the first one held back for its ack (appended after `holdAfter`, its queue's holds
   * paying at `now`, delivery-hold.ts); the rest stay pending, in order, for a later write (the
   * store's cap on a group commit).
   */
  async write(sync: boolean, tap: SegmentTap | null = null, budget = Infinity, holdAfter = Infinity, now = 0): Promise<void> {
    const all = this.pending;
    const taken = this.records_.cut(budget, this.size, holdAfter, now);
    let data = all;
    let end = this.size;
    if (taken < this.records_.length) {
      const pieces = this.records_.firstPiece(taken);
      end = this.records_.fileOffset(taken);
      data = all.slice(0, pieces);
      this.pending = all.slice(pieces);
    } else {
      this.pending = [];
    }
    const runs = this.planWrite(data, end, tap, taken);
    let acks: Buffer | null = null;
    if (this.ackLen > 0) {
      acks = this.acks.subarray(0, this.ackLen);
      this.acks = Buffer.allocUnsafe(Math.max(4096, this.acks.length));
      this.ackLen = 0;
    }
    if (tap !== null && (data.length > 0 || acks !== null)) tap.segmentWrite(this.id, data, acks);
    if (runs.length === 1) await writeAll(this.dataFd!, runs[0]!.pieces, runs[0]!.position);
    // Runs cover distinct byte ranges: they may be written at once.
    else if (runs.length > 1) await writeRuns(this.dataFd!, runs);
    if ((data.length > 0 || this.unsynced) && sync) {
      this.unsynced = false;
      await datasync(this.dataFd!);
      this.syncedSize = end;
    }
    if (acks && !this.acksBroken) {
      try {
        this.ackFd ??= openSync(this.ackPath, "a", 0o600);
        await writeAll(this.ackFd, [acks], null);
        if (sync) await datasync(this.ackFd);
        this.ackBytes += acks.length;
      } catch (err) {
        this.cutAcks();
        for (let p = 0; p < acks.length; p += 4) this.mark(acks.readUInt32LE(p));
        throw new MarksNotWritten(err);
      }
    }
  }

  /**
   * A write failed: records not yet synced are given up (the store undoes them in the queues and
   * nacks their publishers), the data file is cut back to its synced end so no torn record stays
   * in it, and the segment takes no more records (refs into it must never be reused).
   */
  abandonUnsynced(): void {
    this.pending = [];
    this.records_.reset(this.syncedSize);
    this.unsynced = false;
    this.lostFrom = this.syncedSize;
    this.size = this.syncedSize;
    if (this.dataFd !== null) {
      try {
        ftruncateSync(this.dataFd, this.syncedSize);
      } catch {
        // Recovery skips a torn tail anyway; cutting it back is tidiness, not safety.
      }
    }
  }

  private cutAcks(): void {
    if (this.ackFd === null) return;
    try {
      ftruncateSync(this.ackFd, this.ackBytes);
    } catch {
      // Appending after a partial mark would shift every later one: write none (a lost death
      // only means redelivery after a restart, which AMQP allows).
      this.acksBroken = true;
    }
  }

  /**
   * Writes buffered records synchronously (recovery and online compaction; side-file marks stay
   * buffered), fdatasynced when `sync`, which makes them as safe as a group commit's.
   */
  writeSync(sync = false, tap: SegmentTap | null = null): void {
    if (this.pending.length === 0 && !(sync && this.unsynced)) return;
    const data = this.pending;
    const end = this.size;
    this.pending = [];
    const runs = this.planWrite(data, end, tap);
    if (tap !== null && data.length > 0) tap.segmentWrite(this.id, data, null);
    for (const r of runs) {
      let total = 0;
      for (const b of r.pieces) total += b.length;
      const written = writevSync(this.dataFd!, r.pieces, r.position);
      if (written !== total) throw new ShortWrite(written, total);
    }
    this.unsynced = true;
    if (sync) {
      fdatasyncSync(this.dataFd!);
      this.unsynced = false;
      this.syncedSize = end;
    }
  }

  /**
   * The positioned writes for `data` (which ends at file offset `end`), checksums filled in.
   * A cluster leader's followers append the same bytes in order, so with a tap every record is
   * written whole (a dead one is still dead: its death mark is written as always).
   */
  private planWrite(data: Buffer[], end: number, tap: SegmentTap | null, taken?: number): WriteRun[] {
    let start = end;
    for (const b of data) start -= b.length;
    return data.length === 0 ? [] : this.records_.plan(data, start, end, tap === null, taken);
  }

  /** A segment no longer appended to keeps only its side file open (descriptors stay few). */
  closeData(): void {
    if (this.dataFd !== null && this.pending.length === 0 && !this.unsynced) {
      closeSync(this.dataFd);
      this.dataFd = null;
    }
  }

  closeFiles(): void {
    if (this.dataFd !== null) closeSync(this.dataFd);
    if (this.ackFd !== null) closeSync(this.ackFd);
    this.dataFd = null;
    this.ackFd = null;
  }

  /** Deletes both files: every record in them is dead. */
  destroy(): void {
    this.closeFiles();
    this.pending = [];
    this.ackLen = 0;
    removeFiles(this.path, this.ackPath);
  }
}

/**
 * Deletes the data file, then the side file. The data file is renamed out of recovery's sight at
 * once (a rename frees no blocks, so it is quick) and unlinked off the event loop: unlinking a
 * large file frees its blocks, which took milliseconds on the loop. Segment ids are never reused;
 * boot removes a `.deleted` file or a side file a crash left behind (store-recovery.ts).
 */
function removeFiles(data: string, acks: string): void {
  const doomed = `${data}${DELETED_SUFFIX}`;
  try {
    renameSync(data, doomed);
  } catch {
    // Already gone (never written): only the side file may be left.
  }
  rm(doomed, { force: true }, () => rm(acks, { force: true }, () => undefined));
}

function writeAll(fd: number, bufs: Buffer[], position: number | null): Promise<void> {
  return new Promise((resolve, reject) => {
    writev(fd, bufs, position, (err, written) => {
      if (err) return reject(err);
      let total = 0;
      for (const b of bufs) total += b.length;
      // libuv completes short writes itself; anything less is an error worth surfacing.
      if (written !== total) return reject(new ShortWrite(written, total));
      resolve();
    });
  });
}

/** Writes runs at once (distinct byte ranges); settles only when all have, so a failure is cut back after the last write. */
async function writeRuns(fd: number, runs: readonly WriteRun[]): Promise<void> {
  const results = await Promise.allSettled(runs.map((r) => writeAll(fd, r.pieces, r.position)));
  for (const r of results) if (r.status === "rejected") throw r.reason;
}

function datasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}
