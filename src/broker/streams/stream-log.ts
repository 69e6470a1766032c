/**
 * A stream's messages as the domain sees them (docs/STREAMS.md): appended in offset order, read
 * from any offset through readers, found by timestamp, trimmed by retention. The message store
 * implements it on files (src/store/stream); a broker that stores nothing uses MemoryStreamLog.
 */
import type { Message } from "../message.js";

/** What a consumer wants of a stream's chunk filters (RabbitMQ 3.13): values, and whether chunks of messages without one match. */
export interface StreamFilter {
  readonly values: readonly string[];
  readonly matchUnfiltered: boolean;
}

/** The AMQP 0-9-1 header a publisher names a message's filter value with (RabbitMQ 3.13). */
const FILTER_HEADER = "x-stream-filter-value";

/** A message's filter value from its x-stream-filter-value header; null without one (or an empty one). */
export function filterValueOf(message: Message): string | null {
  // One lookup, and only when there are headers.
  const v = message.properties.headers?.[FILTER_HEADER];
  return typeof v === "string" && v !== "" ? v : null;
}

/** Whether a message with filter value `value` (null: none) is one the consumer's filter wants. */
export function filterWants(filter: StreamFilter, value: string | null): boolean {
  return value === null ? filter.matchUnfiltered : filter.values.includes(value);
}

/** One message read back, with its place in the stream. */
export interface StreamRecord {
  readonly offset: number;
  /** When its chunk was written (ms since the epoch). */
  readonly timestamp: number;
  readonly message: Message;
  /** The message's AMQP 1.0 bytes when it came so (a native publisher); absent otherwise. */
  readonly encoded?: Buffer;
  /** Its filter value, kept by a log without chunk filters (in memory) to filter per message. */
  readonly filter?: string | null;
}

/** Reads forward from an offset; moves to the first kept offset if retention removed its place. */
export interface StreamReader {
  /** The offset `next()` reads. */
  readonly position: number;
  /** The next message, or null at the end (call again once more was appended). */
  next(): StreamRecord | null;
}

/** A whole chunk as the stream protocol sends it (header and data, the bytes the file holds). */
export interface StreamChunk {
  readonly firstOffset: number;
  readonly count: number;
  readonly timestamp: number;
  readonly bytes: Buffer;
  /**
   * Call once nothing refers to `bytes` any more (the socket wrote them): the cursor reads a later
   * chunk into the same memory. Null: the bytes are the chunk's own (never reused).
   */
  readonly release: (() => void) | null;
}

/** Reads whole committed chunks forward; moves to the first kept chunk if retention removed its place. */
export interface ChunkCursor {
  /** The offset the next chunk starts at or holds. */
  readonly position: number;
  /** The next committed chunk, or null at the committed end. */
  next(): StreamChunk | null;
}

/**
 * A sub-entry batch from a native publisher: several messages in one entry, maybe compressed
 * (the stream protocol's compression types: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd). Kept as it
 * came; each message in it takes an offset.
 */
export interface EncodedSubBatch {
  readonly compression: number;
  /** Messages in it (at least 1). */
  readonly records: number;
  readonly uncompressedBytes: number;
  readonly data: Buffer;
  /** Its messages' AMQP 1.0 bytes when they can be read (uncompressed or gzip); null otherwise. */
  expand(): Buffer[] | null;
}

/** Turns a native message's AMQP 1.0 bytes into the domain's message (the transport knows the format). */
export type EncodedMessageDecoder = (bytes: Buffer) => Message;

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
  /**
   * Appends a message already in the stored form (AMQP 1.0 bytes, from a native publisher): kept
   * as it came; `decode` gives the domain's message when an AMQP 0-9-1 consumer needs one.
   */
  appendEncoded(bytes: Buffer, decode: EncodedMessageDecoder, filter?: string | null): number;
  /**
   * Appends a sub-entry batch and returns its first offset: kept as it came for native readers;
   * AMQP 0-9-1 readers get its messages when they can be read (uncompressed, gzip) and skip
   * their offsets otherwise (RabbitMQ skips every compressed one). -1 when this log cannot keep it.
   */
  appendSubBatch(batch: EncodedSubBatch, decode: EncodedMessageDecoder): number;
  /**
   * Reads messages from `offset`. `lend`: the records' bodies may lie in a buffer the reader
   * reuses, valid only until the next call of next() (for a consumer that copies each body as it
   * delivers it, QueueConsumer.borrowsBodies); otherwise they stay valid for as long as they are held.
   * With a filter, chunks whose filter cannot match are skipped (a log in memory, which keeps no
   * chunks, skips the messages the filter does not want).
   */
  reader(offset: number, lend?: boolean, filter?: StreamFilter | null): StreamReader;
  /** Offsets below this are written: what native consumers may be sent. */
  readonly committedOffset: number;
  /** Told whenever `committedOffset` moves on (set by the StreamQueue). */
  onCommit: (() => void) | null;
  /** Whole chunks from the one holding `offset`; null when this log keeps no chunks (in memory). */
  chunkCursor(offset: number): ChunkCursor | null;
  /** Native consumers' stored offsets by reference (StoreOffset / QueryOffset), kept durably. */
  storeOffset(reference: string, offset: number): void;
  queryOffset(reference: string): number | undefined;
  /** The last publishing id written for a publisher reference (undefined: none yet, so id 0 is new), for deduplication. */
  publisherSequence(reference: string): number | undefined;
  setPublisherSequence(reference: string, sequence: number): void;
  /** The first offset written at or after `timestamp` (ms); the next offset when none was. */
  offsetAt(timestamp: number): number;
  applyRetention(r: StreamRetention): void;
  /** The stream was deleted: everything it kept is removed. */
  destroy(): void;
}
