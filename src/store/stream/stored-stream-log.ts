/**
 * A stream's log on disk as the domain sees it (StreamLog): messages appended during one
 * event-loop turn become one chunk when the message store's batch starts (`seal`), are written
 * and fsynced with that batch (`flush`), and are read back by offset through readers that decode
 * one chunk at a time (AMQP 1.0, src/amqp10: a message published over 1.0 is kept whole, as
 * RabbitMQ 4 keeps it, others in the model form: stored-original.ts). The newest chunk's messages are kept as they were
 * appended, so consumers following the tail read nothing back from disk. Consumers of either
 * protocol (native ones take whole chunks) read committed messages only (`committedOffset`, moved
 * by batch-confirm.ts once the batch is stored by the confirm rule: on disk, and in a cluster on
 * enough followers). A native publisher's message is kept as its AMQP 1.0 bytes and decoded only
 * if an AMQP 0-9-1 consumer reads it. The stream's tracking (consumers' stored offsets,
 * publishers' last publishing ids) is stream-tracking.ts's.
 *
 * Reading a large backlog allocates no buffer per chunk: a lending reader (for consumers that
 * copy each body as they deliver it) reads every chunk into one buffer of its own, and a chunk
 * cursor reads into a few buffers the socket gives back once it has written them (BufferPool);
 * both let go of their buffers when they reach the end but one small one (for a live reader's next chunk).
 */
import { BufferPool } from "../../broker/values/buffer-pool.js";
import { createMessage, filterValueOf, type ChunkCursor, type EncodedMessageDecoder, type EncodedSubBatch, type Message, type StreamFilter, type StreamLog, type StreamReader, type StreamRecord, type StreamRetention } from "../../broker/index.js";
import { amqp10FromDomain } from "../../amqp10/message-mapping.js";
import { AMQP10_FORMAT, readStreamRecord } from "../../amqp10/stored-original.js";
import { chunkMessages, filterOf, type ChunkEntry } from "./chunk-format.js";
import { ChunkMatcher, chunkEnd, chunkFilter, FILTER_BYTES } from "./chunk-filter.js";
import { SUB_BATCH_HEADER_BYTES, subBatchEntry, type SubBatchEntry } from "./sub-batch.js";

const NO_FILTER = Buffer.alloc(0);

import type { ChunkLog } from "./chunk-log.js";
import { StreamTracking } from "./stream-tracking.js";

interface DecodedChunk {
  readonly firstOffset: number;
  readonly timestamp: number;
  /**
   * null: not decoded yet (a native message, kept as its bytes in `pieces`, when `decode` is set),
   * or unreadable (in a compressed sub-batch Coney has no codec for, when it is not).
   */
  readonly messages: (Message | null)[];
  readonly pieces: readonly (readonly Buffer[])[];
  readonly decode: EncodedMessageDecoder | null;
  /** The chunk's filter (empty: none). */
  readonly filter: Buffer;
  /** The reader's reused buffer the messages are views into; null when they are not in one. */
  readonly buffer: Buffer | null;
}

/** Buffers larger than this (a chunk of many large messages) are read once and not kept for reuse. */
const REUSED_CHUNK_MAX = 16 * 1024 * 1024;
/** The largest buffer a reader at the end keeps for the next chunk (a live reader's chunks are small). */
const IDLE_BUFFER_MAX = 1024 * 1024;
/** Chunk buffers a native subscription keeps while it reads on (credit bounds how many are in flight). */
const CURSOR_FREE_BUFFERS = 12;

/** The pieces of a message inside a sub-batch (the batch is one entry of its own). */
const NO_PIECES: Buffer[] = [];

export class StoredStreamLog implements StreamLog {
  private unsealed: (Message | null)[] = [];
  private decode: EncodedMessageDecoder | null = null;
  private committed: number;
  private flushed: number;
  /** Consumers' stored offsets and publishers' last ids (stream-tracking.ts). */
  private readonly tracking: StreamTracking;
  onCommit: (() => void) | null = null;
  private unsealedPieces: (readonly Buffer[])[] = [];
  /** This turn's sub-entry batches by the place of their first message in `unsealed`; null: none (the usual case). */
  private unsealedBatches: Map<number, SubBatchEntry> | null = null;
  private unsealedBytes = 0;
  /** Filter values of the unsealed messages (null: none has one, so the chunk gets no filter). */
  private unsealedFilters: (string | null)[] | null = null;
  /** The newest sealed chunk, as appended. */
  private tail: DecodedChunk | null = null;

  constructor(
    private readonly chunks: ChunkLog,
    private readonly appended: (log: StoredStreamLog) => void,
    private readonly closed: (log: StoredStreamLog) => void,
    private readonly now: () => number = Date.now,
    /** Bytes of a chunk's filter (x-stream-filter-size-bytes). */
    private readonly filterBytes = FILTER_BYTES,
  ) {
    this.committed = chunks.nextOffset;
    this.flushed = this.committed;
    this.tracking = new StreamTracking(chunks, () => this.appended(this));
  }

  get committedOffset(): number {
    return this.committed;
  }

  get firstOffset(): number {
    return this.chunks.chunkCount > 0 ? this.chunks.firstOffset : this.chunks.nextOffset;
  }

  get nextOffset(): number {
    return this.chunks.nextOffset + this.unsealed.length;
  }

  get lastChunkOffset(): number {
    if (this.unsealed.length > 0) return this.chunks.nextOffset;
    return this.chunks.chunkCount > 0 ? this.chunks.chunkAt(this.chunks.chunkCount - 1).firstOffset : this.chunks.nextOffset;
  }

  get bytes(): number {
    return this.chunks.bytes + this.unsealedBytes;
  }

  get segmentCount(): number {
    return this.chunks.segmentCount;
  }

  append(message: Message): number {
    const offset = this.nextOffset;
    // A message published over AMQP 1.0 is stored as its 1.0 message, as RabbitMQ 4 stores it
    // (stored-original.ts): the parts it came with, not copied; any other in the model form.
    const o = message.original;
    const pieces = o !== null && o.format === AMQP10_FORMAT ? o.parts : amqp10FromDomain(message.properties, Buffer.isBuffer(message.body) ? [message.body] : message.body, message);
    // RabbitMQ 3.13's AMQP 0-9-1 filter value (chunk-filter.ts).
    this.noteFilter(filterValueOf(message));
    this.unsealed.push(message);
    this.unsealedPieces.push(pieces);
    for (const p of pieces) this.unsealedBytes += p.length;
    // Every append counts (not only a turn's first): a publisher whose message joins a chunk
    // another publisher started this turn must also wait for that chunk's sync before its confirm.
    this.appended(this);
    return offset;
  }

  appendEncoded(bytes: Buffer, decode: EncodedMessageDecoder, filter: string | null = null): number {
    const offset = this.nextOffset;
    this.noteFilter(filter);
    this.decode = decode;
    this.unsealed.push(null);
    this.unsealedPieces.push([bytes]);
    this.unsealedBytes += bytes.length;
    this.appended(this);
    return offset;
  }

  /** Keeps a message's filter value; nothing is kept while no message of the coming chunk has one. */
  private noteFilter(filter: string | null): void {
    if (filter === null || filter === "") {
      if (this.unsealedFilters !== null) this.unsealedFilters.push(null);
      return;
    }
    (this.unsealedFilters ??= new Array<string | null>(this.unsealed.length).fill(null)).push(filter);
  }

  appendSubBatch(batch: EncodedSubBatch, _decode: EncodedMessageDecoder): number {
    const offset = this.nextOffset;
    const entry = subBatchEntry(batch.compression, batch.records, batch.uncompressedBytes, batch.data);
    // Keyed by where its first message lies among the turn's (each of its messages takes a place).
    (this.unsealedBatches ??= new Map()).set(this.unsealed.length, entry);
    for (let k = 0; k < batch.records; k++) {
      // A sub-batch's messages carry no filter value (the chunk filter marks them as without one).
      this.noteFilter(null);
      this.unsealed.push(null);
      this.unsealedPieces.push(NO_PIECES);
    }
    this.unsealedBytes += SUB_BATCH_HEADER_BYTES + batch.data.length;
    this.appended(this);
    return offset;
  }

  chunkCursor(offset: number): ChunkCursor {
    let position = offset;
    const pool = new BufferPool(CURSOR_FREE_BUFFERS, REUSED_CHUNK_MAX);
    return {
      get position() {
        return position;
      },
      next: () => {
        position = Math.max(position, this.firstOffset);
        const i = position < this.committed ? this.chunks.findOffset(position) : this.chunks.chunkCount;
        if (i >= this.chunks.chunkCount || this.chunks.chunkAt(i).firstOffset >= this.committed) {
          // At the end: an idle subscription keeps at most one small buffer, for the next chunk.
          pool.trim(1, IDLE_BUFFER_MAX);
          return null;
        }
        const at = this.chunks.chunkAt(i);
        position = at.firstOffset + at.count;
        const bytes = this.chunks.readChunk(i, pool);
        return { firstOffset: at.firstOffset, count: at.count, timestamp: at.timestamp, bytes, release: () => pool.give(bytes) };
      },
    };
  }

  storeOffset(reference: string, offset: number): void {
    this.tracking.storeOffset(reference, offset);
  }

  queryOffset(reference: string): number | undefined {
    return this.tracking.queryOffset(reference);
  }

  publisherSequence(reference: string): number | undefined {
    return this.tracking.publisherSequence(reference);
  }

  setPublisherSequence(reference: string, sequence: number): void {
    this.tracking.setPublisherSequence(reference, sequence);
  }

  /**
   * The batch starts: this turn's messages become one chunk (at most 65,535 messages a chunk; with
   * filter values, cut where messages with and without one change: chunkEnd).
   */
  seal(): void {
    const timestamp = this.now();
    if (this.unsealedBatches !== null) return this.sealWithBatches(timestamp, this.unsealedBatches);
    const total = this.unsealed.length;
    const filters = this.unsealedFilters;
    for (let start = 0; start < total; ) {
      const most = Math.min(total, start + 0xffff);
      const end = filters === null ? most : chunkEnd(filters, start, most);
      const pieces = this.unsealedPieces.slice(start, end);
      const filter = filters === null ? null : chunkFilter(filters.slice(start, end), this.filterBytes);
      const { firstOffset } = this.chunks.append(pieces, timestamp, filter);
      this.tail = { firstOffset, timestamp, messages: this.unsealed.slice(start, end), pieces, decode: this.decode, buffer: null, filter: filter ?? NO_FILTER };
      start = end;
    }
    this.unsealed = [];
    this.unsealedPieces = [];
    this.unsealedFilters = null;
    this.unsealedBytes = 0;
  }

  /**
   * seal() when sub-entry batches came this turn: a batch is one entry for its messages' offsets.
   * The chunk is read back from the log when read (no tail kept as appended).
   */
  private sealWithBatches(timestamp: number, batches: ReadonlyMap<number, SubBatchEntry>): void {
    let entries: ChunkEntry[] = [];
    /** Where the chunk being built starts among the turn's messages (its filter values' range). */
    let from = 0;
    const filters = this.unsealedFilters;
    const filterOfRange = (to: number): Buffer | null => (filters === null ? null : chunkFilter(filters.slice(from, to), this.filterBytes));
    for (let i = 0; i < this.unsealed.length; ) {
      const b = batches.get(i);
      entries.push(b ?? this.unsealedPieces[i]!);
      i += b ? b.records : 1;
      if (entries.length === 0xffff) {
        this.chunks.append(entries, timestamp, filterOfRange(i));
        entries = [];
        from = i;
      }
    }
    if (entries.length > 0) this.chunks.append(entries, timestamp, filterOfRange(this.unsealed.length));
    this.unsealedFilters = null;
    this.tail = null;
    this.unsealed = [];
    this.unsealedPieces = [];
    this.unsealedBatches = null;
    this.unsealedBytes = 0;
  }

  async flush(sync: boolean): Promise<void> {
    const upTo = this.chunks.nextOffset;
    // A side file: replaced atomically, and replicated to a cluster's followers with this batch.
    this.tracking.writeIfChanged();
    await this.chunks.flush(sync);
    this.flushed = Math.max(this.flushed, upTo);
  }

  /** The end of what the last flush wrote (not yet readable: see commit). */
  get flushedOffset(): number {
    return this.flushed;
  }

  /**
   * Messages before `upTo` are stored by the confirm rule (on disk; in a cluster on enough
   * followers too): consumers may read them now (batch-confirm.ts).
   */
  commit(upTo: number): void {
    if (upTo <= this.committed) return;
    this.committed = upTo;
    this.chunks.committed(upTo);
    this.onCommit?.();
  }

  /** Tells the log's tap how far it is committed (a replica attached after recovery). */
  announceCommitted(): void {
    this.chunks.committed(this.committed);
  }

  reader(offset: number, lend = false, filter: StreamFilter | null = null): StreamReader {
    let position = offset;
    let chunk: DecodedChunk | null = null;
    const matcher = filter === null ? null : new ChunkMatcher(filter);
    /** Lending: the one buffer every chunk read from the files goes into. */
    const pool = lend ? new BufferPool(1, REUSED_CHUNK_MAX) : null;
    /** Leaves the current chunk: its buffer may take the next one. */
    const leave = (): void => {
      if (chunk?.buffer) pool!.give(chunk.buffer);
      chunk = null;
    };
    return {
      get position() {
        return position;
      },
      next: (): StreamRecord | null => {
        position = Math.max(position, this.firstOffset);
        for (;;) {
          // Committed messages only (batch-confirm.ts): what a failover could still lose is not read.
          if (position >= this.committed) {
            // Caught up: an idle reader holds at most one small buffer.
            if (pool !== null) {
              leave();
              pool.trim(1, IDLE_BUFFER_MAX);
            }
            return null;
          }
          if (chunk === null || position < chunk.firstOffset || position >= chunk.firstOffset + chunk.messages.length) {
            if (pool !== null) leave();
            chunk = this.chunkOf(position, pool);
            // A chunk whose filter cannot match is skipped whole (chunk-filter.ts).
            if (matcher !== null && !matcher.matches(chunk.filter)) {
              position = chunk.firstOffset + chunk.messages.length;
              if (pool !== null) leave();
              else chunk = null;
              continue;
            }
          }
          const k = position - chunk.firstOffset;
          let message = chunk.messages[k]!;
          if (message === null && chunk.decode !== null) message = chunk.messages[k] = chunk.decode(chunk.pieces[k]![0]!);
          // null: in a compressed sub-batch Coney cannot read (sub-batch.ts): skipped, as RabbitMQ does.
          if (message !== null) return { offset: position++, timestamp: chunk.timestamp, message };
          position++;
        }
      },
    };
  }

  offsetAt(timestamp: number): number {
    const i = this.chunks.findTimestamp(timestamp);
    return i < this.chunks.chunkCount ? this.chunks.chunkAt(i).firstOffset : this.chunks.nextOffset;
  }

  applyRetention(r: StreamRetention): void {
    this.chunks.applyRetention(r);
  }

  destroy(): void {
    this.unsealed = [];
    this.unsealedPieces = [];
    this.tail = null;
    this.chunks.destroy();
    this.closed(this);
  }

  close(): void {
    this.chunks.close();
  }

  /**
   * The chunk holding `offset`: the tail as appended, or read from its segment (into a buffer of
   * `pool` when lending) and decoded, its messages' bodies views into that buffer.
   */
  private chunkOf(offset: number, pool: BufferPool | null): DecodedChunk {
    const t = this.tail;
    if (t !== null && offset >= t.firstOffset && offset < t.firstOffset + t.messages.length) return t;
    const i = this.chunks.findOffset(offset);
    const at = this.chunks.chunkAt(i);
    const bytes = this.chunks.readChunk(i, pool ?? undefined);
    const messages = chunkMessages(bytes).map((m) => {
      if (m === null) return null;
      const d = readStreamRecord(m);
      return createMessage(d.address.exchange, d.address.routingKey, d.properties, null, d.body, at.timestamp, null, d.original === undefined ? null : { format: AMQP10_FORMAT, parts: d.original });
    });
    return { firstOffset: at.firstOffset, timestamp: at.timestamp, messages, pieces: [], decode: null, buffer: pool !== null ? bytes : null, filter: filterOf(bytes) };
  }
}
