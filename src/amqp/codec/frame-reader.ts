/**
 * Splits a byte stream into AMQP frames (AMQP 0-9-1 §4.2.3: type octet, channel short, size
 * long, payload, frame-end 0xCE). A frame inside one chunk is returned as a zero-copy slice;
 * only a frame split across chunks is copied once, into a buffer of exactly its size.
 */
import { CodecError } from "./codec-error.js";

export class FrameError extends CodecError {
  constructor(message: string) {
    super(message);
    this.name = "FrameError";
  }
}

export interface Frame {
  readonly type: number;
  readonly channel: number;
  readonly payload: Buffer;
}

const HEADER = 7;

export class FrameReader {
  private chunk: Buffer = Buffer.alloc(0);
  private pos = 0;
  /** A frame being assembled across chunks. */
  private partial: Buffer | null = null;
  private partialFill = 0;

  constructor(private maxFrameSize: number) {}

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

  next(): Frame | null {
    if (this.partial) return this.continuePartial();
    const avail = this.chunk.length - this.pos;
    if (avail < HEADER) return null;
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
      return { type, channel, payload: c.subarray(p + HEADER, p + HEADER + size) };
    }
    this.partial = Buffer.allocUnsafe(total);
    c.copy(this.partial, 0, p);
    this.partialFill = avail;
    this.pos = c.length;
    return null;
  }

  private continuePartial(): Frame | null {
    const frame = this.partial!;
    const need = frame.length - this.partialFill;
    const avail = this.chunk.length - this.pos;
    const n = Math.min(need, avail);
    this.chunk.copy(frame, this.partialFill, this.pos, this.pos + n);
    this.partialFill += n;
    this.pos += n;
    if (this.partialFill < frame.length) return null;
    this.partial = null;
    if (frame[frame.length - 1] !== 0xce) throw new FrameError("invalid frame end");
    return { type: frame[0]!, channel: frame.readUInt16BE(1), payload: frame.subarray(HEADER, frame.length - 1) };
  }
}
