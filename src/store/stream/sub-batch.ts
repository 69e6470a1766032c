/**
 * Sub-entry batches (the stream protocol's "sub-batch entry", docs/STREAMS.md): a publisher sends
 * several messages as one entry, possibly compressed, and the chunk stores that entry as it came:
 * an 11-byte header (top bit 1, the compression in the next 3 bits, 4 reserved; uint16 record
 * count; uint32 uncompressed length; uint32 length) and the data. Each record still gets its own
 * offset. Native consumers are sent the entry as is (their client decompresses); for AMQP 0-9-1
 * consumers the records are read out here: uncompressed and gzip data (node:zlib), the codecs
 * Node has. Pure functions over Buffers.
 */
import { gunzipSync } from "node:zlib";

export const SUB_BATCH_HEADER_BYTES = 11;

/** The stream protocol's compression types. */
export const COMPRESSION = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;

/** A sub-entry batch as the chunk stores it. */
export interface SubBatchEntry {
  /** The header and the data, in order (the data not copied). */
  readonly subBatch: readonly Buffer[];
  /** Records (messages) in it: offsets it takes. */
  readonly records: number;
}

/** The entry for `records` messages in `data`, compressed with `compression`, `uncompressedBytes` once uncompressed. */
export function subBatchEntry(compression: number, records: number, uncompressedBytes: number, data: Buffer): SubBatchEntry {
  const head = Buffer.allocUnsafe(SUB_BATCH_HEADER_BYTES);
  head[0] = 0x80 | ((compression & 0x07) << 4);
  head.writeUInt16BE(records, 1);
  head.writeUInt32BE(uncompressedBytes, 3);
  head.writeUInt32BE(data.length, 7);
  return { subBatch: [head, data], records };
}

/** The sub-batch whose header starts at `at` of `b`: its fields and where its data lies. */
export function readSubBatchHeader(b: Buffer, at: number): { compression: number; records: number; uncompressedBytes: number; dataStart: number; dataEnd: number } {
  const compression = (b[at]! >> 4) & 0x07;
  const records = b.readUInt16BE(at + 1);
  const uncompressedBytes = b.readUInt32BE(at + 3);
  const length = b.readUInt32BE(at + 7);
  const dataStart = at + SUB_BATCH_HEADER_BYTES;
  return { compression, records, uncompressedBytes, dataStart, dataEnd: dataStart + length };
}

/**
 * The records (each an AMQP 1.0 message's bytes) of a sub-batch's data; null when Coney cannot
 * read them: a codec Node lacks (snappy, lz4, zstd), data that does not inflate, or entries that
 * do not add up to the header's record count.
 */
export function subBatchRecords(compression: number, records: number, data: Buffer): Buffer[] | null {
  let raw: Buffer;
  if (compression === COMPRESSION.none) raw = data;
  else if (compression === COMPRESSION.gzip) {
    try {
      raw = gunzipSync(data);
    } catch {
      return null;
    }
  } else return null;
  const out: Buffer[] = [];
  let at = 0;
  while (at < raw.length) {
    if (at + 4 > raw.length) return null;
    const size = raw.readUInt32BE(at);
    // Inside a sub-batch every entry is simple (top bit 0).
    if (size & 0x80000000 || at + 4 + size > raw.length) return null;
    out.push(raw.subarray(at + 4, at + 4 + size));
    at += 4 + size;
  }
  return out.length === records ? out : null;
}
