/**
 * A minimal stream-protocol client for coney-perf: connects, logs in (PLAIN), tunes and opens a
 * vhost, sends requests and hands every frame it reads to a callback. It batches nothing itself:
 * the benchmark decides how many messages a Publish frame carries, as a client library would.
 */
import { connect, type Socket } from "node:net";
import { FrameCursor, FrameWriter } from "../stream/wire.js";

export interface StreamFrame {
  readonly key: number;
  readonly body: FrameCursor;
}

export class StreamRawClient {
  onFrame: (f: StreamFrame) => void = () => {};
  private parts: Buffer[] = [];
  private have = 0;
  private corr = 0;
  private readonly waiting = new Map<number, (body: FrameCursor) => void>();

  private constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on("data", (d: Buffer) => this.read(d));
  }

  static async open(url: URL): Promise<StreamRawClient> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect(Number(url.port || 5552), url.hostname, () => resolve(s));
      s.once("error", reject);
    });
    const c = new StreamRawClient(socket);
    const user = decodeURIComponent(url.username || "guest");
    const pass = decodeURIComponent(url.password || "guest");
    const vhost = url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : "/";
    await c.request((corr) => new FrameWriter(0x11).u32(corr).map([["product", "coney-perf"]]).frame());
    await c.request((corr) => new FrameWriter(0x12).u32(corr).frame());
    const tuned = new Promise<FrameCursor>((resolve) => c.waiting.set(-0x14, resolve));
    const auth = await c.request((corr) => new FrameWriter(0x13).u32(corr).str("PLAIN").bytes(Buffer.from(`\u0000${user}\u0000${pass}`)).frame());
    if (auth !== 1) throw new Error(`stream login refused (code ${auth})`);
    const tune = await tuned;
    c.socket.write(new FrameWriter(0x14).u32(tune.u32()).u32(0).frame());
    const open = await c.request((corr) => new FrameWriter(0x15).u32(corr).str(vhost).frame());
    if (open !== 1) throw new Error(`stream Open refused (code ${open})`);
    return c;
  }

  /** Sends a request and resolves with its response code. */
  request(build: (corr: number) => Buffer): Promise<number> {
    const corr = ++this.corr;
    return new Promise((resolve) => {
      this.waiting.set(corr, (body) => resolve(body.u16()));
      this.socket.write(build(corr));
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private read(d: Buffer): void {
    this.parts.push(d);
    this.have += d.length;
    let buf = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.have);
    let at = 0;
    while (buf.length - at >= 4) {
      const size = buf.readUInt32BE(at);
      if (buf.length - at < 4 + size) break;
      this.frame(buf.subarray(at + 4, at + 4 + size));
      at += 4 + size;
    }
    buf = buf.subarray(at);
    this.parts = buf.length > 0 ? [buf] : [];
    this.have = buf.length;
  }

  private frame(f: Buffer): void {
    const key = f.readUInt16BE(0);
    const body = new FrameCursor(f.subarray(4));
    if (key === 0x14) return this.resolve(-0x14, body);
    if (key & 0x8000 && key !== 0x8009) {
      const corr = body.u32();
      if (this.waiting.has(corr)) return this.resolve(corr, body);
    }
    this.onFrame({ key, body });
  }

  private resolve(id: number, body: FrameCursor): void {
    const w = this.waiting.get(id)!;
    this.waiting.delete(id);
    w(body);
  }
}

/**
 * A subscriber from the first offset that counts the records of each chunk delivered (from the
 * chunk header, decoding no message) and grants one more chunk of credit per chunk, starting
 * with 10, as the stream clients do.
 */
export async function subscribeCounting(url: string, stream: string, onRecords: (n: number) => void): Promise<StreamRawClient> {
  const c = await StreamRawClient.open(new URL(url));
  const credit = new FrameWriter(0x09).u8(0).u16(1).frame();
  c.onFrame = (f) => {
    if (f.key !== 0x08) return;
    f.body.u8();
    // Deliver v1: the chunk's record count is at its byte 4.
    f.body.u32();
    onRecords(f.body.u32());
    c.socket.write(credit);
  };
  const subscribed = await c.request((corr) => new FrameWriter(0x07).u32(corr).u8(0).str(stream).u16(1).u16(10).map([]).frame());
  if (subscribed !== 1) throw new Error(`Subscribe answered ${subscribed}`);
  return c;
}
