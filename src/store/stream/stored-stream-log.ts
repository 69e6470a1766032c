/**
 * A stream's log on disk as the domain sees it (StreamLog): messages appended during one
 * event-loop turn become one chunk when the message store's batch starts (`seal`), are written
 * and fsynced with that batch (`flush`), and are read back by offset through readers that decode
 * one chunk at a time (AMQP 1.0, src/amqp10). The newest chunk's messages are kept as they were
 * appended, so consumers following the tail read nothing back from disk.
 */
import { createMessage, type Message, type StreamLog, type StreamReader, type StreamRecord, type StreamRetention } from "../../broker/index.js";
import { decodeMessage } from "../../amqp10/message-sections.js";
import { amqp10FromDomain, domainFromAmqp10 } from "../../amqp10/message-mapping.js";
import { chunkMessages } from "./chunk-format.js";
import type { ChunkLog } from "./chunk-log.js";

interface DecodedChunk {
  readonly firstOffset: number;
  readonly timestamp: number;
  readonly messages: readonly Message[];
}

export class StoredStreamLog implements StreamLog {
  private unsealed: Message[] = [];
  private unsealedPieces: Buffer[][] = [];
  private unsealedBytes = 0;
  /** The newest sealed chunk, as appended. */
  private tail: DecodedChunk | null = null;

  constructor(
    private readonly chunks: ChunkLog,
    private readonly appended: (log: StoredStreamLog) => void,
    private readonly closed: (log: StoredStreamLog) => void,
    private readonly now: () => number = Date.now,
  ) {}

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
    const body = Buffer.isBuffer(message.body) ? [message.body] : message.body;
    const pieces = amqp10FromDomain(message.properties, body, message);
    this.unsealed.push(message);
    this.unsealedPieces.push(pieces);
    for (const p of pieces) this.unsealedBytes += p.length;
    if (this.unsealed.length === 1) this.appended(this);
    return offset;
  }

  /** The batch starts: this turn's messages become one chunk (at most 65,535 messages a chunk). */
  seal(): void {
    const timestamp = this.now();
    while (this.unsealed.length > 0) {
      const n = Math.min(this.unsealed.length, 0xffff);
      const { firstOffset } = this.chunks.append(this.unsealedPieces.slice(0, n), timestamp);
      this.tail = { firstOffset, timestamp, messages: this.unsealed.slice(0, n) };
      this.unsealed = this.unsealed.slice(n);
      this.unsealedPieces = this.unsealedPieces.slice(n);
    }
    this.unsealedBytes = 0;
  }

  flush(sync: boolean): Promise<void> {
    return this.chunks.flush(sync);
  }

  reader(offset: number): StreamReader {
    let position = offset;
    let chunk: DecodedChunk | null = null;
    return {
      get position() {
        return position;
      },
      next: (): StreamRecord | null => {
        position = Math.max(position, this.firstOffset);
        if (position >= this.nextOffset) return null;
        if (position >= this.chunks.nextOffset) {
          const message = this.unsealed[position - this.chunks.nextOffset]!;
          return { offset: position++, timestamp: this.now(), message };
        }
        if (chunk === null || position < chunk.firstOffset || position >= chunk.firstOffset + chunk.messages.length) chunk = this.chunkOf(position);
        const message = chunk.messages[position - chunk.firstOffset]!;
        return { offset: position++, timestamp: chunk.timestamp, message };
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

  /** The chunk holding `offset`: the tail as appended, or read from its segment and decoded. */
  private chunkOf(offset: number): DecodedChunk {
    const t = this.tail;
    if (t !== null && offset >= t.firstOffset && offset < t.firstOffset + t.messages.length) return t;
    const i = this.chunks.findOffset(offset);
    const at = this.chunks.chunkAt(i);
    const messages = chunkMessages(this.chunks.readChunk(i)).map((bytes) => {
      const m = domainFromAmqp10(decodeMessage(bytes));
      return createMessage(m.address.exchange, m.address.routingKey, m.properties, null, m.body, at.timestamp);
    });
    return { firstOffset: at.firstOffset, timestamp: at.timestamp, messages };
  }
}
