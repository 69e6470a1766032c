/**
 * The lean AMQP 1.0 load generator's frame splitter (part 2 §2.3: size, data offset, type,
 * channel, then the body). Like the 0-9-1 FrameScanner it keeps nothing of what it is given, so
 * its owner reads every chunk into one reused buffer: a transfer is reported from its
 * performative alone (handle, delivery-id, settled, more — read by hand, no decoder objects) and
 * its payload is skipped where it lies, never gathered; any other frame (open, flow,
 * disposition…) is handed on whole, gathered in the scanner's own buffer when it spans chunks.
 * A protocol header (8 bytes, not a frame) is expected where the owner says (SASL, then AMQP).
 * Pure (no socket), tested alone (test/bench/amqp10-frame-scanner.test.ts).
 */

/** What a transfer frame's performative says (part 2 §2.7.5). */
export interface TransferInfo {
  handle: number;
  /** -1 when absent (a continuation frame may leave it out). */
  deliveryId: number;
  settled: boolean;
  more: boolean;
}

export interface Amqp10FrameSink {
  /** The 8-byte protocol header expected by expectProtocolHeader(). */
  protocolHeader(bytes: Buffer): void;
  /** A whole non-transfer frame: its body is bytes [start, end) of `buf`, valid only during the call. */
  frame(type: number, channel: number, buf: Buffer, start: number, end: number): void;
  /** A transfer frame (its payload is not handed on); `info` is reused between calls. */
  transfer(channel: number, info: TransferInfo): void;
}

const HEADER = 0;
/** Skipping the extended header (data offset past 2 words). */
const EXTENDED = 1;
/** Gathering the body's first bytes, enough for a transfer's performative. */
const PREFIX = 2;
/** Gathering the rest of a non-transfer frame. */
const WHOLE = 3;
/** Skipping a transfer's payload. */
const SKIP = 4;
const PROTOCOL = 5;

/** Bytes of a body gathered before deciding what the frame is: a transfer performative fits easily. */
const PREFIX_BYTES = 96;

export class Amqp10FrameScanner {
  private state = HEADER;
  private readonly head = Buffer.alloc(8);
  private headFill = 0;
  private type = 0;
  private channel = 0;
  /** Body bytes of the current frame not yet seen (while gathering: the body's whole length). */
  private left = 0;
  private bodyLength = 0;
  private small = Buffer.alloc(4096);
  private smallFill = 0;
  private readonly info: TransferInfo = { handle: 0, deliveryId: -1, settled: false, more: false };

  constructor(private readonly sink: Amqp10FrameSink) {}

  /** The next 8 bytes are a protocol header (after the client's own header was sent). */
  expectProtocolHeader(): void {
    this.state = PROTOCOL;
    this.headFill = 0;
  }

  push(b: Buffer): void {
    const n = b.length;
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case PROTOCOL:
        case HEADER: {
          while (this.headFill < 8 && i < n) this.head[this.headFill++] = b[i++]!;
          if (this.headFill < 8) return;
          this.headFill = 0;
          if (this.state === PROTOCOL) {
            this.state = HEADER;
            this.sink.protocolHeader(this.head);
            break;
          }
          const size = this.head.readUInt32BE(0);
          const doff = this.head[4]! * 4;
          if (size < 8 || doff < 8 || doff > size) throw new Error(`malformed frame: size ${size}, data offset ${doff}`);
          this.type = this.head[5]!;
          this.channel = this.head.readUInt16BE(6);
          this.bodyLength = size - doff;
          this.left = doff - 8;
          this.state = this.left > 0 ? EXTENDED : this.startBody();
          break;
        }
        case EXTENDED: {
          const k = Math.min(this.left, n - i);
          i += k;
          this.left -= k;
          if (this.left === 0) this.state = this.startBody();
          break;
        }
        case SKIP: {
          const k = Math.min(this.left, n - i);
          i += k;
          this.left -= k;
          if (this.left === 0) this.state = HEADER;
          break;
        }
        default: {
          // PREFIX or WHOLE: gathering. A body lying whole in this chunk is handled where it is.
          if (this.smallFill === 0 && n - i >= this.bodyLength) {
            this.body(b, i, i + this.bodyLength);
            i += this.bodyLength;
            this.state = HEADER;
            break;
          }
          const want = this.state === PREFIX ? Math.min(PREFIX_BYTES, this.bodyLength) : this.bodyLength;
          const k = Math.min(want - this.smallFill, n - i);
          b.copy(this.small, this.smallFill, i, i + k);
          this.smallFill += k;
          i += k;
          if (this.smallFill < want) return;
          if (this.state === PREFIX && want < this.bodyLength && isTransfer(this.small, 0)) {
            this.report(this.small, 0);
            this.left = this.bodyLength - want;
            this.state = SKIP;
          } else if (this.smallFill < this.bodyLength) {
            this.state = WHOLE;
          } else {
            this.body(this.small, 0, this.bodyLength);
            this.state = HEADER;
          }
        }
      }
    }
  }

  /** The state a frame's body starts in (an empty frame is a heartbeat: nothing to report). */
  private startBody(): number {
    this.smallFill = 0;
    if (this.bodyLength === 0) return HEADER;
    if (this.bodyLength > this.small.length && this.bodyLength <= 1024 * 1024) this.small = Buffer.alloc(this.bodyLength);
    return PREFIX;
  }

  private body(buf: Buffer, start: number, end: number): void {
    if (isTransfer(buf, start)) this.report(buf, start);
    else this.sink.frame(this.type, this.channel, buf, start, end);
  }

  private report(buf: Buffer, at: number): void {
    readTransfer(buf, at, this.info);
    this.sink.transfer(this.channel, this.info);
  }
}

/** A transfer's descriptor: smallulong 0x14 (the encoding every broker here uses). */
function isTransfer(buf: Buffer, at: number): boolean {
  return buf[at] === 0x00 && buf[at + 1] === 0x53 && buf[at + 2] === 0x14;
}

/**
 * Reads a transfer performative's first six fields into `info` (absent trailing fields are
 * null: part 1 §1.4). Only the encodings those fields may take are accepted; anything else is
 * a broken frame, and the load generator stops.
 */
export function readTransfer(buf: Buffer, start: number, info: TransferInfo): void {
  let at = start + 3;
  const list = buf[at++]!;
  let count: number;
  if (list === 0xc0) {
    count = buf[at + 1]!;
    at += 2;
  } else if (list === 0xd0) {
    count = buf.readUInt32BE(at + 4);
    at += 8;
  } else {
    throw new Error(`transfer performative: list constructor 0x${list.toString(16)}`);
  }
  info.handle = 0;
  info.deliveryId = -1;
  info.settled = false;
  info.more = false;
  for (let field = 0; field < Math.min(count, 6); field++) {
    const code = buf[at++]!;
    let value = -1;
    switch (code) {
      case 0x40:
        break;
      case 0x41:
      case 0x42:
        value = code === 0x41 ? 1 : 0;
        break;
      case 0x56:
        value = buf[at++]!;
        break;
      case 0x43:
        value = 0;
        break;
      case 0x52:
        value = buf[at++]!;
        break;
      case 0x70:
        value = buf.readUInt32BE(at);
        at += 4;
        break;
      case 0xa0:
        at += 1 + buf[at]!;
        break;
      case 0xb0:
        at += 4 + buf.readUInt32BE(at);
        break;
      default:
        throw new Error(`transfer performative: field ${field} has constructor 0x${code.toString(16)}`);
    }
    if (field === 0) info.handle = Math.max(0, value);
    else if (field === 1) info.deliveryId = value;
    else if (field === 4) info.settled = value === 1;
    else if (field === 5) info.more = value === 1;
  }
}
