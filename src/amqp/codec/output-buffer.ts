/**
 * A connection's AMQP 0-9-1 output: frames are encoded here back to back — numbers, strings,
 * field tables, method and body frames — into the blocks OutputBlocks (output-blocks.ts) manages
 * and hands to the socket in one write per event-loop turn. Frame sizes are computed by
 * back-patching (beginFrame/endFrame, reserve32/patch32), never guessed; a large body is not
 * copied but sent as its own piece (bodyPiece).
 */
import { CodecError } from "./codec-error.js";
import type { FieldTable, FieldValue } from "../../broker/values/field-value.js";
import { writeFieldArray, writeFieldTable, writeFieldValue } from "./field-table-writer.js";
import { OutputBlocks } from "./output-blocks.js";

export { OUTPUT_BLOCK_BYTES, type TakenOutput } from "./output-blocks.js";

const FRAME_END = 0xce;
/** The spec's frame-body type (constant FRAME-BODY). */
const FRAME_BODY = 3;

/** Byte strings up to this long are copied by a loop in writeBytes. */
const BYTE_LOOP_MAX = 32;
/** Short strings up to this many chars take the ASCII loop in writeShortString. */
const ASCII_LOOP_MAX = 48;

/** Bodies and payloads this large (from a whole frame of a client with frame_max 4096) are sent
 * as they are, not copied in: copying those cost ~8 % more CPU at 16 KB and 1 MB (PERFORMANCE.md). */
export const EXTERNAL_BODY_MIN = 4096 - 8;

export class OutputBuffer extends OutputBlocks {
  /**
   * One body frame whose payload is `body` (the caller keeps it within frame_max). A large body
   * is not copied: the frame header ends the current segment and the body follows as its own
   * piece, so the socket's writev sends it from where it already is — unless `copy` (a body
   * lent only for the time of the call, e.g. from a stream reader's reused chunk buffer).
   */
  writeBodyFrame(channel: number, body: Buffer, copy = false): void {
    this.beginBodyFrame(channel, body.length);
    this.bodyPiece(body, copy);
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

  bodyPiece(piece: Buffer, copy = false): void {
    if (piece.length < EXTERNAL_BODY_MIN) {
      this.writeBytes(piece);
    } else if (copy) {
      this.copyAcrossBlocks(piece);
    } else {
      this.cut();
      this.parts.push(piece);
      this.partsBytes += piece.length;
    }
  }

  endBodyFrame(): void {
    this.writeUInt8(FRAME_END);
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
    const n = b.length;
    this.ensure(n);
    if (n <= BYTE_LOOP_MAX) {
      // A small body or property list: a loop beats Buffer.copy's checks and native call.
      const buf = this.buf;
      const at = this.pos;
      for (let i = 0; i < n; i++) buf[at + i] = b[i]!;
    } else {
      b.copy(this.buf, this.pos);
    }
    this.pos += n;
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
    writeFieldTable(this, t);
  }

  writeArray(a: readonly FieldValue[]): void {
    writeFieldArray(this, a);
  }

  /** One field value, its tag chosen from the JS value (field-table-writer.ts). */
  writeValue(v: FieldValue): void {
    writeFieldValue(this, v);
  }

  /** Starts a frame: type, channel and a size placeholder. Returns the position for endFrame. */
  beginFrame(type: number, channel: number): number {
    this.ensure(7);
    const start = this.pos;
    if (this.open++ === 0) this.openAt = start;
    this.buf[this.pos] = type;
    this.buf.writeUInt16BE(channel, this.pos + 1);
    this.pos += 7;
    return start + this.base;
  }

  /** Back-patches the frame's payload size and appends the frame-end octet. */
  endFrame(start: number): void {
    const at = start - this.base;
    this.buf.writeUInt32BE(this.pos - at - 7, at + 3);
    this.open--;
    this.writeUInt8(FRAME_END);
  }

  /** Reserves a u32 length to be back-patched by patch32 (field tables and arrays). */
  reserve32(): number {
    this.ensure(4);
    const p = this.pos;
    if (this.open++ === 0) this.openAt = p;
    this.pos += 4;
    return p + this.base;
  }

  patch32(p: number): void {
    const at = p - this.base;
    this.buf.writeUInt32BE(this.pos - at - 4, at);
    this.open--;
  }
}
