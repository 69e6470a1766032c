/**
 * A growable output buffer: frames for one connection are written here back to back and go to
 * the socket in one write per event-loop turn. take() hands out the written bytes; later writes
 * go after them (or into a fresh buffer), so the handed-out bytes stay valid while the socket
 * sends them.
 * Frame sizes are computed by back-patching (beginFrame/endFrame), never guessed.
 */
import { CodecError } from "./codec-error.js";
import { Decimal, type FieldTable, type FieldValue } from "../../broker/values/field-value.js";

const FRAME_END = 0xce;
/** The spec's frame-body type (constant FRAME-BODY). */
const FRAME_BODY = 3;

/** Short strings up to this many chars take the ASCII loop in writeShortString. */
const ASCII_LOOP_MAX = 48;

/** Bodies at least this large are sent as they are (their own iovec), not copied in. */
export const EXTERNAL_BODY_MIN = 4096;

export class OutputBuffer {
  private buf: Buffer;
  private pos = 0;
  /**
   * Finished pieces ahead of the current segment: slices of earlier buffers and large message
   * bodies referenced as they are. Invariant: a slice here is never written again (the buffer
   * grows into a new allocation, and take() starts a new one), so back-patching only ever
   * touches the current segment, buf[segStart, pos).
   */
  private parts: Buffer[] = [];
  private partsBytes = 0;
  private segStart = 0;

  constructor(private readonly initialSize = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  /** Bytes written and not yet taken. */
  get length(): number {
    return this.partsBytes + this.pos - this.segStart;
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    // Only the current segment is copied, to the same offsets, so positions handed out by
    // beginFrame stay valid; earlier parts keep pointing at the old buffer.
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, this.segStart, this.segStart, this.pos);
    this.buf = next;
  }

  /**
   * One body frame whose payload is `body` (the caller keeps it within frame_max). A large body
   * is not copied: the frame header ends the current segment and the body follows as its own
   * piece, so the socket's writev sends it from where it already is.
   */
  writeBodyFrame(channel: number, body: Buffer): void {
    this.beginBodyFrame(channel, body.length);
    this.bodyPiece(body);
    this.endBodyFrame();
  }

  /**
   * A body frame of `size` payload bytes given as pieces (a frame that spans two parts of a body
   * that arrived in parts): beginBodyFrame, then bodyPiece until `size` bytes, then endBodyFrame.
   */
  beginBodyFrame(channel: number, size: number): void {
    this.ensure(7);
    this.buf[this.pos] = FRAME_BODY;
    this.buf.writeUInt16BE(channel, this.pos + 1);
    this.buf.writeUInt32BE(size, this.pos + 3);
    this.pos += 7;
  }

  bodyPiece(piece: Buffer): void {
    if (piece.length < EXTERNAL_BODY_MIN) {
      this.writeBytes(piece);
    } else {
      this.cut();
      this.parts.push(piece);
      this.partsBytes += piece.length;
    }
  }

  endBodyFrame(): void {
    this.writeUInt8(FRAME_END);
  }

  /** Ends the current segment: it becomes a part, and writing continues after it. */
  private cut(): void {
    if (this.pos === this.segStart) return;
    this.parts.push(this.buf.subarray(this.segStart, this.pos));
    this.partsBytes += this.pos - this.segStart;
    this.segStart = this.pos;
  }

  writeUInt8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }
  writeInt8(v: number): void {
    this.ensure(1);
    this.buf.writeInt8(v, this.pos++);
  }
  writeUInt16(v: number): void {
    this.ensure(2);
    this.buf.writeUInt16BE(v, this.pos);
    this.pos += 2;
  }
  writeInt16(v: number): void {
    this.ensure(2);
    this.buf.writeInt16BE(v, this.pos);
    this.pos += 2;
  }
  writeUInt32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32BE(v, this.pos);
    this.pos += 4;
  }
  writeInt32(v: number): void {
    this.ensure(4);
    this.buf.writeInt32BE(v, this.pos);
    this.pos += 4;
  }
  writeUInt64(v: number): void {
    this.ensure(8);
    this.buf.writeUInt32BE(Math.floor(v / 0x1_0000_0000), this.pos);
    this.buf.writeUInt32BE(v >>> 0, this.pos + 4);
    this.pos += 8;
  }
  writeInt64(v: number | bigint): void {
    this.ensure(8);
    this.buf.writeBigInt64BE(BigInt(v), this.pos);
    this.pos += 8;
  }
  writeFloat(v: number): void {
    this.ensure(4);
    this.buf.writeFloatBE(v, this.pos);
    this.pos += 4;
  }
  writeDouble(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleBE(v, this.pos);
    this.pos += 8;
  }
  writeBytes(b: Buffer): void {
    this.ensure(b.length);
    b.copy(this.buf, this.pos);
    this.pos += b.length;
  }
  writeShortString(s: string): void {
    // Short ASCII strings (consumer tags, exchange and queue names, routing keys: every
    // delivery has three) are written char by char: cheaper than a call into the UTF-8 encoder.
    const len = s.length;
    if (len <= ASCII_LOOP_MAX) {
      this.ensure(1 + len);
      const buf = this.buf;
      const at = this.pos + 1;
      let i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        buf[at + i] = c;
      }
      if (i === len) {
        buf[this.pos] = len;
        this.pos = at + len;
        return;
      }
    }
    const n = Buffer.byteLength(s, "utf8");
    if (n > 255) throw new CodecError(`short string too long: ${n} bytes`);
    this.ensure(1 + n);
    this.buf[this.pos++] = n;
    this.pos += this.buf.write(s, this.pos, "utf8");
  }
  writeLongString(s: string | Buffer): void {
    if (Buffer.isBuffer(s)) {
      this.writeUInt32(s.length);
      this.writeBytes(s);
      return;
    }
    const n = Buffer.byteLength(s, "utf8");
    this.ensure(4 + n);
    this.buf.writeUInt32BE(n, this.pos);
    this.pos += 4;
    this.pos += this.buf.write(s, this.pos, "utf8");
  }

  writeTable(t: FieldTable): void {
    const lenPos = this.reserve32();
    for (const key of Object.keys(t)) {
      const v = t[key];
      if (v === undefined) continue;
      this.writeShortString(key);
      this.writeValue(v);
    }
    this.patch32(lenPos);
  }

  writeArray(a: readonly FieldValue[]): void {
    const lenPos = this.reserve32();
    for (const v of a) this.writeValue(v);
    this.patch32(lenPos);
  }

  /** The tag is chosen from the JS value (see field-table.ts). */
  writeValue(v: FieldValue): void {
    if (v === null) return this.writeUInt8(0x56);
    switch (typeof v) {
      case "boolean":
        this.writeUInt8(0x74);
        return this.writeUInt8(v ? 1 : 0);
      case "number":
        if (Number.isInteger(v)) {
          if (v >= -2147483648 && v <= 2147483647) {
            this.writeUInt8(0x49);
            return this.writeInt32(v);
          }
          this.writeUInt8(0x6c);
          return this.writeInt64(v);
        }
        this.writeUInt8(0x64);
        return this.writeDouble(v);
      case "bigint":
        this.writeUInt8(0x6c);
        return this.writeInt64(v);
      case "string":
        this.writeUInt8(0x53);
        return this.writeLongString(v);
      default:
        break;
    }
    if (Buffer.isBuffer(v)) {
      this.writeUInt8(0x78);
      return this.writeLongString(v);
    }
    if (v instanceof Date) {
      this.writeUInt8(0x54);
      return this.writeUInt64(Math.floor(v.getTime() / 1000));
    }
    if (v instanceof Decimal) {
      this.writeUInt8(0x44);
      this.writeUInt8(v.scale);
      return this.writeInt32(v.value);
    }
    if (Array.isArray(v)) {
      this.writeUInt8(0x41);
      return this.writeArray(v);
    }
    this.writeUInt8(0x46);
    this.writeTable(v);
  }

  /** Starts a frame: type, channel and a size placeholder. Returns the position for endFrame. */
  beginFrame(type: number, channel: number): number {
    this.ensure(7);
    const start = this.pos;
    this.buf[this.pos] = type;
    this.buf.writeUInt16BE(channel, this.pos + 1);
    this.pos += 7;
    return start;
  }

  /** Back-patches the frame's payload size and appends the frame-end octet. */
  endFrame(start: number): void {
    this.buf.writeUInt32BE(this.pos - start - 7, start + 3);
    this.writeUInt8(FRAME_END);
  }

  /** The bytes written so far as one buffer (copied together only when large bodies were referenced). */
  take(): Buffer {
    const pieces = this.takePieces();
    return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
  }

  /**
   * The bytes written so far, in order, as pieces for a vectored write; the buffer starts afresh
   * (the returned bytes are never reused).
   */
  takePieces(): Buffer[] {
    this.cut();
    const pieces = this.parts;
    this.parts = [];
    this.partsBytes = 0;
    // Writing goes on after the taken bytes (never over them) while the buffer has room, so a
    // flush allocates nothing; only a buffer nearly used up is replaced.
    if (this.buf.length - this.pos < this.initialSize / 4) {
      this.buf = Buffer.allocUnsafe(this.initialSize);
      this.pos = 0;
      this.segStart = 0;
    }
    return pieces;
  }

  reset(): void {
    this.parts = [];
    this.partsBytes = 0;
    this.pos = 0;
    this.segStart = 0;
  }

  private reserve32(): number {
    this.ensure(4);
    const p = this.pos;
    this.pos += 4;
    return p;
  }

  private patch32(p: number): void {
    this.buf.writeUInt32BE(this.pos - p - 4, p);
  }
}
