/**
 * A connection's output: frames written to the socket, corked for the rest of the event-loop
 * turn so that the frames of one burst leave in one writev, counted for the management view,
 * and a blocked socket noted (deliveries wait for 'drain'). Transfers of delivered messages are
 * encoded here without the generic encoder (the hot path): a fixed-layout transfer performative,
 * then the message's pieces, split over frames no larger than the peer's max-frame-size.
 */
import type { Duplex } from "node:stream";
import type { BodyLease } from "../broker/values/body-lease.js";
import { FRAME_AMQP, frameHeader } from "./amqp1-frames.js";

/** The transfer performative's size as transferHead writes it (list8 of six fields). */
const TRANSFER_HEAD = 25;

export class Amqp1Output {
  sendOct = 0;
  sendCnt = 0;
  writeBlocked = false;
  /** The peer's max-frame-size (its open), once known. */
  maxFrameSize = 512;
  private corked = false;
  private readonly uncork = (): void => {
    this.corked = false;
    this.socket.uncork();
  };

  constructor(private readonly socket: Duplex) {}

  /** `written`: called once the socket is done with `bytes` (written, or failed). */
  write(bytes: Buffer, written?: () => void): void {
    if (this.socket.destroyed) {
      written?.();
      return;
    }
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(this.uncork);
    }
    this.sendOct += bytes.length;
    this.sendCnt++;
    if (!this.socket.write(bytes, written)) this.writeBlocked = true;
  }

  /**
   * One delivery as transfer frames on `channel`: `pieces` are the encoded message (not copied;
   * cut where a frame ends). A lent body (`lease`, values/body-lease.ts) is held until the socket
   * is done with its last piece: the socket writes the bytes by reference. Returns how many
   * frames it took (each counts against the session's outgoing window).
   */
  transfer(channel: number, handle: number, deliveryId: number, settled: boolean, pieces: readonly Buffer[], lease: BodyLease | null = null): number {
    let total = 0;
    for (const p of pieces) total += p.length;
    const room = this.maxFrameSize - 8 - TRANSFER_HEAD;
    let frames = 0;
    let piece = 0;
    let offset = 0;
    let written: (() => void) | undefined;
    if (lease !== null && total > 0) {
      lease.hold();
      written = () => lease.release();
    }
    do {
      const n = Math.min(room, total);
      total -= n;
      this.write(frameHeader(TRANSFER_HEAD + n, FRAME_AMQP, channel));
      this.write(transferHead(handle, deliveryId, settled, total > 0));
      let left = n;
      while (left > 0) {
        const p = pieces[piece]!;
        const take = Math.min(left, p.length - offset);
        left -= take;
        // The callback goes with the delivery's last write: the socket completes writes in order.
        this.write(take === p.length ? p : p.subarray(offset, offset + take), left === 0 && total === 0 ? written : undefined);
        offset += take;
        if (offset === p.length) {
          piece++;
          offset = 0;
        }
      }
      frames++;
    } while (total > 0);
    return frames;
  }
}

/** transfer(handle, delivery-id, delivery-tag = the id's 4 bytes, message-format 0, settled, more). */
function transferHead(handle: number, deliveryId: number, settled: boolean, more: boolean): Buffer {
  const b = Buffer.allocUnsafe(TRANSFER_HEAD);
  b[0] = 0x00;
  b[1] = 0x53;
  b[2] = 0x14;
  b[3] = 0xc0;
  b[4] = TRANSFER_HEAD - 5;
  b[5] = 6;
  b[6] = 0x70;
  b.writeUInt32BE(handle, 7);
  b[11] = 0x70;
  b.writeUInt32BE(deliveryId, 12);
  b[16] = 0xa0;
  b[17] = 4;
  b.writeUInt32BE(deliveryId, 18);
  b[22] = 0x43;
  b[23] = settled ? 0x41 : 0x42;
  b[24] = more ? 0x41 : 0x42;
  return b;
}
