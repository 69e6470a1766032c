/**
 * The load of `coney-perf amqp10 --client raw` (amqp10-raw-client.ts): one sender, one receiver,
 * doing what the rhea run does at a fraction of the CPU. The sender writes each message as
 * per-message heads (frame header, transfer performative, and for the first frame the data
 * section's constructor: 33-41 bytes) and slices of one shared body, so a send copies no body;
 * it follows link credit, the broker's session window and, unsettled, a window of deliveries
 * awaiting their outcome. The receiver never looks at a payload: it counts whole deliveries,
 * accepts them with one ranged disposition per socket read, and tops its credit up when half is
 * used — as a client library that batches its acknowledgements would.
 */
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { FRAME_AMQP } from "../amqp1/amqp1-frames.js";
import { described, PERFORMATIVE, type Performative } from "../amqp1/performatives.js";
import type { TransferInfo } from "./amqp10-frame-scanner.js";
import { fieldNumber, WIDE_WINDOW, type Amqp10RawConnection, type Amqp10RawLoad } from "./amqp10-raw-client.js";

/** A sender corks this many bytes of messages (or one message, if larger) into one write. */
const BATCH_BYTES = 256 * 1024;
/** transfer(handle uint, delivery-id uint, delivery-tag 4 bytes, format 0, settled, more): list8 of six fields. */
const TRANSFER_BYTES = 25;
const HANDLE = 0;

const uint = (value: number): Amqp10Value => ({ type: "uint", value });
const ACCEPTED = described(PERFORMATIVE.accepted, []);

/** One message's frames: per frame a head (patched per delivery) and the slice of the shared message it carries. */
interface FrameTemplate {
  readonly head: Buffer;
  readonly payload: Buffer;
}

/** The frames of one message of `size` zero bytes in one data section, cut to `maxFrameSize`. */
export function messageFrames(size: number, settled: boolean, maxFrameSize: number): FrameTemplate[] {
  const section = size < 256 ? Buffer.from([0x00, 0x53, 0x75, 0xa0, size]) : Buffer.from([0x00, 0x53, 0x75, 0xb0, 0, 0, 0, 0]);
  if (size >= 256) section.writeUInt32BE(size, 4);
  const message = Buffer.concat([section, Buffer.alloc(size)]);
  const room = maxFrameSize - 8 - TRANSFER_BYTES;
  const frames: FrameTemplate[] = [];
  for (let off = 0; off < message.length; off += room) {
    const n = Math.min(room, message.length - off);
    const head = Buffer.alloc(8 + TRANSFER_BYTES);
    head.writeUInt32BE(8 + TRANSFER_BYTES + n, 0);
    head[4] = 2;
    head[5] = FRAME_AMQP;
    head.set([0x00, 0x53, 0x14, 0xc0, TRANSFER_BYTES - 5, 6, 0x70, 0, 0, 0, HANDLE, 0x70, 0, 0, 0, 0, 0xa0, 4, 0, 0, 0, 0, 0x43], 8);
    head[31] = settled ? 0x41 : 0x42;
    head[32] = off + n < message.length ? 0x41 : 0x42;
    frames.push({ head, payload: message.subarray(off, off + n) });
  }
  return frames;
}

export class RawSender implements Amqp10RawLoad {
  /** Deliveries sent so far. */
  count = 0;
  private credit = 0;
  private deliveryCount = 0;
  private nextOutgoingId = 0;
  private remoteIncomingWindow = 0;
  private outstanding = 0;
  private running = false;
  private waitingDrain = false;
  private pumpQueued = false;
  private readonly frames: FrameTemplate[];
  private readonly pumpSoon = (): void => {
    this.pumpQueued = false;
    this.pump();
  };

  constructor(
    private readonly c: Amqp10RawConnection,
    private readonly settled: boolean,
    /** Unsettled: deliveries awaiting their outcome at most. */
    private readonly window: number,
    size: number,
  ) {
    this.frames = messageFrames(size, settled, c.remoteMaxFrameSize);
    c.socket.on("drain", () => {
      this.waitingDrain = false;
      this.pump();
    });
  }

  start(): void {
    this.running = true;
    this.pump();
  }

  stop(): void {
    this.running = false;
  }

  performative(p: Performative): void {
    const f = p.fields;
    if (p.code === PERFORMATIVE.flow) {
      // part 2 §2.5.6: the broker's window is what it will take beyond what was sent; §2.6.7: credit counts from its delivery-count.
      this.remoteIncomingWindow = fieldNumber(f[0]) + fieldNumber(f[1]) - this.nextOutgoingId;
      if (f[4] !== undefined && f[4].type !== "null") this.credit = fieldNumber(f[5]) + fieldNumber(f[6]) - this.deliveryCount;
      this.pump();
    } else if (p.code === PERFORMATIVE.disposition && f[3]?.type === "boolean" && f[3].value) {
      const first = fieldNumber(f[1]);
      const last = f[2] === undefined || f[2].type === "null" ? first : fieldNumber(f[2]);
      this.outstanding -= last - first + 1;
      this.pump();
    }
  }

  transfer(): void {}

  readDone(): void {}

  private pump(): void {
    if (!this.running || this.waitingDrain) return;
    const frames = this.frames;
    const socket = this.c.socket;
    let bytes = 0;
    let ok = true;
    socket.cork();
    while (bytes < BATCH_BYTES && this.credit > 0 && this.remoteIncomingWindow >= frames.length && (this.settled || this.outstanding < this.window)) {
      const id = this.count;
      for (const t of frames) {
        const head = Buffer.allocUnsafe(t.head.length);
        t.head.copy(head);
        head.writeUInt32BE(id, 20);
        head.writeUInt32BE(id, 26);
        socket.write(head);
        ok = socket.write(t.payload);
        bytes += head.length + t.payload.length;
      }
      this.count++;
      this.credit--;
      this.deliveryCount++;
      this.nextOutgoingId += frames.length;
      this.remoteIncomingWindow -= frames.length;
      if (!this.settled) this.outstanding++;
    }
    socket.uncork();
    if (!ok) this.waitingDrain = true;
    else if (bytes >= BATCH_BYTES && !this.pumpQueued) {
      // More may be sendable: let the event loop read (flows, dispositions) before the next batch.
      this.pumpQueued = true;
      setImmediate(this.pumpSoon);
    }
  }
}

export class RawReceiver implements Amqp10RawLoad {
  /** Whole deliveries received so far. */
  count = 0;
  private nextIncomingId: number;
  private deliveryCount: number;
  private creditUsed = 0;
  private current = -1;
  private first = -1;
  private last = -1;

  constructor(
    private readonly c: Amqp10RawConnection,
    private readonly settled: boolean,
    private readonly credit: number,
  ) {
    this.nextIncomingId = c.remoteNextOutgoingId;
    this.deliveryCount = c.remoteDeliveryCount;
  }

  /** Grants the first credit. */
  start(): void {
    this.flow();
  }

  performative(): void {}

  transfer(info: TransferInfo): void {
    this.nextIncomingId++;
    if (info.deliveryId >= 0) this.current = info.deliveryId;
    if (info.more) return;
    this.count++;
    this.creditUsed++;
    if (!this.settled && !info.settled) {
      if (this.first < 0) this.first = this.current;
      this.last = this.current;
    }
  }

  readDone(): void {
    const socket = this.c.socket;
    socket.cork();
    if (this.first >= 0) {
      this.c.send(PERFORMATIVE.disposition, [{ type: "boolean", value: true }, uint(this.first), this.last === this.first ? { type: "null" } : uint(this.last), { type: "boolean", value: true }, ACCEPTED]);
      this.first = -1;
    }
    if (this.creditUsed * 2 >= this.credit) this.flow();
    socket.uncork();
  }

  private flow(): void {
    this.deliveryCount += this.creditUsed;
    this.creditUsed = 0;
    this.c.send(PERFORMATIVE.flow, [uint(this.nextIncomingId), uint(WIDE_WINDOW), uint(0), uint(WIDE_WINDOW), uint(HANDLE), uint(this.deliveryCount), uint(this.credit)]);
  }
}
