/**
 * The memory behind a connection's output (OutputBuffer, output-buffer.ts, encodes AMQP frames
 * into it): bytes are written back to back into the current block and go to the socket in one
 * write per event-loop turn. takeOutput() hands out the written bytes; later writes go after them
 * (or into a fresh block), so the handed-out bytes stay valid while the socket sends them, and
 * release() (the socket's write callback) gives their blocks back.
 *
 * Memory: bytes are written into 64 KiB blocks from a process-wide free list (BufferPool), and a
 * block goes back to it once it is no longer written to and every write that held its bytes
 * has completed; so a connection that sends 1 GB reuses a few blocks instead of leaving 1 GB of
 * garbage Buffers behind. When a block is full, complete frames stay in it and only an open
 * frame moves to the next block: blocks never grow with the bytes already sent (the buffer once
 * doubled keeping their offsets, to 512 MiB after a 1 GB stream read).
 *
 * Invariant: a slice in `parts` is never written again (a block is reused only after every piece
 * of it was released), so back-patching only ever touches the current segment, buf[segStart, pos).
 */
import { BufferPool } from "../../broker/values/buffer-pool.js";
import type { BodyLease } from "../../broker/values/body-lease.js";

/** The size of a connection's output blocks. */
export const OUTPUT_BLOCK_BYTES = 64 * 1024;

/**
 * Free output blocks shared by every connection of the process (single-threaded, so no locking):
 * at most 256 kept, 16 MiB, whatever the number of connections.
 */
const sharedBlocks = new BufferPool(256, OUTPUT_BLOCK_BYTES);

/** A buffer frames are written into, and how many taken pieces still refer to its bytes. */
export interface Block {
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

export abstract class OutputBlocks {
  private block: Block;
  protected buf: Buffer;
  protected pos = 0;
  /**
   * Finished pieces ahead of the current segment: slices of earlier blocks and large message
   * bodies referenced as they are. Invariant: a slice here is never written again (a block is
   * reused only after every piece of it was released), so back-patching only ever touches the
   * current segment, buf[segStart, pos).
   */
  protected parts: Buffer[] = [];
  /** The block of each slice in `parts` (one entry per slice; referenced bodies have none). */
  private partBlocks: Block[] = [];
  protected partsBytes = 0;
  /** Lent bodies referenced by what is written since the last take (holdUntilWritten). */
  private leases: BodyLease[] = [];
  private segStart = 0;
  /**
   * Positions handed out (beginFrame, reserve32) are physical + base: moving the current segment
   * to the start of a new block adds its old start here, so open frames still patch the right bytes.
   */
  protected base = 0;
  /** Frames and tables begun whose size is not yet back-patched, and where the outermost one starts. */
  protected open = 0;
  protected openAt = 0;
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
   * Copies a large body piece block by block (a body frame's size is written up front, so no
   * frame is open: ensure() ends the block and starts the next one without moving anything).
   */
  protected copyAcrossBlocks(piece: Buffer): void {
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
  protected cut(): void {
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
}
