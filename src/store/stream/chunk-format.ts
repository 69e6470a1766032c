/**
 * The stream chunk layout (docs/STREAMS.md, "Storage"): the stream protocol's "osiris chunk", so
 * a native consumer is sent a chunk's bytes as the file holds them. A chunk is a 48-byte header
 * and a data section of entries, each a uint32 size (top bit 0: a simple entry) and the message.
 * Pure functions over Buffers: no files here.
 */
import { crc32 } from "node:zlib";
import { readSubBatchHeader, subBatchRecords, type SubBatchEntry } from "./sub-batch.js";

export const CHUNK_HEADER_BYTES = 48;
/** Magic 5, layout version 0, in one byte (the value RabbitMQ's stream clients expect). */
export const CHUNK_MAGIC_VERSION = 0x50;
export const CHUNK_TYPE_USER = 0;
const ENTRY_HEADER_BYTES = 4;
const MAX_ENTRY_BYTES = 0x7fffffff;

export interface ChunkHeader {
  readonly chunkType: number;
  readonly entries: number;
  readonly records: number;
  readonly timestamp: number;
  readonly epoch: number;
  readonly firstOffset: number;
  readonly crc: number;
  readonly dataLength: number;
  readonly trailerLength: number;
  /** Bytes of the chunk's filter between the header and the data (0: none; chunk-filter.ts). */
  readonly bloomSize: number;
}

/** Where a chunk's data section starts: after its header and its filter. */
export function chunkDataStart(h: ChunkHeader): number {
  return CHUNK_HEADER_BYTES + h.bloomSize;
}

/** A whole chunk's bytes: header, filter, data, trailer. */
export function chunkSize(h: ChunkHeader): number {
  return CHUNK_HEADER_BYTES + h.bloomSize + h.dataLength + h.trailerLength;
}

/** A chunk's filter (empty when it has none), as a slice of `chunk`. */
export function filterOf(chunk: Buffer): Buffer {
  const n = chunk[44]!;
  return chunk.subarray(CHUNK_HEADER_BYTES, CHUNK_HEADER_BYTES + n);
}

/**
 * A chunk as a consumer is sent it: without its filter, as osiris sends it (header, then data;
 * clients read the bloom-size byte as part of a reserved field). A chunk without a filter is sent whole.
 */
export function chunkForClient(chunk: Buffer): readonly Buffer[] {
  const n = chunk[44]!;
  return n === 0 ? [chunk] : [chunk.subarray(0, CHUNK_HEADER_BYTES), chunk.subarray(CHUNK_HEADER_BYTES + n)];
}

/** A chunk's entry: one message (one Buffer or several pieces), or a sub-entry batch of several (sub-batch.ts). */
export type ChunkEntry = Buffer | readonly Buffer[] | SubBatchEntry;

/**
 * A chunk of `messages` (each one Buffer or several pieces, or a sub-entry batch), first offset
 * `firstOffset`, as the pieces to write in order: the header, then per message its size prefix
 * and its pieces (the message Buffers themselves, not copied); a sub-batch as it came. `records`:
 * the offsets it takes (a sub-batch takes one per message in it).
 */
export function encodeChunk(messages: readonly ChunkEntry[], firstOffset: number, timestamp: number, epoch = 0, filter: Buffer | null = null): { pieces: Buffer[]; bytes: number; records: number } {
  if (messages.length === 0 || messages.length > 0xffff) throw new RangeError(`a chunk holds 1 to 65535 messages, not ${messages.length}`);
  if (filter !== null && (filter.length === 0 || filter.length > 255)) throw new RangeError(`a chunk filter has 1 to 255 bytes, not ${filter.length}`);
  const pieces: Buffer[] = [Buffer.allocUnsafe(CHUNK_HEADER_BYTES)];
  if (filter !== null) pieces.push(filter);
  const sizes = Buffer.allocUnsafe(messages.length * ENTRY_HEADER_BYTES);
  let dataLength = 0;
  let crc = 0;
  let records = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (!Buffer.isBuffer(m) && !Array.isArray(m)) {
      // A sub-entry batch: its own header, stored as it came.
      const batch = m as SubBatchEntry;
      for (const p of batch.subBatch) {
        crc = crc32(p, crc);
        pieces.push(p);
        dataLength += p.length;
      }
      records += batch.records;
      continue;
    }
    records++;
    const parts = Buffer.isBuffer(m) ? [m] : (m as readonly Buffer[]);
    let size = 0;
    for (const p of parts) size += p.length;
    if (size > MAX_ENTRY_BYTES) throw new RangeError(`a message of ${size} bytes is over a stream entry's limit`);
    const prefix = sizes.subarray(i * ENTRY_HEADER_BYTES, (i + 1) * ENTRY_HEADER_BYTES);
    prefix.writeUInt32BE(size, 0);
    crc = crc32(prefix, crc);
    pieces.push(prefix);
    for (const p of parts) {
      crc = crc32(p, crc);
      pieces.push(p);
    }
    dataLength += ENTRY_HEADER_BYTES + size;
  }
  const bloomSize = filter?.length ?? 0;
  writeHeader(pieces[0]!, { chunkType: CHUNK_TYPE_USER, entries: messages.length, records, timestamp, epoch, firstOffset, crc: crc | 0, dataLength, trailerLength: 0, bloomSize });
  return { pieces, bytes: CHUNK_HEADER_BYTES + bloomSize + dataLength, records };
}

function writeHeader(b: Buffer, h: ChunkHeader): void {
  b.writeUInt8(CHUNK_MAGIC_VERSION, 0);
  b.writeUInt8(h.chunkType, 1);
  b.writeUInt16BE(h.entries, 2);
  b.writeUInt32BE(h.records, 4);
  b.writeBigInt64BE(BigInt(h.timestamp), 8);
  b.writeBigUInt64BE(BigInt(h.epoch), 16);
  b.writeBigUInt64BE(BigInt(h.firstOffset), 24);
  b.writeInt32BE(h.crc, 32);
  b.writeUInt32BE(h.dataLength, 36);
  b.writeUInt32BE(h.trailerLength, 40);
  // Bloom size, then 3 reserved bytes (osiris's layout).
  b.writeUInt32BE(0, 44);
  b.writeUInt8(h.bloomSize, 44);
}

/** The header at the start of `b`; null when `b` is too short or does not start a chunk. */
export function decodeChunkHeader(b: Buffer): ChunkHeader | null {
  if (b.length < CHUNK_HEADER_BYTES || b.readUInt8(0) !== CHUNK_MAGIC_VERSION) return null;
  return {
    chunkType: b.readUInt8(1),
    entries: b.readUInt16BE(2),
    records: b.readUInt32BE(4),
    timestamp: Number(b.readBigInt64BE(8)),
    epoch: Number(b.readBigUInt64BE(16)),
    firstOffset: Number(b.readBigUInt64BE(24)),
    crc: b.readInt32BE(32),
    dataLength: b.readUInt32BE(36),
    trailerLength: b.readUInt32BE(40),
    bloomSize: b.readUInt8(44),
  };
}

/** Whether `data` (a chunk's data section) matches the header's CRC. */
export function chunkDataIntact(header: ChunkHeader, data: Buffer): boolean {
  return data.length === header.dataLength && (crc32(data) | 0) === header.crc;
}

/**
 * The messages of a whole chunk (header and data), one per offset, as slices of `chunk` (not
 * copied); those of a sub-entry batch read out of it (sub-batch.ts), or null for each of its
 * offsets when Coney cannot read them (a compression Node has no codec for).
 */
export function chunkMessages(chunk: Buffer): (Buffer | null)[] {
  const h = decodeChunkHeader(chunk);
  if (h === null) throw new Error("not a stream chunk");
  const out: (Buffer | null)[] = [];
  let at = chunkDataStart(h);
  for (let i = 0; i < h.entries; i++) {
    const head = chunk.readUInt32BE(at);
    if (head & 0x80000000) {
      const b = readSubBatchHeader(chunk, at);
      const records = subBatchRecords(b.compression, b.records, chunk.subarray(b.dataStart, b.dataEnd));
      if (records !== null) out.push(...records);
      else for (let k = 0; k < b.records; k++) out.push(null);
      at = b.dataEnd;
      continue;
    }
    out.push(chunk.subarray(at + ENTRY_HEADER_BYTES, at + ENTRY_HEADER_BYTES + head));
    at += ENTRY_HEADER_BYTES + head;
  }
  return out;
}
