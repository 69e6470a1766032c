/**
 * Where each chunk of a stream is: its first offset, timestamp, segment and position, in
 * growable typed arrays (36 bytes a chunk; a 10 GB stream of 1 KB messages in chunks of ~100 is
 * ~100,000 chunks, 3.6 MB). Chunks are appended in offset order and removed from the front
 * (retention), so lookups by offset or timestamp are binary searches.
 * Invariant: entries [start, end) are live; firstOffset and timestamp are non-decreasing.
 */
export interface ChunkLocation {
  readonly firstOffset: number;
  readonly count: number;
  readonly timestamp: number;
  readonly segment: number;
  readonly position: number;
  readonly bytes: number;
}

export class ChunkIndex {
  private firstOffsets = new Float64Array(1024);
  private timestamps = new Float64Array(1024);
  private positions = new Float64Array(1024);
  private segments = new Uint32Array(1024);
  private counts = new Uint32Array(1024);
  private sizes = new Uint32Array(1024);
  private start = 0;
  private end = 0;

  get length(): number {
    return this.end - this.start;
  }

  add(c: ChunkLocation): void {
    if (this.end === this.firstOffsets.length) this.grow();
    const i = this.end++;
    this.firstOffsets[i] = c.firstOffset;
    this.timestamps[i] = c.timestamp;
    this.positions[i] = c.position;
    this.segments[i] = c.segment;
    this.counts[i] = c.count;
    this.sizes[i] = c.bytes;
  }

  /** The i-th live chunk (0 = the oldest kept). */
  at(i: number): ChunkLocation {
    const k = this.start + i;
    return { firstOffset: this.firstOffsets[k]!, count: this.counts[k]!, timestamp: this.timestamps[k]!, segment: this.segments[k]!, position: this.positions[k]!, bytes: this.sizes[k]! };
  }

  /** The index of the chunk holding `offset`, or of the first chunk after it; `length` when past the end. */
  findOffset(offset: number): number {
    let lo = this.start;
    let hi = this.end;
    // The last chunk whose first offset is ≤ offset.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.firstOffsets[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    const k = lo - 1;
    if (k < this.start) return 0;
    return offset < this.firstOffsets[k]! + this.counts[k]! ? k - this.start : k + 1 - this.start;
  }

  /** The index of the first chunk written at or after `timestamp` (ms); `length` when none is. */
  findTimestamp(timestamp: number): number {
    let lo = this.start;
    let hi = this.end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.timestamps[mid]! < timestamp) lo = mid + 1;
      else hi = mid;
    }
    return lo - this.start;
  }

  /** Drops the oldest chunks while they are in `segment`; returns how many. */
  dropSegment(segment: number): number {
    let n = 0;
    while (this.start < this.end && this.segments[this.start] === segment) {
      this.start++;
      n++;
    }
    if (this.start === this.end) this.start = this.end = 0;
    return n;
  }

  private grow(): void {
    const live = this.end - this.start;
    const cap = Math.max(1024, live * 2);
    const move = <T extends Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a.subarray(this.start, this.end));
      return b;
    };
    this.firstOffsets = move(this.firstOffsets, (n) => new Float64Array(n));
    this.timestamps = move(this.timestamps, (n) => new Float64Array(n));
    this.positions = move(this.positions, (n) => new Float64Array(n));
    this.segments = move(this.segments, (n) => new Uint32Array(n));
    this.counts = move(this.counts, (n) => new Uint32Array(n));
    this.sizes = move(this.sizes, (n) => new Uint32Array(n));
    this.start = 0;
    this.end = live;
  }
}
