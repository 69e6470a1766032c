/**
 * A bare stream-protocol client for the tests that need what no real client sends: malformed,
 * unknown or oversized frames, chosen credit, raw Deliver frames. It uses Coney's own frame
 * writer only to build frames; everything it reads is parsed here.
 */
import { connect, type Socket } from "node:net";
import { FrameCursor, FrameWriter } from "../../src/stream/wire.js";

export interface RawFrame {
  readonly key: number;
  readonly version: number;
  readonly body: FrameCursor;
  readonly raw: Buffer;
}

export class RawStreamClient {
  private buf = Buffer.alloc(0);
  private readonly frames: RawFrame[] = [];
  private waiters: (() => void)[] = [];
  closed = false;
  private corr = 100;

  private constructor(readonly socket: Socket) {
    socket.on("data", (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      while (this.buf.length >= 4 && this.buf.length >= 4 + this.buf.readUInt32BE(0)) {
        const size = this.buf.readUInt32BE(0);
        const f = this.buf.subarray(4, 4 + size);
        this.buf = this.buf.subarray(4 + size);
        this.frames.push({ key: f.readUInt16BE(0), version: f.readUInt16BE(2), body: new FrameCursor(f.subarray(4)), raw: f });
      }
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => undefined);
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  static open(port: number): Promise<RawStreamClient> {
    return new Promise((resolve, reject) => {
      const s = connect(port, "127.0.0.1", () => resolve(new RawStreamClient(s)));
      s.once("error", reject);
    });
  }

  /** Connects and walks the handshake as guest (or the given user) into `vhost`. */
  static async login(port: number, user = "guest", password = "guest", vhost = "/", heartbeat = 0): Promise<RawStreamClient> {
    const c = await RawStreamClient.open(port);
    c.send(new FrameWriter(0x11).u32(1).map([["product", "raw"]]).frame());
    await c.next(0x8011);
    c.send(new FrameWriter(0x12).u32(2).frame());
    await c.next(0x8012);
    c.send(new FrameWriter(0x13).u32(3).str("PLAIN").bytes(Buffer.from(`\u0000${user}\u0000${password}`)).frame());
    const auth = await c.next(0x8013);
    auth.body.u32();
    if (auth.body.u16() !== 1) throw new Error("login refused");
    const tune = await c.next(0x14);
    c.send(new FrameWriter(0x14).u32(tune.body.u32()).u32(heartbeat).frame());
    c.send(new FrameWriter(0x15).u32(4).str(vhost).frame());
    const open = await c.next(0x8015);
    open.body.u32();
    const code = open.body.u16();
    if (code !== 1) throw new Error(`open refused with ${code}`);
    return c;
  }

  send(b: Buffer): void {
    this.socket.write(b);
  }

  nextCorrelation(): number {
    return ++this.corr;
  }

  /** The next frame with `key` (frames of other keys before it are kept); rejects if the socket closes first. */
  async next(key: number, ms = 5000): Promise<RawFrame> {
    const deadline = Date.now() + ms;
    for (;;) {
      const i = this.frames.findIndex((f) => f.key === key);
      if (i >= 0) return this.frames.splice(i, 1)[0]!;
      if (this.closed) throw new Error(`socket closed before a frame 0x${key.toString(16)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no frame 0x${key.toString(16)} within ${ms} ms`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** Frames of `key` received so far (taken out). */
  take(key: number): RawFrame[] {
    const out = this.frames.filter((f) => f.key === key);
    for (const f of out) this.frames.splice(this.frames.indexOf(f), 1);
    return out;
  }

  /** Sends a request and returns the response code (after the correlation id). */
  async request(w: (corr: number) => Buffer, key: number): Promise<{ code: number; frame: RawFrame }> {
    const corr = this.nextCorrelation();
    this.send(w(corr));
    const f = await this.next(key | 0x8000);
    f.body.u32();
    return { code: f.body.u16(), frame: f };
  }

  async whenClosed(ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error("socket still open");
      await new Promise<void>((r) => {
        const t = setTimeout(r, 50);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}
