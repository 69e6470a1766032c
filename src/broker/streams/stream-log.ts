/**
 * A stream's messages as the domain sees them (docs/STREAMS.md): appended in offset order, read
 * from any offset through readers, found by timestamp, trimmed by retention. The message store
 * implements it on files (src/store/stream); a broker that stores nothing uses MemoryStreamLog.
 */
import type { Message } from "../message.js";

/** One message read back, with its place in the stream. */
export interface StreamRecord {
  readonly offset: number;
  /** When its chunk was written (ms since the epoch). */
  readonly timestamp: number;
  readonly message: Message;
}

/** Reads forward from an offset; moves to the first kept offset if retention removed its place. */
export interface StreamReader {
  /** The offset `next()` reads. */
  readonly position: number;
  /** The next message, or null at the end (call again once more was appended). */
  next(): StreamRecord | null;
}

export interface StreamRetention {
  /** x-max-length-bytes; 0: no limit. */
  readonly maxBytes: number;
  /** x-max-age in ms; 0: no limit. */
  readonly maxAgeMs: number;
}

export interface StreamLog {
  /** The oldest offset kept (the next offset when empty). */
  readonly firstOffset: number;
  /** The offset the next message gets. */
  readonly nextOffset: number;
  /** The first offset of the newest chunk ("last" in x-stream-offset); the next offset when empty. */
  readonly lastChunkOffset: number;
  /** Bytes kept (on disk, or in memory). */
  readonly bytes: number;
  readonly segmentCount: number;
  /** Appends `message` and returns its offset; durable once the store's next sync completes. */
  append(message: Message): number;
  reader(offset: number): StreamReader;
  /** The first offset written at or after `timestamp` (ms); the next offset when none was. */
  offsetAt(timestamp: number): number;
  applyRetention(r: StreamRetention): void;
  /** The stream was deleted: everything it kept is removed. */
  destroy(): void;
}
