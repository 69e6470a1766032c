/**
 * The stream protocol's wire types (big-endian integers, int16-prefixed strings, int32-prefixed
 * bytes and arrays): a cursor that reads a frame's body and a writer that builds frames. A read
 * past a frame's end throws MalformedFrame, so a short or lying frame is refused as a whole
 * before anything it asked for is done.
 */

export class MalformedFrame extends Error {}

export class FrameCursor {
  private at = 0;

  constructor(private readonly b: Buffer) {}

  get remaining(): number {
    return this.b.length - this.at;
  }

  private need(n: number): number {
    if (this.at + n > this.b.length) throw new MalformedFrame(`frame ends ${this.at + n - this.b.length} bytes early`);
    const at = this.at;
    this.at += n;
    return at;
  }

  u8(): number {
    return this.b.readUInt8(this.need(1));
  }

  u16(): number {
    return this.b.readUInt16BE(this.need(2));
  }

  u32(): number {
    return this.b.readUInt32BE(this.need(4));
  }

  i32(): number {
    return this.b.readInt32BE(this.need(4));
  }

  /** uint64 as a number (offsets and publishing ids stay below 2^53 in practice); no BigInt on the hot path. */
  u64(): number {
    const at = this.need(8);
    return this.b.readUInt32BE(at) * 0x1_0000_0000 + this.b.readUInt32BE(at + 4);
  }

  i64(): number {
    return Number(this.b.readBigInt64BE(this.need(8)));
  }

  /** The next byte, not consumed (a Publish entry's top bit tells a sub-entry batch). */
  peekU8(): number {
    if (this.at >= this.b.length) throw new MalformedFrame("frame ends early");
    return this.b[this.at]!;
  }

  /** `n` bytes as they are (a slice of the frame, not copied). */
  slice(n: number): Buffer {
    const at = this.need(n);
    return this.b.subarray(at, at + n);
  }

  /** A string; null for length -1. */
  str(): string | null {
    const n = this.b.readInt16BE(this.need(2));
    if (n === -1) return null;
    if (n < 0) throw new MalformedFrame(`string length ${n}`);
    const at = this.need(n);
    return this.b.toString("utf8", at, at + n);
  }

  /** Bytes as a slice of the frame (not copied); null for length -1. */
  bytes(): Buffer | null {
    const n = this.i32();
    if (n === -1) return null;
    if (n < 0) throw new MalformedFrame(`bytes length ${n}`);
    const at = this.need(n);
    return this.b.subarray(at, at + n);
  }

  /** An array's length (int32), checked against what is left: each element takes at least `minBytes`. */
  count(minBytes: number): number {
    const n = this.i32();
    if (n < 0 || n * minBytes > this.remaining) throw new MalformedFrame(`array of ${n} elements in ${this.remaining} bytes`);
    return n;
  }

  /** A map of string keys and string values. */
  map(): Map<string, string> {
    const n = this.count(4);
    const out = new Map<string, string>();
    for (let i = 0; i < n; i++) {
      const k = this.str();
      const v = this.str();
      if (k !== null) out.set(k, v ?? "");
    }
    return out;
  }
}

/** Builds one frame; `frame()` prefixes the size. */
export class FrameWriter {
  private b: Buffer;
  private at = 4;

  constructor(key: number, version = 1, capacity = 64) {
    this.b = Buffer.allocUnsafe(capacity);
    this.u16(key).u16(version);
  }

  private room(n: number): number {
    if (this.at + n > this.b.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.b.length * 2, this.at + n));
      this.b.copy(grown, 0, 0, this.at);
      this.b = grown;
    }
    const at = this.at;
    this.at += n;
    return at;
  }

  u8(v: number): this {
    const at = this.room(1);
    this.b.writeUInt8(v, at);
    return this;
  }

  u16(v: number): this {
    const at = this.room(2);
    this.b.writeUInt16BE(v, at);
    return this;
  }

  u32(v: number): this {
    const at = this.room(4);
    this.b.writeUInt32BE(v >>> 0, at);
    return this;
  }

  i32(v: number): this {
    const at = this.room(4);
    this.b.writeInt32BE(v, at);
    return this;
  }

  u64(v: number): this {
    const at = this.room(8);
    this.b.writeUInt32BE(Math.floor(v / 0x1_0000_0000) >>> 0, at);
    this.b.writeUInt32BE(v >>> 0, at + 4);
    return this;
  }

  i64(v: number): this {
    const at = this.room(8);
    this.b.writeBigInt64BE(BigInt(v), at);
    return this;
  }

  str(v: string): this {
    const n = Buffer.byteLength(v, "utf8");
    const at = this.room(2 + n);
    this.b.writeInt16BE(n, at);
    this.b.write(v, at + 2, "utf8");
    return this;
  }

  bytes(v: Buffer | null): this {
    if (v === null) return this.i32(-1);
    this.i32(v.length);
    const at = this.room(v.length);
    v.copy(this.b, at);
    return this;
  }

  map(entries: Iterable<readonly [string, string]>): this {
    const list = [...entries];
    this.i32(list.length);
    for (const [k, v] of list) this.str(k).str(v);
    return this;
  }

  frame(): Buffer {
    this.b.writeUInt32BE(this.at - 4, 0);
    return this.b.subarray(0, this.at);
  }
}

/** A response frame's start: key | 0x8000, version 1, correlation id, response code. */
export function response(key: number, correlationId: number, code: number, capacity = 16): FrameWriter {
  return new FrameWriter(key | 0x8000, 1, capacity).u32(correlationId).u16(code);
}
