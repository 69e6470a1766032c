/**
 * The on-disk form of one stored queue entry, and its checksum. A record is
 *   u32 payloadLength | u32 crc32(payload) | payload
 * and the payload is
 *   u8 kind (1 persistent, 2 transient: written only to keep a paged-out queue's order, and
 *   ignored by recovery; 3 skipped: the record died before its write and its other bytes mean
 *   nothing, a large one's are a hole, see pending-records.ts; its length may span the dead
 *   records right after it, whose heads were never written) | u16 keyLength | queue key (utf8 "vhost\0name") | u8 exchangeLength | exchange |
 *   u8 routingKeyLength | routing key | f64 storeSeq | f64 publishedAt | u32 propertiesLength |
 *   [kinds 4 and 5 only: u8 formatLength | format | u32 originalLength | u32 bodyAt | u32 bodyLength
 *   | bodyAt BODY_RANGES only: u16 count | count × (u32 at | u32 length)] |
 *   content-header property bytes | [kinds 4 and 5: the original encoding's bytes] | body (the rest).
 * Kinds 4 (persistent) and 5 (transient) are 1 and 2 for a message that keeps the encoding its
 * protocol published it in (Message.original: an AMQP 1.0 message's sections), so that a
 * consumer of that protocol gets it as sent after a restart or a page-out too, as RabbitMQ 4
 * stores a message in its original format. The original is written beside the model (its parts
 * as they are, not copied); recovery and the other protocols read the model. When the body is
 * one range of the original's bytes (an AMQP 1.0 data section), it is not written again: bodyAt
 * is its offset in the original (NO_BODY_AT: the body follows the original); a body in parts each
 * of which lies within the original (several data sections) is written as their ranges
 * (BODY_RANGES), not again either. Records written before ranges existed read as they did: their
 * bodyAt is an offset or NO_BODY_AT.
 * The header part is built here; the property bytes and the body are written as they are (the
 * body is never copied), and the CRC is chained over the pieces with zlib's crc32 when the
 * record is written (fillRecordChecksum), so a record that dies first is never checksummed.
 * `storeSeq` is a store-wide sequence number that restores publish order after compaction.
 */
import { crc32 } from "node:zlib";
import type { Message, OriginalEncoding } from "../broker/index.js";
import type { Body } from "../broker/values/message-body.js";

export const RECORD_HEADER = 8;
const KIND_PERSISTENT = 1;
const KIND_TRANSIENT = 2;
const KIND_SKIPPED = 3;
const KIND_PERSISTENT_ORIGINAL = 4;
const KIND_TRANSIENT_ORIGINAL = 5;
/** A format name longer than this is not kept (the record holds its length in a byte). */
const FORMAT_MAX = 255;
/** bodyAt of a record whose body follows its original rather than lying within it. */
const NO_BODY_AT = 0xffffffff;
/** bodyAt of a record whose body is parts lying within its original: their ranges follow. */
const BODY_RANGES = 0xfffffffe;
/** The most parts a body is written as ranges of (the count is a u16); beyond, it is written after the original. */
const RANGES_MAX = 0xffff;
/** Length, checksum and kind: what is written of a record that died before its write. */
export const SKIPPED_HEAD = RECORD_HEADER + 1;

/** The fixed-size fields of the payload, after the three strings. */
const FIXED_TAIL = 8 + 8 + 4;

/** The original encoding a record keeps for `m`, or null (none, or a format name too long to record). */
function keptOriginal(m: Message): OriginalEncoding | null {
  const o = m.original;
  return o !== null && o.format.length <= FORMAT_MAX ? o : null;
}

/** Whether `b` lies within `part`'s bytes. */
const liesIn = (b: Buffer, part: Buffer): boolean => b.buffer === part.buffer && b.byteOffset >= part.byteOffset && b.byteOffset + b.length <= part.byteOffset + part.length;

/** Where `part` lies within the original's bytes (parts joined), or NO_BODY_AT when it is not one range of them. */
function offsetIn(o: OriginalEncoding, part: Buffer): number {
  let at = 0;
  for (const p of o.parts) {
    if (liesIn(part, p)) return at + part.byteOffset - p.byteOffset;
    at += p.length;
  }
  return NO_BODY_AT;
}

/**
 * Where the body lies within the original: an offset (one Buffer, or parts that continue one another
 * through the original's parts — an AMQP 1.0 data section that came in several transfers, both
 * slices of the same transfers, src/amqp1/pieced-message.ts), BODY_RANGES (parts each within it,
 * elsewhere: several data sections; see rangesOf), or NO_BODY_AT.
 */
function bodyAt(o: OriginalEncoding, body: Message["body"]): number {
  if (Buffer.isBuffer(body)) return offsetIn(o, body);
  const parts = body as readonly Buffer[];
  const first = offsetIn(o, parts[0]!);
  if (first === NO_BODY_AT) return NO_BODY_AT;
  if (followsOn(parts, o.parts)) return first;
  if (parts.length > RANGES_MAX) return NO_BODY_AT;
  for (const part of parts) if (offsetIn(o, part) === NO_BODY_AT) return NO_BODY_AT;
  return BODY_RANGES;
}

/** Whether body parts after the first continue it byte for byte through the original's parts (so the body is one range of them). */
function followsOn(body: readonly Buffer[], parts: readonly Buffer[]): boolean {
  let k = 0;
  while (k < parts.length && !liesIn(body[0]!, parts[k]!)) k++;
  if (k === parts.length) return false;
  let end = body[0]!.byteOffset + body[0]!.length;
  for (let j = 1; j < body.length; j++) {
    while (k < parts.length && end === parts[k]!.byteOffset + parts[k]!.length) {
      k++;
      if (k < parts.length) end = parts[k]!.byteOffset;
    }
    const b = body[j]!;
    if (k >= parts.length || b.byteOffset !== end || !liesIn(b, parts[k]!)) return false;
    end = b.byteOffset + b.length;
  }
  return true;
}

/** The ranges of a BODY_RANGES body: u16 count, then each part's u32 offset and length. */
function rangesOf(o: OriginalEncoding, parts: readonly Buffer[]): Buffer {
  const b = Buffer.allocUnsafe(2 + 8 * parts.length);
  b.writeUInt16LE(parts.length, 0);
  for (let i = 0; i < parts.length; i++) {
    b.writeUInt32LE(offsetIn(o, parts[i]!), 2 + 8 * i);
    b.writeUInt32LE(parts[i]!.length, 6 + 8 * i);
  }
  return b;
}

/** What follows the property bytes of a record `encodeRecordHead` made for a message with an original: the original, then the body unless it lies within. */
export function recordTail(m: Message): readonly Buffer[] {
  const o = keptOriginal(m);
  const body: readonly Buffer[] = Buffer.isBuffer(m.body) ? [m.body] : (m.body as readonly Buffer[]);
  if (o === null) return body;
  return bodyAt(o, m.body) === NO_BODY_AT ? [...o.parts, ...body] : o.parts;
}

/** Builds the record header (length and payload fields up to the property bytes); the checksum is filled in at write time. */
export function encodeRecordHead(key: Buffer, m: Message, props: Buffer, storeSeq: number): Buffer {
  const exLen = Buffer.byteLength(m.exchange);
  const rkLen = Buffer.byteLength(m.routingKey);
  const o = keptOriginal(m);
  let originalLength = 0;
  if (o !== null) for (const part of o.parts) originalLength += part.length;
  const at = o === null ? NO_BODY_AT : bodyAt(o, m.body);
  const ranges = at === BODY_RANGES ? rangesOf(o!, m.body as readonly Buffer[]) : null;
  const formatLength = o === null ? 0 : Buffer.byteLength(o.format, "latin1");
  const originalHead = o === null ? 0 : 1 + formatLength + 12 + (ranges?.length ?? 0);
  const headLen = RECORD_HEADER + 1 + 2 + key.length + 1 + exLen + 1 + rkLen + FIXED_TAIL + originalHead;
  const head = Buffer.allocUnsafe(headLen);
  let p = RECORD_HEADER;
  head[p++] = o === null ? (m.persistent ? KIND_PERSISTENT : KIND_TRANSIENT) : m.persistent ? KIND_PERSISTENT_ORIGINAL : KIND_TRANSIENT_ORIGINAL;
  head.writeUInt16LE(key.length, p);
  p += 2;
  p += key.copy(head, p);
  head[p++] = exLen;
  p += head.write(m.exchange, p);
  head[p++] = rkLen;
  p += head.write(m.routingKey, p);
  head.writeDoubleLE(storeSeq, p);
  head.writeDoubleLE(m.publishedAt, p + 8);
  head.writeUInt32LE(props.length, p + 16);
  if (o !== null) {
    p += FIXED_TAIL;
    head[p++] = formatLength;
    p += head.write(o.format, p, "latin1");
    head.writeUInt32LE(originalLength, p);
    head.writeUInt32LE(at, p + 4);
    head.writeUInt32LE(m.bodySize, p + 8);
    if (ranges !== null) ranges.copy(head, p + 12);
  }
  const bodyBytes = at === NO_BODY_AT ? m.bodySize : 0;
  head.writeUInt32LE(headLen - RECORD_HEADER + props.length + originalLength + bodyBytes, 0);
  head.writeUInt32LE(0, 4);
  return head;
}

/** Computes the checksum of the record whose pieces are `pieces[first, first + count)` (the head first) into its head. */
export function fillRecordChecksum(pieces: readonly Buffer[], first: number, count: number): void {
  const head = pieces[first]!;
  let crc = crc32(head.subarray(RECORD_HEADER));
  for (let k = first + 1; k < first + count; k++) crc = crc32(pieces[k]!, crc);
  head.writeUInt32LE(crc, 4);
}

/** Marks a record that died before its write as skipped, in its own head: a zero checksum, kind SKIPPED. */
export function markSkipped(head: Buffer): void {
  head.writeUInt32LE(0, 4);
  head[RECORD_HEADER] = KIND_SKIPPED;
}

/** The largest extent one skipped head may span (its length field is a u32). */
export const MAX_SKIPPED_SPAN = 0xf000_0000;

/**
 * A skipped head that spans `bytes` of the file: its own record and the dead records right after
 * it, whose heads are never written (recovery steps over the whole extent at once).
 */
export function spanSkipped(head: Buffer, bytes: number): void {
  head.writeUInt32LE(bytes - RECORD_HEADER, 0);
}

export interface DecodedRecord {
  readonly persistent: boolean;
  readonly key: string;
  readonly exchange: string;
  readonly routingKey: string;
  readonly storeSeq: number;
  readonly publishedAt: number;
  /** Slices of the buffer the record was read from (no copy). */
  readonly properties: Buffer;
  /** One slice, or several (a body of parts written as ranges of the original). */
  readonly body: Body;
  /** The encoding the message was published in (kinds 4 and 5), one slice; null for the others. */
  readonly original: OriginalEncoding | null;
}

export type ReadResult =
  | { readonly status: "ok"; readonly record: DecodedRecord; readonly next: number }
  | { readonly status: "corrupt"; readonly next: number }
  /** A record that died before its write (only its head is on disk): dead, reading goes on after it. */
  | { readonly status: "skipped"; readonly next: number }
  | { readonly status: "torn" }
  | { readonly status: "end" };

/**
 * Reads the record at `pos`. "torn": the file ends inside it (an interrupted write at the tail);
 * "corrupt": its checksum or structure is wrong but its length fits, so reading can go on after it.
 */
export function readRecord(buf: Buffer, pos: number): ReadResult {
  if (pos === buf.length) return { status: "end" };
  if (pos + RECORD_HEADER > buf.length) return { status: "torn" };
  const len = buf.readUInt32LE(pos);
  // No record is empty: zeros are a hole the last, unsynced batch did not fill before a crash.
  if (len === 0) return { status: "torn" };
  const end = pos + RECORD_HEADER + len;
  if (pos + SKIPPED_HEAD <= buf.length && buf[pos + RECORD_HEADER] === KIND_SKIPPED && buf.readUInt32LE(pos + 4) === 0) {
    // Nothing after a skipped record at the tail was written: the segment ends here.
    return end > buf.length ? { status: "end" } : { status: "skipped", next: end };
  }
  if (end > buf.length) return { status: "torn" };
  const payload = buf.subarray(pos + RECORD_HEADER, end);
  if (crc32(payload) !== buf.readUInt32LE(pos + 4)) return { status: "corrupt", next: end };
  const record = decodePayload(payload);
  return record ? { status: "ok", record, next: end } : { status: "corrupt", next: end };
}

function decodePayload(b: Buffer): DecodedRecord | null {
  const kind = b[0];
  if (b.length < 1 + 2 || (kind !== KIND_PERSISTENT && kind !== KIND_TRANSIENT && kind !== KIND_PERSISTENT_ORIGINAL && kind !== KIND_TRANSIENT_ORIGINAL)) return null;
  let p = 1;
  const keyLen = b.readUInt16LE(p);
  p += 2;
  if (p + keyLen + 1 > b.length) return null;
  const key = b.toString("utf8", p, p + keyLen);
  p += keyLen;
  const exLen = b[p++]!;
  if (p + exLen + 1 > b.length) return null;
  const exchange = b.toString("utf8", p, p + exLen);
  p += exLen;
  const rkLen = b[p++]!;
  if (p + rkLen + FIXED_TAIL > b.length) return null;
  const routingKey = b.toString("utf8", p, p + rkLen);
  p += rkLen;
  const storeSeq = b.readDoubleLE(p);
  const publishedAt = b.readDoubleLE(p + 8);
  const propsLen = b.readUInt32LE(p + 16);
  p += FIXED_TAIL;
  let format: string | null = null;
  let originalLen = 0;
  let at = NO_BODY_AT;
  let bodyLen = 0;
  /** Where a BODY_RANGES record's ranges start in `b`. */
  let rangesAt = -1;
  if (kind === KIND_PERSISTENT_ORIGINAL || kind === KIND_TRANSIENT_ORIGINAL) {
    const formatLen = b[p++];
    if (formatLen === undefined || p + formatLen + 12 > b.length) return null;
    format = b.toString("latin1", p, p + formatLen);
    originalLen = b.readUInt32LE(p + formatLen);
    at = b.readUInt32LE(p + formatLen + 4);
    bodyLen = b.readUInt32LE(p + formatLen + 8);
    p += formatLen + 12;
    if (at === BODY_RANGES) {
      if (p + 2 > b.length) return null;
      rangesAt = p;
      p += 2 + 8 * b.readUInt16LE(p);
    }
  }
  if (p + propsLen + originalLen > b.length) return null;
  const properties = b.subarray(p, p + propsLen);
  p += propsLen;
  const persistent = kind === KIND_PERSISTENT || kind === KIND_PERSISTENT_ORIGINAL;
  if (format === null) return { persistent, key, exchange, routingKey, storeSeq, publishedAt, properties, body: b.subarray(p), original: null };
  const originalBytes = b.subarray(p, p + originalLen);
  const original = { format, parts: [originalBytes] };
  if (at === NO_BODY_AT) return { persistent, key, exchange, routingKey, storeSeq, publishedAt, properties, body: b.subarray(p + originalLen), original };
  if (at === BODY_RANGES) {
    const parts = rangesWithin(b, rangesAt, originalBytes, bodyLen);
    return parts === null ? null : { persistent, key, exchange, routingKey, storeSeq, publishedAt, properties, body: parts, original };
  }
  // The body lies within the original (not written twice).
  if (at + bodyLen > originalLen) return null;
  return { persistent, key, exchange, routingKey, storeSeq, publishedAt, properties, body: originalBytes.subarray(at, at + bodyLen), original };
}

/** A BODY_RANGES record's body: its parts as slices of the original; null when a range lies outside it or the lengths disagree. */
function rangesWithin(b: Buffer, at: number, original: Buffer, bodyLen: number): Buffer[] | null {
  const count = b.readUInt16LE(at);
  const parts: Buffer[] = [];
  let total = 0;
  for (let i = 0; i < count; i++) {
    const from = b.readUInt32LE(at + 2 + 8 * i);
    const length = b.readUInt32LE(at + 6 + 8 * i);
    if (from + length > original.length) return null;
    parts.push(original.subarray(from, from + length));
    total += length;
  }
  return total === bodyLen ? parts : null;
}

/** The queue key used in records. */
export function queueKey(vhost: string, name: string): string {
  return `${vhost}\u0000${name}`;
}
