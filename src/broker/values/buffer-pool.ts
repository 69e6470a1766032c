/**
 * A free list of byte buffers, so that code moving many bytes (a connection's output, a stream
 * reader's chunks) reuses the same memory instead of leaving a garbage Buffer behind per chunk.
 * Garbage Buffers are external memory that V8 frees only at its collector's pace: a 1 GB stream
 * read allocated 1 GB of them and the process grew by hundreds of MiB (docs/PERFORMANCE.md,
 * "Streams over AMQP").
 *
 * take(n) hands out a Buffer of exactly n bytes over memory no one else holds: a free one at
 * least that large, or a new allocation (rounded up to a power of two, so a slightly larger
 * request later still fits). Small requests (under 4 KiB) come from Node's shared slab, as
 * Buffer.allocUnsafe's do, and are never kept: cheaper than a buffer of their own, and young
 * garbage that the collector frees at once. give(b) returns it once nothing refers to its bytes any more: the
 * owner must be sure of that (a socket's write callback fired, the next chunk replaces it), since
 * the next take() may hand out the same bytes. Buffers over `maxBytes` are never kept, and at most
 * `maxFree` are kept at once, so an idle pool holds at most maxFree × maxBytes.
 */
import { Buffer } from "node:buffer";

/** Requests below this are slices of Node's shared slab (Buffer.allocUnsafe), never kept. */
const SMALL = 4096;
/**
 * The smallest buffer of its own: larger than Node's slab (Buffer.poolSize, 8 KiB), so give()
 * can tell a slab (shared with other Buffers: never to be reused) by its size and leave it.
 */
const MIN_OWN = 16 * 1024;

export class BufferPool {
  private readonly free: ArrayBuffer[] = [];

  constructor(
    private readonly maxFree: number,
    private readonly maxBytes: number,
  ) {}

  /** Buffers kept for reuse. */
  get freeCount(): number {
    return this.free.length;
  }

  /** A buffer of `n` bytes whose memory nothing else holds (its contents are not zeroed). */
  take(n: number): Buffer {
    const free = this.free;
    // A few entries at most (maxFree), once per chunk or output block: never per message.
    for (let i = free.length - 1; i >= 0; i--) {
      const ab = free[i]!;
      if (ab.byteLength >= n) {
        free[i] = free[free.length - 1]!;
        free.pop();
        return Buffer.from(ab, 0, n);
      }
    }
    if (n < SMALL) return Buffer.allocUnsafe(n);
    // Too large to keep: exactly what was asked. Otherwise a power of two, its own memory.
    const size = n > this.maxBytes ? n : allocationFor(n);
    return Buffer.from(Buffer.allocUnsafeSlow(size).buffer, 0, n);
  }

  /** Returns a buffer take() handed out (or a view into it): its memory may be handed out again. */
  give(b: Buffer): void {
    const ab = b.buffer;
    if (ab.byteLength < MIN_OWN || ab.byteLength > this.maxBytes || this.free.length >= this.maxFree) return;
    if (!(ab instanceof ArrayBuffer)) return;
    this.free.push(ab);
  }

  /** Forgets the kept buffers (the owner went idle: it need not hold memory meanwhile). */
  clear(): void {
    this.free.length = 0;
  }

  /**
   * Keeps at most `keep` free buffers of at most `maxBytes` each (an owner at the end of what it
   * reads keeps one small buffer for the next chunk a live reader gets, and nothing large).
   */
  trim(keep: number, maxBytes: number): void {
    let kept = 0;
    for (const ab of this.free) if (kept < keep && ab.byteLength <= maxBytes) this.free[kept++] = ab;
    this.free.length = kept;
  }
}

function allocationFor(n: number): number {
  let size = MIN_OWN;
  while (size < n) size *= 2;
  return size;
}
