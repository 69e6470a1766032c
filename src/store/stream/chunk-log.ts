/**
 * One stream's log on disk (docs/STREAMS.md, "Storage"): segment files of chunks in the stream
 * protocol's layout, named by their first offset, with the chunk index in memory. It appends
 * chunks, reads a chunk by index (one read, no message held in memory), finds where an offset or
 * a timestamp starts, deletes whole old segments for retention, and on open rebuilds the index
 * from the files, cutting a chunk torn by a crash off the last segment.
 *
 * Appends are group-committed: `append` places a chunk (offset, index entry, file position) at
 * once and keeps its bytes pending; `flush(sync)` writes every pending chunk (one writev per
 * segment) and, when asked, fdatasyncs — the message store calls it inside its batch, so a
 * stream's confirms wait for the same fsync as a queue's. A pending chunk is read from memory.
 *
 * In a cluster the leader's replication is told each chunk as it is placed (before its write),
 * each segment retention deletes, the log's deletion and each side file written (`ChunkLogTap`;
 * absent on a single node), so followers mirror the files (docs/STREAMS.md, "Replication").
 *
 * Invariants: offsets are contiguous across chunks; only the last segment is written to; a
 * chunk is whole in one segment; after `flush(true)` resolves, every chunk appended before it is
 * durable; flushes do not overlap (the caller awaits one before starting the next).
 */
import { closeSync, existsSync, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, writev } from "node:fs";
import { join } from "node:path";
import type { BufferPool } from "../../broker/values/buffer-pool.js";
import { writeFileAtomicSync } from "../atomic-file.js";
import { CHUNK_HEADER_BYTES, chunkDataIntact, chunkDataStart, chunkSize, decodeChunkHeader, encodeChunk, type ChunkEntry } from "./chunk-format.js";
import { ChunkIndex, type ChunkLocation } from "./chunk-index.js";

export interface ChunkLogOptions {
  readonly dir: string;
  /** A new segment starts once the current one holds this many bytes (x-stream-max-segment-size-bytes). */
  readonly maxSegmentBytes: number;
  readonly now?: () => number;
  /** Told what the log writes and deletes (a cluster leader's replication); absent on a single node. */
  readonly tap?: ChunkLogTap;
}

/** The log's writes as a cluster leader mirrors them: one call per chunk or deletion, never per message. */
export interface ChunkLogTap {
  /** A chunk's bytes placed at `position` of segment file `segment` (a file name in the log's dir). */
  placed(segment: string, position: number, pieces: readonly Buffer[]): void;
  /** Segment file `segment` was deleted by retention. */
  dropped(segment: string): void;
  /** The whole log was deleted. */
  destroyed(): void;
  /** Side file `name` (beside the segments) was replaced whole by `bytes`. */
  replaced(name: string, bytes: Buffer): void;
  /** Offsets before `nextOffset` are committed (readable): one call per stream per batch. */
  committed(nextOffset: number): void;
}

/** A side file's name: a small file kept beside the segments (e.g. a stream's tracking), replaced whole. */
export const SIDE_FILE_NAME = /^[a-z][a-z0-9-]*\.json$/;

export interface Retention {
  /** x-max-length-bytes; 0 or less: no limit. */
  readonly maxBytes: number;
  /** x-max-age in ms; 0 or less: no limit. */
  readonly maxAgeMs: number;
}

interface Segment {
  readonly id: number;
  readonly firstOffset: number;
  readonly path: string;
  fd: number | null;
  bytes: number;
  /** Timestamp of its newest chunk (0 while empty). */
  newest: number;
}

const SEGMENT_SUFFIX = ".segment";
/** Numbers the directories of deleted logs while they wait to be removed. */
let deletions = 0;

export class ChunkLog {
  private readonly index = new ChunkIndex();
  private readonly segments: Segment[] = [];
  private readonly segmentsById = new Map<number, Segment>();
  private nextSegmentId = 0;
  private next = 0;
  private totalBytes = 0;
  private unsynced = new Set<Segment>();
  /** Chunks placed but not yet written, in append order, by first offset. */
  private readonly pending = new Map<number, { seg: Segment; position: number; pieces: Buffer[] }>();
  private readonly now: () => number;
  /** The running flush, if any (destroy waits for it before closing the files). */
  private flushing: Promise<void> | null = null;
  private destroyed = false;

  private constructor(private readonly o: ChunkLogOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Opens (creating) the log in `o.dir`, recovering what its files hold. */
  static open(o: ChunkLogOptions): ChunkLog {
    mkdirSync(o.dir, { recursive: true });
    const log = new ChunkLog(o);
    log.recover();
    return log;
  }

  /** The oldest offset kept (the next offset when the log is empty). */
  get firstOffset(): number {
    return this.index.length === 0 ? this.next : this.index.at(0).firstOffset;
  }

  /** The offset the next message will get. */
  get nextOffset(): number {
    return this.next;
  }

  /** Bytes in the segment files. */
  get bytes(): number {
    return this.totalBytes;
  }

  get chunkCount(): number {
    return this.index.length;
  }

  get segmentCount(): number {
    return this.segments.length;
  }

  /**
   * Places one chunk of `messages` (written by the next `flush`; a sub-entry batch takes an offset
   * per message in it), with its filter if its messages carry filter values (chunk-filter.ts);
   * returns its first offset and its bytes.
   */
  append(messages: readonly ChunkEntry[], timestamp = this.now(), filter: Buffer | null = null): { firstOffset: number; pieces: Buffer[]; bytes: number } {
    let seg = this.segments[this.segments.length - 1];
    if (seg === undefined || seg.bytes >= this.o.maxSegmentBytes) seg = this.startSegment();
    const firstOffset = this.next;
    const chunk = encodeChunk(messages, firstOffset, timestamp, 0, filter);
    this.o.tap?.placed(segmentName(seg.firstOffset), seg.bytes, chunk.pieces);
    this.pending.set(firstOffset, { seg, position: seg.bytes, pieces: chunk.pieces });
    this.index.add({ firstOffset, count: chunk.records, timestamp, segment: seg.id, position: seg.bytes, bytes: chunk.bytes });
    seg.bytes += chunk.bytes;
    seg.newest = timestamp;
    this.totalBytes += chunk.bytes;
    this.next += chunk.records;
    return { firstOffset, pieces: chunk.pieces, bytes: chunk.bytes };
  }

  /** Whether chunks wait to be written. */
  get hasPending(): boolean {
    return this.pending.size > 0;
  }

  /** Writes every pending chunk, then fdatasyncs what was written since the last sync when `sync`. */
  flush(sync: boolean): Promise<void> {
    if (this.destroyed) return Promise.resolve();
    const running = this.write(sync).finally(() => {
      if (this.flushing === running) this.flushing = null;
    });
    this.flushing = running;
    return running;
  }

  private async write(sync: boolean): Promise<void> {
    const batch = [...this.pending.entries()];
    for (const [, p] of batch) {
      // A deleted log stops: its files are going (see destroy).
      if (this.destroyed) return;
      await writeAll(this.fdOf(p.seg), p.pieces, p.position);
      this.unsynced.add(p.seg);
    }
    // Dropped only once written: a read meanwhile is served from memory.
    for (const [offset] of batch) this.pending.delete(offset);
    if (!sync) return;
    const segs = [...this.unsynced];
    this.unsynced.clear();
    for (const seg of segs) if (seg.fd !== null && !this.destroyed) await new Promise<void>((resolve, reject) => fdatasync(seg.fd!, (err) => (err ? reject(err) : resolve())));
  }

  /** The i-th kept chunk's place (0 = the oldest). */
  chunkAt(i: number): ChunkLocation {
    return this.index.at(i);
  }

  /**
   * Reads the i-th kept chunk, header and data (from memory while it is pending), into a buffer
   * from `pool` when given (a reader reusing its memory) or a new one.
   */
  readChunk(i: number, pool?: BufferPool): Buffer {
    const c = this.index.at(i);
    const b = pool ? pool.take(c.bytes) : Buffer.allocUnsafe(c.bytes);
    const waiting = this.pending.get(c.firstOffset);
    if (waiting) {
      let at = 0;
      for (const p of waiting.pieces) at += p.copy(b, at);
      return b;
    }
    const seg = this.segmentsById.get(c.segment)!;
    let got = 0;
    while (got < c.bytes) {
      const n = readSync(this.fdOf(seg), b, got, c.bytes - got, c.position + got);
      if (n === 0) throw new Error(`stream segment ${seg.path} ends inside a chunk`);
      got += n;
    }
    return b;
  }

  /** The chunk holding `offset` (or the first after it, or `chunkCount` past the end). */
  findOffset(offset: number): number {
    return this.index.findOffset(offset);
  }

  /** The first chunk written at or after `timestamp` (ms), or `chunkCount`. */
  findTimestamp(timestamp: number): number {
    return this.index.findTimestamp(timestamp);
  }

  /** Deletes whole segments, oldest first, while over the limits; never the current one. Returns how many. */
  applyRetention(r: Retention, now = this.now()): number {
    let deleted = 0;
    while (this.segments.length > 1) {
      const oldest = this.segments[0]!;
      if (this.hasPendingIn(oldest)) break;
      const overSize = r.maxBytes > 0 && this.totalBytes > r.maxBytes;
      const overAge = r.maxAgeMs > 0 && oldest.newest < now - r.maxAgeMs;
      if (!overSize && !overAge) break;
      this.dropOldest();
      deleted++;
    }
    return deleted;
  }

  private hasPendingIn(seg: Segment): boolean {
    for (const p of this.pending.values()) if (p.seg === seg) return true;
    return false;
  }

  close(): void {
    for (const s of this.segments) {
      if (s.fd !== null) closeSync(s.fd);
      s.fd = null;
    }
  }

  /**
   * Replaces side file `name` atomically (synced before it replaces the old one). A cluster's
   * leader sends the same bytes to its followers at once, so a write made inside a batch (before
   * its end) is covered by that batch's confirms.
   */
  /** Tells the tap (a cluster leader's replication) that offsets before `nextOffset` are committed. */
  committed(nextOffset: number): void {
    this.o.tap?.committed(nextOffset);
  }

  /** A side file's bytes as written by writeSideFile (or replicated to this node); null when there is none. */
  readSideFile(name: string): Buffer | null {
    if (!SIDE_FILE_NAME.test(name)) throw new Error(`not a stream side file name: ${name}`);
    const path = join(this.o.dir, name);
    return existsSync(path) ? readFileSync(path) : null;
  }

  writeSideFile(name: string, data: string | Buffer): void {
    if (!SIDE_FILE_NAME.test(name)) throw new Error(`not a stream side file name: ${name}`);
    if (this.destroyed) return; // its directory is going (destroy)
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    writeFileAtomicSync(join(this.o.dir, name), bytes);
    this.o.tap?.replaced(name, bytes);
  }

  /**
   * Closes and removes every file (the stream was deleted). A flush may be writing at this moment: closing its descriptors under it would fail the
   * store's batch (and fence a cluster's leader). The directory is renamed away at once (open
   * descriptors stay valid, and a stream declared again with the same name starts afresh), and
   * closed and removed once that flush is over.
   */
  destroy(): void {
    this.destroyed = true;
    this.pending.clear();
    const gone = `${this.o.dir}.deleted-${process.pid}-${deletions++}`;
    let at = gone;
    try {
      renameSync(this.o.dir, gone);
    } catch {
      at = this.o.dir;
    }
    const remove = (): void => {
      this.close();
      rmSync(at, { recursive: true, force: true });
    };
    if (this.flushing === null) remove();
    else void this.flushing.then(remove, remove);
    this.o.tap?.destroyed();
  }

  private dropOldest(): void {
    const seg = this.segments.shift()!;
    this.segmentsById.delete(seg.id);
    this.index.dropSegment(seg.id);
    if (seg.fd !== null) closeSync(seg.fd);
    this.unsynced.delete(seg);
    rmSync(seg.path, { force: true });
    this.totalBytes -= seg.bytes;
    this.o.tap?.dropped(segmentName(seg.firstOffset));
  }

  private startSegment(): Segment {
    const seg: Segment = { id: this.nextSegmentId++, firstOffset: this.next, path: join(this.o.dir, segmentName(this.next)), fd: null, bytes: 0, newest: 0 };
    this.segments.push(seg);
    this.segmentsById.set(seg.id, seg);
    return seg;
  }

  /** Positional writes need a descriptor without O_APPEND (Linux would append regardless). */
  private fdOf(seg: Segment): number {
    return (seg.fd ??= openSync(seg.path, existsSync(seg.path) ? "r+" : "w+"));
  }

  /**
   * Rebuilds the index from the segment files. Sealed segments are trusted chunk by chunk from
   * their headers; the last one's data is checked against each chunk's CRC, and the file is cut
   * at the first chunk that is short or damaged (written but never synced: never confirmed).
   */
  private recover(): void {
    const names = readdirSync(this.o.dir).filter((f) => f.endsWith(SEGMENT_SUFFIX)).sort();
    for (let n = 0; n < names.length; n++) {
      const last = n === names.length - 1;
      const seg: Segment = { id: this.nextSegmentId++, firstOffset: Number(names[n]!.slice(0, -SEGMENT_SUFFIX.length)), path: join(this.o.dir, names[n]!), fd: null, bytes: 0, newest: 0 };
      if (this.segments.length === 0) this.next = seg.firstOffset;
      const fd = this.fdOf(seg);
      const size = fstatSync(fd).size;
      const header = Buffer.allocUnsafe(CHUNK_HEADER_BYTES);
      let at = 0;
      while (at < size) {
        const h = readSync(fd, header, 0, CHUNK_HEADER_BYTES, at) === CHUNK_HEADER_BYTES ? decodeChunkHeader(header) : null;
        if (h === null || h.firstOffset !== this.next || at + chunkSize(h) > size) break;
        if (last) {
          const data = Buffer.allocUnsafe(h.dataLength);
          if (readSync(fd, data, 0, h.dataLength, at + chunkDataStart(h)) !== h.dataLength || !chunkDataIntact(h, data)) break;
        }
        const bytes = chunkSize(h);
        this.index.add({ firstOffset: h.firstOffset, count: h.records, timestamp: h.timestamp, segment: seg.id, position: at, bytes });
        this.next += h.records;
        seg.newest = h.timestamp;
        at += bytes;
      }
      if (at < size) {
        if (!last) throw new Error(`stream segment ${seg.path} is damaged at byte ${at} (only the last segment may end in a torn chunk)`);
        ftruncateSync(fd, at);
        fdatasyncSync(fd);
      }
      seg.bytes = at;
      this.totalBytes += at;
      this.segments.push(seg);
      this.segmentsById.set(seg.id, seg);
    }
  }
}

/** 20 digits, so that file names sort as offsets do. */
export function segmentName(firstOffset: number): string {
  return `${String(firstOffset).padStart(20, "0")}${SEGMENT_SUFFIX}`;
}

/** Writes `pieces` at `position`, continuing after short writes. */
async function writeAll(fd: number, pieces: Buffer[], position: number): Promise<void> {
  let total = 0;
  for (const p of pieces) total += p.length;
  let done = 0;
  let rest = pieces;
  while (done < total) {
    const n = await new Promise<number>((resolve, reject) => writev(fd, rest, position + done, (err, written) => (err ? reject(err) : resolve(written))));
    done += n;
    if (done < total) rest = remainder(pieces, done);
  }
}

/** `pieces` without their first `skip` bytes (after a short writev). */
function remainder(pieces: readonly Buffer[], skip: number): Buffer[] {
  const out: Buffer[] = [];
  for (const p of pieces) {
    if (skip >= p.length) {
      skip -= p.length;
      continue;
    }
    out.push(skip > 0 ? p.subarray(skip) : p);
    skip = 0;
  }
  return out;
}
