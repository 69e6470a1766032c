/**
 * Reads a stream's committed chunks from this node's copy of its segment files (a follower's
 * replicated files, or a leader's own): where an offset specification starts, then whole chunks
 * in order, header and all, as a native consumer is sent them (docs/STREAMS.md, "Followers serve
 * the stream port"). Nothing is indexed in memory: a start is found by reading chunk headers
 * (48 bytes each) in the one segment that holds it, and a cursor holds one open segment, which
 * keeps it readable when retention deletes it meanwhile. It never reads at or past `committed`.
 */
import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import type { StreamStart } from "../broker/index.js";
import { CHUNK_HEADER_BYTES, CHUNK_TYPE_USER, chunkSize, decodeChunkHeader, type ChunkHeader } from "../store/stream/chunk-format.js";

export interface ReplicaChunk {
  readonly firstOffset: number;
  readonly count: number;
  /** The whole chunk: header, data and trailer. */
  readonly bytes: Buffer;
}

/** Segment files are named by their first offset in 20 digits (chunk-log.ts). */
const SEGMENT = /^(\d{20})\.segment$/;

/** The first offsets of the stream's segment files, in order (none when the stream has no directory). */
export function segmentsOf(dir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const n of names) {
    const m = SEGMENT.exec(n);
    if (m !== null) out.push(Number(m[1]));
  }
  return out.sort((a, b) => a - b);
}

function segmentPath(dir: string, first: number): string {
  return join(dir, `${String(first).padStart(20, "0")}.segment`);
}

export class ReplicaCursor {
  private fd: number | null = null;
  /** First offset of the open segment; -1 before any. */
  private segFirst = -1;
  private position = 0;
  private readonly head = Buffer.allocUnsafe(CHUNK_HEADER_BYTES);

  constructor(private readonly dir: string) {}

  /** Places the cursor where `start` begins among the chunks before `committed`; returns that offset. */
  seek(start: StreamStart, committed: number): number {
    const segs = segmentsOf(this.dir);
    this.closeFile();
    this.segFirst = -1;
    if (segs.length === 0) return committed;
    switch (start.kind) {
      case "first":
        this.open(segs[0]!);
        return this.peekOffset(committed) ?? committed;
      case "next":
        return this.seekOffset(segs, committed, committed);
      case "offset":
        return this.seekOffset(segs, Math.min(start.offset, committed), committed);
      case "last":
        return this.seekLast(segs, committed);
      case "timestamp":
        return this.seekTimestamp(segs, start.ms, committed);
    }
  }

  /** The next committed chunk, or null when there is none yet (or the stream is gone). */
  next(committed: number): ReplicaChunk | null {
    for (;;) {
      if (this.fd === null && !this.openNext()) return null;
      const h = this.header();
      if (h === null) {
        // The end of this segment's bytes: a later segment means this one is sealed.
        if (!this.openNext()) return null;
        continue;
      }
      if (h.firstOffset >= committed) return null;
      const size = chunkSize(h);
      const bytes = Buffer.allocUnsafe(size);
      if (this.readFull(bytes, this.position) < size) return null;
      this.position += size;
      if (h.chunkType !== CHUNK_TYPE_USER) continue;
      return { firstOffset: h.firstOffset, count: h.records, bytes };
    }
  }

  close(): void {
    this.closeFile();
  }

  /** The chunk holding `target`, or the end of the segment where it will be written. */
  private seekOffset(segs: readonly number[], target: number, committed: number): number {
    let i = 0;
    while (i + 1 < segs.length && segs[i + 1]! <= target) i++;
    this.open(segs[i]!);
    for (let h = this.header(); h !== null && h.firstOffset < committed && h.firstOffset + h.records <= target; h = this.header()) this.skip(h);
    // Whole chunks are sent: a start inside one gets all of it, and the client skips what is before.
    return target;
  }

  private seekLast(segs: readonly number[], committed: number): number {
    for (let i = segs.length - 1; i >= 0; i--) {
      if (segs[i]! >= committed) continue;
      this.open(segs[i]!);
      let last = -1;
      for (let h = this.header(); h !== null && h.firstOffset < committed; h = this.header()) {
        if (h.chunkType === CHUNK_TYPE_USER) last = this.position;
        this.skip(h);
      }
      if (last >= 0) {
        this.position = last;
        return this.peekOffset(committed) ?? committed;
      }
    }
    return this.seekOffset(segs, committed, committed);
  }

  private seekTimestamp(segs: readonly number[], ms: number, committed: number): number {
    for (const first of segs) {
      if (first >= committed) break;
      this.open(first);
      for (let h = this.header(); h !== null && h.firstOffset < committed; h = this.header()) {
        if (h.timestamp >= ms) return h.firstOffset;
        this.skip(h);
      }
    }
    return this.seekOffset(segs, committed, committed);
  }

  private skip(h: ChunkHeader): void {
    this.position += chunkSize(h);
  }

  private peekOffset(committed: number): number | null {
    const h = this.header();
    return h !== null && h.firstOffset < committed ? h.firstOffset : null;
  }

  /** Opens the segment after the current one (the oldest there is, when retention took ours). */
  private openNext(): boolean {
    const later = segmentsOf(this.dir).find((f) => f > this.segFirst);
    if (later === undefined) return false;
    this.open(later);
    return this.fd !== null;
  }

  private open(first: number): void {
    this.closeFile();
    this.segFirst = first;
    this.position = 0;
    try {
      this.fd = openSync(segmentPath(this.dir, first), "r");
    } catch {
      this.fd = null; // deleted meanwhile: the next call moves on
    }
  }

  private header(): ChunkHeader | null {
    if (this.fd === null) return null;
    if (this.readFull(this.head, this.position) < CHUNK_HEADER_BYTES) return null;
    return decodeChunkHeader(this.head);
  }

  private readFull(into: Buffer, at: number): number {
    let got = 0;
    while (got < into.length) {
      const n = readSync(this.fd!, into, got, into.length - got, at + got);
      if (n === 0) break;
      got += n;
    }
    return got;
  }

  private closeFile(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
