/**
 * A growable output buffer: frames for one connection are written here back to back and go to
 * the socket in one write per event-loop turn. takeOutput() hands out the written bytes; later
 * writes go after them (or into a fresh block), so the handed-out bytes stay valid while the
 * socket sends them, and release() (the socket's write callback) gives their blocks back.
 * Frame sizes are computed by back-patching (beginFrame/endFrame), never guessed.
 *
 * Memory: bytes are written into 64 KiB blocks from a process-wide free list (BufferPool), and a
 * block goes back to it once it is no longer written to and every write that held its bytes
 * has completed; so a connection that sends 1 GB reuses a few blocks instead of leaving 1 GB of
 * garbage Buffers behind. When a block is full, complete frames stay in it and only an open
 * frame moves to the next block: blocks never grow with the bytes already sent (the buffer once
 * doubled keeping their offsets, to 512 MiB after a 1 GB stream read).
 */
import { CodecError } from "./codec-error.js";
import { BufferPool } from "../../broker/values/buffer-pool.js";
import type { BodyLease } from "../../broker/values/body-lease.js";
import type { FieldTable, FieldValue } from "../../broker/values/field-value.js";
import { writeFieldArray, writeFieldTable, writeFieldValue } from "./field-table-writer.js";

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

/** The size of a connection's output blocks. */
export const OUTPUT_BLOCK_BYTES = 64 * 1024;

/**
 * Free output blocks shared by every connection of the process (single-threaded, so no locking):
 * at most 256 kept, 16 MiB, whatever the number of connections.
 */
const sharedBlocks = new BufferPool(256, OUTPUT_BLOCK_BYTES);

/** A buffer frames are written into, and how many taken pieces still refer to its bytes. */
interface Block {
  readonly bytes: Buffer;
  refs: number;
  /** Still the one written into (it cannot be reused before it is retired). */
  current: boolean;
}

/** Bytes taken for one socket write, and the blocks to give back (and leases to release) when the write completes. */
export interface TakenOutput {
  readonly pieces: Buffer[];
  readonly blocks: readonly Block[];
  readonly leases: readonly BodyLease[];
}

const NO_LEASES: readonly BodyLease[] = [];

export class OutputBuffer {
  private block: Block;
  private buf: Buffer;
  private pos = 0;
  /**
   * Finished pieces ahead of the current segment: slices of earlier blocks and large message
   * bodies referenced as they are. Invariant: a slice here is never written again (a block is
   * reused only after every piece of it was released), so back-patching only ever touches the
   * current segment, buf[segStart, pos).
   */
  private parts: Buffer[] = [];
  /** The block of each slice in `parts` (one entry per slice; referenced bodies have none). */
  private partBlocks: Block[] = [];
  private partsBytes = 0;
  /** Lent bodies referenced by what is written since the last take (holdUntilWritten). */
  private leases: BodyLease[] = [];
  private segStart = 0;
  /**
   * Positions handed out (beginFrame, reserve32) are physical + base: moving the current segment
   * to the start of a new block adds its old start here, so open frames still patch the right bytes.
   */
  private base = 0;
  /** Frames and tables begun whose size is not yet back-patched, and where the outermost one starts. */
  private open = 0;
  private openAt = 0;
  private readonly pool: BufferPool | null;

  constructor(private readonly initialSize = OUTPUT_BLOCK_BYTES) {
    this.pool = initialSize === OUTPUT_BLOCK_BYTES ? sharedBlocks : null;
    this.block = this.newBlock(initialSize);
    this.buf = this.block.bytes;
  }

  /** Bytes written and not yet taken. */
  get length(): number {
    return this.partsBytes + this.pos - this.segStart;
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    // Complete frames stay where they are (a part); only an open frame's bytes, waiting for
    // their size, move to the start of the next block (just large enough, from the free list).
    this.cutTo(this.open > 0 ? Math.max(this.openAt, this.segStart) : this.pos);
    const used = this.pos - this.segStart;
    let size = this.initialSize;
    while (size < used + n) size *= 2;
    const next = this.newBlock(size);
    this.buf.copy(next.bytes, 0, this.segStart, this.pos);
    this.retire(this.block);
    this.base += this.segStart;
    this.openAt -= this.segStart;
    this.block = next;
    this.buf = next.bytes;
    this.pos = used;
    this.segStart = 0;
  }

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

  /**
   * Copies a large body piece block by block (a body frame's size is written up front, so no
   * frame is open: ensure() ends the block and starts the next one without moving anything).
   */
  private copyAcrossBlocks(piece: Buffer): void {
    let at = 0;
    while (at < piece.length) {
      if (this.pos === this.buf.length) this.ensure(1);
      const n = Math.min(piece.length - at, this.buf.length - this.pos);
      piece.copy(this.buf, this.pos, at, at + n);
      this.pos += n;
      at += n;
    }
  }

  /** Ends the current segment (cutTo: up to `end`): it becomes a part, and writing continues after it. */
  private cut(): void {
    this.cutTo(this.pos);
  }

  private cutTo(end: number): void {
    if (end === this.segStart) return;
    this.parts.push(this.buf.subarray(this.segStart, end));
    this.partBlocks.push(this.block);
    this.block.refs++;
    this.partsBytes += end - this.segStart;
    this.segStart = end;
  }

  private newBlock(size: number): Block {
    const bytes = this.pool !== null && size === this.initialSize ? this.pool.take(size) : Buffer.allocUnsafe(size);
    return { bytes, refs: 0, current: true };
  }

  /** The block is written no more: free once no taken piece refers to it. */
  private retire(b: Block): void {
    b.current = false;
    if (b.refs === 0) this.recycle(b);
  }

  private recycle(b: Block): void {
    if (this.pool !== null && b.bytes.length === this.initialSize) this.pool.give(b.bytes);
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

  /** The bytes written so far as one buffer (copied together only when large bodies were referenced). */
  take(): Buffer {
    const pieces = this.takeOutput().pieces;
    return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
  }

  /**
   * The bytes written so far, in order, as pieces for a vectored write. They stay untouched
   * until release(taken): call it when the socket is done with them (its write callback), or
   * never (their blocks are then left to the garbage collector).
   */
  takeOutput(): TakenOutput {
    this.cut();
    // No frame is open between two frames' encoding (a flush never runs inside one); an encoder
    // that threw half-way must not leave this count wrong for good.
    this.open = 0;
    const leases = this.leases.length === 0 ? NO_LEASES : this.leases;
    const taken: TakenOutput = { pieces: this.parts, blocks: this.partBlocks, leases };
    this.parts = [];
    this.partBlocks = [];
    if (leases !== NO_LEASES) this.leases = [];
    this.partsBytes = 0;
    // Writing goes on after the taken bytes (never over them) while the block has room, so a
    // flush allocates nothing; only a block nearly used up is replaced (from the free list).
    if (this.buf.length - this.pos < this.initialSize / 4) {
      this.retire(this.block);
      this.block = this.newBlock(this.initialSize);
      this.buf = this.block.bytes;
      this.pos = 0;
      this.segStart = 0;
      this.base = 0;
    }
    return taken;
  }

  /** The socket has written what takeOutput() handed out: blocks nothing refers to any more are reused. */
  release(taken: TakenOutput): void {
    for (const b of taken.blocks) {
      b.refs--;
      if (b.refs === 0 && !b.current) this.recycle(b);
    }
    for (const l of taken.leases) l.release();
  }

  /** A lent body about to be written by reference: held until release() of the output that carries it. */
  holdUntilWritten(lease: BodyLease): void {
    lease.hold();
    this.leases.push(lease);
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
