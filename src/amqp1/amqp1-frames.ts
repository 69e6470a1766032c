/**
 * AMQP 1.0 framing (part 2 §2.3): an 8-byte header (size, data offset in 4-byte words, type —
 * 0 AMQP, 1 SASL — and channel), extended header bytes, then the body. FrameReader cuts frames
 * out of socket reads, holding at most one incomplete frame; FrameTooLarge reports a frame past
 * the negotiated max-frame-size (the caller closes with amqp:connection:framing-error).
 *
 * Frames are copied out of the reads: the AMQP listener reads into slabs it reuses once the
 * socket closes (src/listeners/slab-reads.ts), and a transfer's payload becomes a message body
 * that outlives the socket. That is the one copy a body takes on its way in: a frame that
 * arrives over several reads is joined once when whole (the join is the copy).
 */

export const FRAME_AMQP = 0;
export const FRAME_SASL = 1;
/** The smallest max-frame-size a peer may announce (part 2 §2.7.1, MIN-MAX-FRAME-SIZE). */
export const MIN_MAX_FRAME_SIZE = 512;

export class FrameTooLarge extends Error {}
export class MalformedFrame extends Error {}

export interface Frame {
  readonly type: number;
  readonly channel: number;
  /** The frame body (after the extended header); empty for an empty (heartbeat) frame. */
  readonly body: Buffer;
}

export class FrameReader {
  /** The reads of a frame still arriving, kept as they came until it is whole (then joined once). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The size of the frame the pending bytes start (8 until its header is known). */
  private needed = 0;
  private readonly frames: Frame[] = [];

  constructor(public maxFrameSize: number) {}

  /**
   * Adds a read; returns the complete frames it finished, in order (the array is reused), at
   * most `limit` of them: the rest stays pending (the SASL layer reads one frame, then a header).
   */
  push(chunk: Buffer, limit = Infinity): Frame[] {
    const frames = this.frames;
    frames.length = 0;
    let buf = chunk;
    // A buffer of our own (the join of a frame's reads) is sliced; the socket's reads are copied.
    let owned = false;
    if (this.pendingBytes > 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.pendingBytes < this.needed) return frames;
      buf = Buffer.concat(this.pending, this.pendingBytes);
      owned = true;
      this.pending = [];
      this.pendingBytes = 0;
    }
    let at = 0;
    while (buf.length - at >= 8 && frames.length < limit) {
      const size = buf.readUInt32BE(at);
      const doff = buf[at + 4]!;
      if (size < 8 || doff < 2 || doff * 4 > size) throw new MalformedFrame(`a frame of ${size} bytes with data offset ${doff}`);
      if (size > this.maxFrameSize) throw new FrameTooLarge(`a frame of ${size} bytes exceeds max-frame-size ${this.maxFrameSize}`);
      if (buf.length - at < size) break;
      const body = buf.subarray(at + doff * 4, at + size);
      frames.push({ type: buf[at + 5]!, channel: buf.readUInt16BE(at + 6), body: owned ? body : Buffer.from(body) });
      at += size;
    }
    if (at < buf.length) {
      // The socket's read stays as it is until the frame is whole: its slab is not reused while
      // the connection lives (slab-reads.ts releases slabs only on settle or close).
      const rest = buf.subarray(at);
      this.pending = [rest];
      this.pendingBytes = rest.length;
      this.needed = rest.length >= 8 ? rest.readUInt32BE(0) : 8;
    }
    return frames;
  }

  /** The bytes after the frames read so far (they are not frames of this layer: a protocol header follows SASL). */
  takeRest(): Buffer {
    const rest = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    return rest;
  }
}

/** A frame's 8-byte header, for a body of `bodyLength` bytes. */
export function frameHeader(bodyLength: number, type: number, channel: number): Buffer {
  const h = Buffer.allocUnsafe(8);
  h.writeUInt32BE(bodyLength + 8, 0);
  h[4] = 2;
  h[5] = type;
  h.writeUInt16BE(channel, 6);
  return h;
}

/** The empty frame a peer sends to keep the connection alive (part 2 §2.4.5). */
export const EMPTY_FRAME = Buffer.from([0, 0, 0, 8, 2, 0, 0, 0]);
