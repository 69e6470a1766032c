/**
 * The raw load generator's frame splitter (AMQP 0-9-1 §4.2.3: type octet, channel short, size
 * long, payload, frame-end 0xCE). Unlike the broker's FrameReader it keeps nothing of what it is
 * given, so its owner may read every chunk into the same buffer: body bytes are handed on where
 * they lie, for the moment of the call; a method or header frame split across chunks is gathered
 * in the scanner's own buffer first. Pure (no socket), tested alone.
 */

const FRAME_BODY = 3;
const FRAME_END = 0xce;

const HEADER = 0;
const SMALL = 1;
const BODY = 2;
const END = 3;

export interface FrameSink {
  /** A method or content header frame's whole payload: bytes [start, end) of `buf`, valid only during the call. */
  frame(type: number, channel: number, buf: Buffer, start: number, end: number): void;
  /** Part of a body frame's payload, as it lies in the chunk (a frame may arrive in several parts). */
  body(channel: number, buf: Buffer, start: number, end: number): void;
}

export class FrameScanner {
  private state = HEADER;
  private readonly header = Buffer.alloc(7);
  private headerFill = 0;
  private type = 0;
  private channel = 0;
  /** Payload bytes of the current frame not yet seen. */
  private left = 0;
  private small = Buffer.alloc(4096);
  private smallFill = 0;

  constructor(private readonly sink: FrameSink) {}

  push(b: Buffer): void {
    const n = b.length;
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case HEADER: {
          while (this.headerFill < 7 && i < n) this.header[this.headerFill++] = b[i++]!;
          if (this.headerFill < 7) return;
          this.headerFill = 0;
          this.type = this.header[0]!;
          this.channel = this.header.readUInt16BE(1);
          this.left = this.header.readUInt32BE(3);
          this.state = this.type === FRAME_BODY ? BODY : SMALL;
          if (this.state === SMALL && this.left > this.small.length) this.small = Buffer.alloc(this.left);
          this.smallFill = 0;
          break;
        }
        case BODY: {
          const k = Math.min(this.left, n - i);
          if (k > 0) this.sink.body(this.channel, b, i, i + k);
          i += k;
          this.left -= k;
          if (this.left === 0) this.state = END;
          break;
        }
        case SMALL: {
          if (this.smallFill === 0 && n - i >= this.left) {
            // The whole payload lies in this chunk: handed on where it is.
            this.sink.frame(this.type, this.channel, b, i, i + this.left);
            i += this.left;
          } else {
            const k = Math.min(this.left - this.smallFill, n - i);
            b.copy(this.small, this.smallFill, i, i + k);
            this.smallFill += k;
            i += k;
            if (this.smallFill < this.left) return;
            this.sink.frame(this.type, this.channel, this.small, 0, this.left);
          }
          this.state = END;
          break;
        }
        default: {
          if (b[i] !== FRAME_END) throw new Error(`frame end expected, got ${b[i]}`);
          i++;
          this.state = HEADER;
        }
      }
    }
  }
}
