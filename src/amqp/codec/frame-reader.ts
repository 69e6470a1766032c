/**
 * Splits a byte stream into AMQP frames (AMQP 0-9-1 §4.2.3: type octet, channel short, size
 * long, payload, frame-end 0xCE). A frame inside one chunk is read where it lies; only a frame
 * split across chunks is copied once, into a buffer of exactly its size — except a body frame,
 * which is not copied at all: its payload is given as the pieces that lie in each chunk
 * (payloadPieces), since a body may be kept in parts anyway (message-body.ts). With 64 KB reads
 * and 8 KB frames one body frame in eight spans two reads: copying those was an eighth of every
 * large body copied once more.
 *
 * Per frame this allocates nothing: next() fills the reader's own fields (the current frame's
 * type, channel, and its payload as bytes [payloadStart, payloadEnd) of payloadBuf), valid until
 * the next call. Method and header frames are decoded in place; payload() makes the slice a body
 * frame needs, since a body is kept (message-body.ts).
 */
import { CodecError } from "./codec-error.js";

export class FrameError extends CodecError {
  constructor(message: string) {
    super(message);
    this.name = "FrameError";
  }
}

const HEADER = 7;
/** The spec's frame-body type (constant FRAME-BODY). */
const FRAME_BODY = 3;

export class FrameReader {
  private chunk: Buffer = Buffer.alloc(0);
  private pos = 0;
  /** A frame being assembled across chunks. */
  private partial: Buffer | null = null;
  private partialFill = 0;
  /** A body frame spanning chunks: its payload pieces so far, and the payload bytes still to come. */
  private split: Buffer[] | null = null;
  private splitNeed = 0;

  /** The current frame (after next() returned true). */
  type = 0;
  channel = 0;
  payloadBuf: Buffer = this.chunk;
  payloadStart = 0;
  payloadEnd = 0;
  /** Set instead of the payload fields for a body frame that spanned reads: its payload, in pieces (two or more, none empty). */
  payloadPieces: Buffer[] | null = null;

  constructor(private maxFrameSize: number) {}

  /**
   * True while bytes in `memory` are still to be read uncopied (the start of a frame header, or
   * a body frame arriving in pieces): that memory must not be reused yet.
   */
  holdsBytesOf(memory: ArrayBufferLike): boolean {
    if (this.pos < this.chunk.length && this.chunk.buffer === memory) return true;
    const split = this.split;
    if (split !== null) for (const piece of split) if (piece.buffer === memory) return true;
    return false;
  }

  /** The largest whole frame accepted (frame_max: header, payload and end included). */
  setMaxFrameSize(n: number): void {
    this.maxFrameSize = n;
  }

  push(chunk: Buffer): void {
    if (this.pos < this.chunk.length) {
      // Leftover bytes too short for a frame header: join them with the new chunk (small).
      this.chunk = Buffer.concat([this.chunk.subarray(this.pos), chunk]);
    } else {
      this.chunk = chunk;
    }
    this.pos = 0;
  }

  /** The current frame's payload as a slice of the bytes read (no copy; a body frame in pieces is joined). */
  payload(): Buffer {
    if (this.payloadPieces !== null) return Buffer.concat(this.payloadPieces);
    return this.payloadBuf.subarray(this.payloadStart, this.payloadEnd);
  }

  /** Moves to the next whole frame: true when there is one (see the fields), false when more bytes are needed. */
  next(): boolean {
    this.payloadPieces = null;
    if (this.split) return this.continueSplit();
    if (this.partial) return this.continuePartial();
    const avail = this.chunk.length - this.pos;
    if (avail < HEADER) return false;
    const c = this.chunk;
    const p = this.pos;
    const type = c[p]!;
    const channel = c.readUInt16BE(p + 1);
    const size = c.readUInt32BE(p + 3);
    if (size + HEADER + 1 > this.maxFrameSize) {
      throw new FrameError(`frame size ${size + HEADER + 1} exceeds max frame size ${this.maxFrameSize}`);
    }
    const total = HEADER + size + 1;
    if (avail >= total) {
      if (c[p + total - 1] !== 0xce) throw new FrameError("invalid frame end");
      this.pos = p + total;
      this.type = type;
      this.channel = channel;
      this.payloadBuf = c;
      this.payloadStart = p + HEADER;
      this.payloadEnd = p + HEADER + size;
      return true;
    }
    this.type = type;
    this.channel = channel;
    if (type === FRAME_BODY) {
      this.split = avail > HEADER ? [c.subarray(p + HEADER)] : [];
      this.splitNeed = size - (avail - HEADER);
      this.pos = c.length;
      return false;
    }
    this.partial = Buffer.allocUnsafe(total);
    c.copy(this.partial, 0, p);
    this.partialFill = avail;
    this.pos = c.length;
    return false;
  }

  /** A body frame spanning chunks: takes its next piece from this chunk; true once its end octet is read. */
  private continueSplit(): boolean {
    const pieces = this.split!;
    const c = this.chunk;
    const avail = c.length - this.pos;
    const n = Math.min(this.splitNeed, avail);
    if (n > 0) {
      pieces.push(c.subarray(this.pos, this.pos + n));
      this.pos += n;
      this.splitNeed -= n;
    }
    if (this.splitNeed > 0 || this.pos === c.length) return false;
    if (c[this.pos] !== 0xce) throw new FrameError("invalid frame end");
    this.pos++;
    this.split = null;
    if (pieces.length > 1) {
      this.payloadPieces = pieces;
    } else {
      // All of the payload lay in one chunk after all (only the header or the end octet did not).
      this.payloadBuf = pieces.length === 1 ? pieces[0]! : c;
      this.payloadStart = 0;
      this.payloadEnd = pieces.length === 1 ? pieces[0]!.length : 0;
    }
    return true;
  }

  private continuePartial(): boolean {
    const frame = this.partial!;
    const need = frame.length - this.partialFill;
    const avail = this.chunk.length - this.pos;
    const n = Math.min(need, avail);
    this.chunk.copy(frame, this.partialFill, this.pos, this.pos + n);
    this.partialFill += n;
    this.pos += n;
    if (this.partialFill < frame.length) return false;
    this.partial = null;
    if (frame[frame.length - 1] !== 0xce) throw new FrameError("invalid frame end");
    this.type = frame[0]!;
    this.channel = frame.readUInt16BE(1);
    this.payloadBuf = frame;
    this.payloadStart = HEADER;
    this.payloadEnd = frame.length - 1;
    return true;
  }
}

/** A frame as a value, for readers off the hot path (tools, tests) that keep frames. */
export interface Frame {
  readonly type: number;
  readonly channel: number;
  readonly payload: Buffer;
}

/** The next whole frame as a value (allocates; the broker's read loop uses the reader's fields). */
export function nextFrame(r: FrameReader): Frame | null {
  return r.next() ? { type: r.type, channel: r.channel, payload: r.payload() } : null;
}
