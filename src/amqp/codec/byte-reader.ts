/**
 * Bounds-checked reads of AMQP's primitive types from a Buffer. Every read checks that the
 * bytes exist, so malformed input raises CodecError, never a RangeError or an out-of-bounds read.
 */
import { CodecError } from "./codec-error.js";

/** Short strings up to this many bytes are remembered (memoString), in this many slots. */
export const MEMO_MAX = 64;
const MEMO_SLOTS = 16;
const memoBytes = new Uint8Array(MEMO_SLOTS * MEMO_MAX);
const memoLengths = new Int32Array(MEMO_SLOTS).fill(-1);
const memoStrings: string[] = new Array<string>(MEMO_SLOTS).fill("");

/**
 * The UTF-8 string of `n` ≤ MEMO_MAX bytes at `at` of `b`, from the memo when its bytes repeat:
 * a publisher sends the same exchange and routing key over and over (and header tables the same
 * keys), and decoding each was a string allocation and a call into C++ per message (issue 30's
 * 16 B profile). The memo is direct-mapped on (length, first and last byte); decoding is
 * synchronous, so one memo serves every reader (ByteReader.shortstr, and the inter-node link's
 * exchange and routing key, src/node-link/link-frames.ts).
 */
export function memoUtf8(b: Buffer, at: number, n: number): string {
  const slot = n === 0 ? 0 : (n * 7 + b[at]! * 3 + b[at + n - 1]!) & (MEMO_SLOTS - 1);
  const base = slot * MEMO_MAX;
  if (memoLengths[slot] === n) {
    let i = 0;
    while (i < n && memoBytes[base + i] === b[at + i]) i++;
    if (i === n) return memoStrings[slot]!;
  }
  const s = b.toString("utf8", at, at + n);
  for (let i = 0; i < n; i++) memoBytes[base + i] = b[at + i]!;
  memoLengths[slot] = n;
  memoStrings[slot] = s;
  return s;
}

export class ByteReader {
  constructor(
    public buf: Buffer,
    public pos: number = 0,
    public end: number = buf.length,
  ) {}

  /**
   * Points the reader at other bytes. The codec keeps one reader per decoder and resets it for
   * every frame (decoding is synchronous and never re-entered), so a frame costs no reader object.
   */
  reset(buf: Buffer, pos: number, end: number): this {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    return this;
  }

  private need(n: number): void {
    if (this.pos + n > this.end) throw new CodecError(`truncated data: need ${n} bytes at offset ${this.pos}, have ${this.end - this.pos}`);
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }
  i8(): number {
    this.need(1);
    return this.buf.readInt8(this.pos++);
  }
  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  i16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  i32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  /** longlong as a number; AMQP counters (delivery tags, sizes) stay far below 2^53. */
  u64(): number {
    this.need(8);
    const hi = this.buf.readUInt32BE(this.pos);
    const lo = this.buf.readUInt32BE(this.pos + 4);
    this.pos += 8;
    return hi * 0x1_0000_0000 + lo;
  }
  i64(): number | bigint {
    this.need(8);
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  }
  f32(): number {
    this.need(4);
    const v = this.buf.readFloatBE(this.pos);
    this.pos += 4;
    return v;
  }
  f64(): number {
    this.need(8);
    const v = this.buf.readDoubleBE(this.pos);
    this.pos += 8;
    return v;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  shortstr(): string {
    const n = this.u8();
    this.need(n);
    const s = n <= MEMO_MAX ? memoUtf8(this.buf, this.pos, n) : this.buf.toString("utf8", this.pos, this.pos + n);
    this.pos += n;
    return s;
  }

  /** A copy: the bytes read may be reused once the read is done (src/listeners/slab-pool.ts). */
  longstrBytes(): Buffer {
    return Buffer.from(this.bytes(this.u32()));
  }
  longstr(): string {
    const n = this.u32();
    this.need(n);
    const s = this.buf.toString("utf8", this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
}
