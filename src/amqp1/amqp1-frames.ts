/**
 * AMQP 1.0 framing (part 2 §2.3): an 8-byte header (size, data offset in 4-byte words, type —
 * 0 AMQP, 1 SASL — and channel), extended header bytes, then the body. FrameReader cuts frames
 * out of socket reads, holding at most one incomplete frame; FrameTooLarge reports a frame past
 * the negotiated max-frame-size (the caller closes with amqp:connection:framing-error).
 *
 * A transfer is a slice of the read, not a copy: its payload becomes a message body as it lies
 * in the socket's read slab. On a connection whose slabs return to a pool (src/listeners/
 * slab-pool.ts) nothing may keep a slab's bytes uncounted, so:
 * - the incoming link leases the slabs of a payload it keeps (lent-payloads.ts), as AMQP 0-9-1's
 *   content assembly does;
 * - every other frame of COPY_BELOW bytes or more is copied (an attach's properties, a SASL
 *   token: rare, and their decoded values are kept as slices of the frame), as is any frame
 *   shorter than COPY_BELOW (so a small message kept in a queue does not hold a whole slab);
 * - the bytes of a frame still arriving stay where they were read until it is whole, and
 *   holdsBytesOf() tells the socket's slabs (SlabTails.settle) not to let their memory go.
 * A frame arriving over several reads is usually not copied either: the listener reads into the
 * rest of the same slab (slab-reads.ts), so the reads lie one after the other in one memory and
 * the frame is a view across them. A frame that would not fit the rest of its slab moves to the
 * next slab before the next read (FrameCarrier: its first bytes are copied to the new slab's
 * start), so it too arrives whole in one slab. A frame whose reads are still not adjacent
 * (larger than a slab, or no pooled slabs: TLS, whose reads are ~16 KiB records) is joined once
 * when whole — unless it is a transfer: then, as AMQP 0-9-1's FrameReader keeps a body frame that
 * spans reads in pieces (src/amqp/codec/frame-reader.ts), only its performative is made
 * contiguous (a copy of those few bytes when they straddle two reads) and its payload stays the
 * reads' slices (Frame.more), which the incoming link keeps as pieces of its message
 * (pieced-message.ts).
 */

import type { FrameCarrier } from "../listeners/slab-reads.js";

export const FRAME_AMQP = 0;
export const FRAME_SASL = 1;
/** The smallest max-frame-size a peer may announce (part 2 §2.7.1, MIN-MAX-FRAME-SIZE). */
export const MIN_MAX_FRAME_SIZE = 512;

/** Frames shorter than this are copied out of the read (see the header). */
const COPY_BELOW = 256;

export class FrameTooLarge extends Error {}
export class MalformedFrame extends Error {}

export interface Frame {
  readonly type: number;
  readonly channel: number;
  /** The frame body (after the extended header); empty for an empty (heartbeat) frame. */
  readonly body: Buffer;
  /**
   * Null, or for a transfer whose reads were not adjacent: the rest of its payload after `body`
   * (which holds the whole performative), as slices of the reads, in order, none empty.
   */
  readonly more: readonly Buffer[] | null;
}

export class FrameReader implements FrameCarrier {
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
    let at = 0;
    if (this.pendingBytes > 0) {
      // The frame in progress takes only the bytes it lacks; the rest of the read stays a slice.
      at = this.complete(chunk);
      if (this.pendingBytes > 0) return frames;
    }
    while (chunk.length - at >= 8 && frames.length < limit) {
      const size = this.checkHeader(chunk, at);
      if (chunk.length - at < size) break;
      frames.push(frameOf(chunk, at, size));
      at += size;
    }
    if (at < chunk.length) {
      // The socket's read stays as it is until the frame is whole: holdsBytesOf() keeps its slab.
      const rest = chunk.subarray(at);
      this.pending = [rest];
      this.pendingBytes = rest.length;
      // Past the limit the rest may be no frame at all (a protocol header after SASL): takeRest().
      this.needed = rest.length < 8 ? 8 : frames.length >= limit ? rest.readUInt32BE(0) : this.checkHeader(rest, 0);
    }
    return frames;
  }

  /**
   * Adds to the pending frame what it lacks from `chunk` (its header first, then its size); when
   * whole it is joined once (the one copy of a frame that spans reads) and added to the frames.
   * Returns how many bytes of `chunk` it took.
   */
  private complete(chunk: Buffer): number {
    let at = 0;
    if (this.pendingBytes < 8) {
      at = Math.min(8 - this.pendingBytes, chunk.length);
      this.pending.push(chunk.subarray(0, at));
      this.pendingBytes += at;
      if (this.pendingBytes < 8) return at;
      this.needed = this.checkHeader(Buffer.concat(this.pending, 8), 0);
    }
    const take = Math.min(this.needed - this.pendingBytes, chunk.length - at);
    this.pending.push(chunk.subarray(at, at + take));
    this.pendingBytes += take;
    at += take;
    if (this.pendingBytes < this.needed) return at;
    const pending = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    const whole = adjacent(pending) ? Buffer.from(pending[0]!.buffer, pending[0]!.byteOffset, this.needed) : null;
    this.frames.push(whole !== null ? frameOf(whole, 0, whole.length) : (transferInPieces(pending, this.needed) ?? frameOf(Buffer.concat(pending, this.needed), 0, this.needed)));
    return at;
  }

  /** The size of the frame whose header starts at `at`; throws on a malformed or oversize frame. */
  private checkHeader(buf: Buffer, at: number): number {
    const size = buf.readUInt32BE(at);
    const doff = buf[at + 4]!;
    if (size < 8 || doff < 2 || doff * 4 > size) throw new MalformedFrame(`a frame of ${size} bytes with data offset ${doff}`);
    if (size > this.maxFrameSize) throw new FrameTooLarge(`a frame of ${size} bytes exceeds max-frame-size ${this.maxFrameSize}`);
    return size;
  }

  /** FrameCarrier: the bytes the frame in progress lacks (its header's, while its size is not known). */
  lacking(): number {
    return this.pendingBytes === 0 ? 0 : this.needed - this.pendingBytes;
  }

  /** FrameCarrier: the frame in progress moves to the start of `into` when it fits there whole. */
  carryInto(into: Buffer): number {
    const n = this.pendingBytes;
    if (n === 0 || this.needed > into.length) return 0;
    const pending = this.pending;
    let at = 0;
    for (let i = 0; i < pending.length; i++) at += pending[i]!.copy(into, at);
    this.pending = [into.subarray(0, n)];
    return n;
  }

  /**
   * True while bytes in `memory` are part of a frame still arriving (kept uncopied until it is
   * whole): that memory must not be reused yet (SlabTails.settle).
   */
  holdsBytesOf(memory: ArrayBufferLike): boolean {
    const pending = this.pending;
    for (let i = 0; i < pending.length; i++) if (pending[i]!.buffer === memory) return true;
    return false;
  }

  /** The bytes after the frames read so far (they are not frames of this layer: a protocol header follows SASL). */
  takeRest(): Buffer {
    const rest = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    return rest;
  }
}

/** Whether `pieces` lie one after the other in one memory (successive reads into one slab): one view spans them. */
function adjacent(pieces: readonly Buffer[]): boolean {
  const first = pieces[0]!;
  for (let i = 1; i < pieces.length; i++) {
    const prev = pieces[i - 1]!;
    const p = pieces[i]!;
    if (p.buffer !== first.buffer || p.byteOffset !== prev.byteOffset + prev.length) return false;
  }
  return true;
}

/** How many bytes of a frame are read to find where its transfer performative ends (header, descriptor, list size). */
const HEAD_PEEK = 8 + 8;

/**
 * The transfer frame of `size` bytes that is `pieces` (not adjacent), its payload left in the
 * pieces (Frame.more); null when it is no transfer of COPY_BELOW bytes or more in the usual
 * encoding (descriptor smallulong 0x14, a list8, list32 or list0, a data offset of 2: the frame is joined).
 */
function transferInPieces(pieces: readonly Buffer[], size: number): Frame | null {
  if (size < COPY_BELOW) return null;
  const peek = Buffer.concat(pieces, HEAD_PEEK);
  if (peek[4] !== 2 || peek[5] !== FRAME_AMQP || !isTransfer(peek, 8, HEAD_PEEK)) return null;
  const ctor = peek[11];
  const end = ctor === 0xc0 ? 13 + peek[12]! : ctor === 0xd0 ? 16 + peek.readUInt32BE(12) : ctor === 0x45 ? 12 : -1;
  if (end < 0 || end > size) return null;
  const first = pieces[0]!;
  // The performative lies in the first read (the usual case): the body is that read's slice, else a copy of the performative alone.
  const head = first.length >= end ? first : Buffer.concat(pieces, end);
  const more: Buffer[] = [];
  let at = 0;
  for (const p of pieces) {
    const from = Math.max(head.length - at, 0);
    if (from < p.length) more.push(from === 0 ? p : p.subarray(from));
    at += p.length;
  }
  return { type: FRAME_AMQP, channel: peek.readUInt16BE(6), body: head.subarray(8), more: more.length === 0 ? null : more };
}

/**
 * The frame of `size` bytes at `at` in `buf`: its body a slice when it is a transfer of
 * COPY_BELOW bytes or more, else a copy (see the header).
 */
function frameOf(buf: Buffer, at: number, size: number): Frame {
  const type = buf[at + 5]!;
  const start = at + buf[at + 4]! * 4;
  const body = buf.subarray(start, at + size);
  const slice = size >= COPY_BELOW && type === FRAME_AMQP && isTransfer(buf, start, at + size);
  return { type, channel: buf.readUInt16BE(at + 6), body: slice ? body : Buffer.from(body), more: null };
}

/** Whether the performative at `start` is a transfer in the usual encoding (descriptor smallulong 0x14); a transfer encoded otherwise is only copied. */
function isTransfer(buf: Buffer, start: number, end: number): boolean {
  return end - start >= 3 && buf[start] === 0x00 && buf[start + 1] === 0x53 && buf[start + 2] === 0x14;
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
