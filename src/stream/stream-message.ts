/**
 * Native stream messages and the domain: a native publisher's AMQP 1.0 bytes become the domain's
 * message only when an AMQP 0-9-1 consumer reads them (decodeNative, handed to the stream), and a
 * stream kept in memory (a broker that stores nothing) has its messages put into chunks of the
 * protocol's layout when a native consumer reads them (memoryChunks).
 */
import { decodeMessage } from "../amqp10/message-sections.js";
import { amqp10FromDomain, domainFromAmqp10 } from "../amqp10/message-mapping.js";
import { AMQP10_FORMAT } from "../amqp10/stored-original.js";
import { createMessage, type ChunkCursor, type Message, type StreamChunk, type StreamFilter, type StreamLog, type StreamRecord } from "../broker/index.js";
import { encodeChunk } from "../store/stream/chunk-format.js";

export function decodeNative(bytes: Buffer): Message {
  const m = domainFromAmqp10(decodeMessage(bytes));
  return createMessage(m.address.exchange, m.address.routingKey, m.properties, null, m.body, Date.now());
}

/** Messages a chunk built from memory holds at most. */
const MEMORY_CHUNK_MESSAGES = 256;

/**
 * Whole chunks from `offset`: the log's own, or built from its records when it keeps none. For a
 * log in memory `filter` skips the messages it does not want (a file log's chunks are matched by
 * the caller against their own filters); a chunk holds consecutive offsets, so a skipped message
 * ends the chunk being built.
 */
export function chunksOf(log: StreamLog, offset: number, filter: StreamFilter | null = null): ChunkCursor {
  const own = log.chunkCursor(offset);
  if (own !== null) return own;
  const reader = log.reader(offset, false, filter);
  /** A record read that starts the next chunk (it follows a skipped offset). */
  let held: StreamRecord | null = null;
  return {
    get position() {
      return held !== null ? held.offset : reader.position;
    },
    next: (): StreamChunk | null => {
      const messages: (readonly Buffer[])[] = [];
      let first = -1;
      let timestamp = 0;
      while (messages.length < MEMORY_CHUNK_MESSAGES) {
        const r = held ?? reader.next();
        held = null;
        if (r === null) break;
        if (first < 0) {
          first = r.offset;
          timestamp = r.timestamp;
        } else if (r.offset !== first + messages.length) {
          held = r;
          break;
        }
        const m = r.message;
        // A message published over AMQP 1.0 as its 1.0 message, as a file log stores it (stored-original.ts).
        const o = m.original;
        messages.push(r.encoded ? [r.encoded] : o !== null && o.format === AMQP10_FORMAT ? o.parts : amqp10FromDomain(m.properties, Buffer.isBuffer(m.body) ? [m.body] : m.body, m));
      }
      if (messages.length === 0) return null;
      const chunk = encodeChunk(messages, first, timestamp);
      return { firstOffset: first, count: messages.length, timestamp, bytes: Buffer.concat(chunk.pieces, chunk.bytes), release: null };
    },
  };
}
