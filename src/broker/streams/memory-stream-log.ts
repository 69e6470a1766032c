/**
 * A stream kept in memory, for a broker that stores nothing (`--in-memory`, coney/testing): the
 * same offsets, readers and retention as the file log, one record per message. Retention drops
 * the oldest messages (there are no segments to keep whole). With no chunks there are no chunk
 * filters: each record keeps its message's filter value, and a filtering reader skips the
 * messages its filter does not want (exact where a chunk filter is a Bloom filter; clients filter
 * again either way).
 */
import type { Message } from "../message.js";
import { filterValueOf, filterWants, type ChunkCursor, type EncodedMessageDecoder, type EncodedSubBatch, type StreamFilter, type StreamLog, type StreamReader, type StreamRecord, type StreamRetention } from "./stream-log.js";

export class MemoryStreamLog implements StreamLog {
  private records: StreamRecord[] = [];
  /** Offset of records[0]. */
  private base = 0;
  private next = 0;
  private size = 0;
  private readonly offsets = new Map<string, number>();
  private readonly sequences = new Map<string, number>();
  onCommit: (() => void) | null = null;

  constructor(private readonly now: () => number) {}

  get firstOffset(): number {
    return this.records.length === 0 ? this.next : this.base;
  }

  get nextOffset(): number {
    return this.next;
  }

  get lastChunkOffset(): number {
    return this.records.length === 0 ? this.next : this.next - 1;
  }

  get bytes(): number {
    return this.size;
  }

  get segmentCount(): number {
    return this.records.length === 0 ? 0 : 1;
  }

  get committedOffset(): number {
    return this.next;
  }

  append(message: Message): number {
    return this.push({ offset: this.next, timestamp: this.now(), message, filter: filterValueOf(message) });
  }

  appendEncoded(bytes: Buffer, decode: EncodedMessageDecoder, filter: string | null = null): number {
    return this.push({ offset: this.next, timestamp: this.now(), message: decode(bytes), encoded: bytes, filter: filter === "" ? null : filter });
  }

  /**
   * Kept as its messages, one record each (native readers get them as single entries): a batch
   * whose messages cannot be read (snappy, lz4, zstd) cannot be kept here.
   */
  appendSubBatch(batch: EncodedSubBatch, decode: EncodedMessageDecoder): number {
    const messages = batch.expand();
    if (messages === null) return -1;
    const first = this.next;
    for (const m of messages) this.appendEncoded(m, decode);
    return first;
  }

  /** Nothing waits for a disk here: a message is committed once appended. */
  private push(r: StreamRecord): number {
    if (this.records.length === 0) this.base = this.next;
    this.next++;
    this.records.push(r);
    this.size += r.message.bodySize;
    this.onCommit?.();
    return r.offset;
  }

  /** No chunks in memory: the native transport builds them from the records. */
  chunkCursor(_offset: number): ChunkCursor | null {
    return null;
  }

  storeOffset(reference: string, offset: number): void {
    this.offsets.set(reference, offset);
  }

  queryOffset(reference: string): number | undefined {
    return this.offsets.get(reference);
  }

  publisherSequence(reference: string): number | undefined {
    return this.sequences.get(reference);
  }

  setPublisherSequence(reference: string, sequence: number): void {
    this.sequences.set(reference, sequence);
  }

  reader(offset: number, _lend = false, filter: StreamFilter | null = null): StreamReader {
    let position = offset;
    return {
      get position() {
        return position;
      },
      next: () => {
        if (position < this.base) position = this.base;
        for (;;) {
          const r = this.records[position - this.base];
          if (r === undefined) return null;
          position++;
          if (filter === null || filterWants(filter, r.filter ?? null)) return r;
        }
      },
    };
  }

  offsetAt(timestamp: number): number {
    let lo = 0;
    let hi = this.records.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.records[mid]!.timestamp < timestamp) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.records.length ? this.records[lo]!.offset : this.next;
  }

  applyRetention(r: StreamRetention): void {
    const cutoff = this.now() - r.maxAgeMs;
    let drop = 0;
    let size = this.size;
    // Keeps at least the newest message, as the file log keeps its current segment.
    while (drop < this.records.length - 1) {
      const rec = this.records[drop]!;
      if (!((r.maxBytes > 0 && size > r.maxBytes) || (r.maxAgeMs > 0 && rec.timestamp < cutoff))) break;
      size -= rec.message.bodySize;
      drop++;
    }
    if (drop === 0) return;
    this.records = this.records.slice(drop);
    this.base += drop;
    this.size = size;
  }

  destroy(): void {
    this.records = [];
    this.size = 0;
  }
}
