/**
 * A connection's output: frames are written into one OutputBuffer (the AMQP 0-9-1 codec's
 * pooled blocks, src/amqp/codec/output-buffer.ts) and go to the socket in one write at the end
 * of the current callback (process.nextTick, as the cork it replaces; or at once past
 * OUTPUT_HIGH_WATER), as AMQP 0-9-1's frame-output.ts batches (it waits for setImmediate; here
 * that delayed credit and dispositions enough to cost unsettled 64 KB throughput in an A/B run,
 * so the timing stays the previous one): a small delivery's frame header, transfer performative and message
 * are copied together, so a burst of deliveries is one buffer, not four socket.write calls each
 * (writev over thousands of 16-byte pieces was ~15 % of the broker's CPU at 16 B); large pieces
 * (a whole frame's worth) are referenced in place, never copied. Counted for the management
 * view (send_cnt: socket writes); a refused write is noted (deliveries wait for 'drain').
 *
 * Transfers of delivered messages are encoded here without the generic encoder (the hot path):
 * a fixed-layout transfer performative written straight into the buffer, then the message's
 * pieces, split over frames no larger than the peer's max-frame-size. Invariant: whoever ends
 * or destroys the socket calls flush() first, so no buffered frame is lost (a close, an error).
 */
import type { Duplex } from "node:stream";
import { OutputBuffer } from "../amqp/codec/output-buffer.js";
import type { BodyLease } from "../broker/values/body-lease.js";
import { FRAME_AMQP } from "./amqp1-frames.js";

/** The transfer performative's size as TransferHead writes it (list8 of six fields). */
const TRANSFER_HEAD = 25;
/** Above this many buffered bytes the output is written at once, not at the end of the turn. */
const OUTPUT_HIGH_WATER = 512 * 1024;

export class Amqp1Output {
  sendOct = 0;
  sendCnt = 0;
  writeBlocked = false;
  /** The peer's max-frame-size (its open), once known. */
  maxFrameSize = 512;
  private readonly out = new OutputBuffer();
  private readonly head = new TransferHead();
  private flushScheduled = false;
  private readonly flushSoon = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  constructor(private readonly socket: Duplex) {}

  /** Whole frames (or a protocol header), sent with the rest of this turn's output. */
  write(bytes: Buffer): void {
    if (this.socket.destroyed) return;
    this.out.bodyPiece(bytes);
    this.written();
  }

  /**
   * One delivery as transfer frames on `channel`: `pieces` are the encoded message (small ones
   * copied, large ones referenced; cut where a frame ends). A lent body (`lease`,
   * values/body-lease.ts) is held until the socket has written the output that references it.
   * Returns how many frames it took (each counts against the session's outgoing window).
   */
  transfer(channel: number, handle: number, deliveryId: number, settled: boolean, pieces: readonly Buffer[], lease: BodyLease | null = null): number {
    if (this.socket.destroyed) return 1;
    let total = 0;
    for (const p of pieces) total += p.length;
    if (lease !== null && total > 0) this.out.holdUntilWritten(lease);
    const room = this.maxFrameSize - 8 - TRANSFER_HEAD;
    const out = this.out;
    let frames = 0;
    let piece = 0;
    let offset = 0;
    do {
      const n = Math.min(room, total);
      total -= n;
      this.head.write(out, TRANSFER_HEAD + n + 8, channel, handle, deliveryId, settled, total > 0);
      let left = n;
      while (left > 0) {
        const p = pieces[piece]!;
        const take = Math.min(left, p.length - offset);
        out.bodyPiece(take === p.length ? p : p.subarray(offset, offset + take));
        left -= take;
        offset += take;
        if (offset === p.length) {
          piece++;
          offset = 0;
        }
      }
      frames++;
    } while (total > 0);
    this.written();
    return frames;
  }

  /** Everything buffered goes to the socket now (before the socket is ended, and once per turn). */
  flush(): void {
    const out = this.out;
    if (out.length === 0 || this.socket.destroyed || this.socket.writableEnded) return;
    this.sendOct += out.length;
    this.sendCnt++;
    const taken = out.takeOutput();
    const pieces = taken.pieces;
    const done = (): void => out.release(taken);
    let ok: boolean;
    if (pieces.length === 1) ok = this.socket.write(pieces[0]!, done);
    else {
      this.socket.cork();
      const last = pieces.length - 1;
      for (let i = 0; i < last; i++) this.socket.write(pieces[i]!);
      ok = this.socket.write(pieces[last]!, done);
      this.socket.uncork();
    }
    if (!ok) this.writeBlocked = true;
  }

  private written(): void {
    if (this.out.length >= OUTPUT_HIGH_WATER) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(this.flushSoon);
    }
  }
}

/**
 * A frame header, then transfer(handle, delivery-id, delivery-tag = the id's 4 bytes,
 * message-format 0, settled, more): 33 bytes of fixed layout. One per output, patched per frame
 * and copied into the buffer (the brief's "cached transfer head": nothing encoded per delivery).
 */
class TransferHead {
  private readonly bytes = Buffer.from([0, 0, 0, 0, 2, FRAME_AMQP, 0, 0, 0x00, 0x53, 0x14, 0xc0, TRANSFER_HEAD - 5, 6, 0x70, 0, 0, 0, 0, 0x70, 0, 0, 0, 0, 0xa0, 4, 0, 0, 0, 0, 0x43, 0x42, 0x42]);

  write(out: OutputBuffer, frameSize: number, channel: number, handle: number, deliveryId: number, settled: boolean, more: boolean): void {
    const b = this.bytes;
    b.writeUInt32BE(frameSize, 0);
    b.writeUInt16BE(channel, 6);
    b.writeUInt32BE(handle, 15);
    b.writeUInt32BE(deliveryId, 20);
    b.writeUInt32BE(deliveryId, 26);
    b[31] = settled ? 0x41 : 0x42;
    b[32] = more ? 0x41 : 0x42;
    out.writeBytes(b);
  }
}
