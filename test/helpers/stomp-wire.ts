/**
 * A tiny raw STOMP client for protocol-level tests: sends frames as bytes, and reads frames with
 * its own minimal reader (independent of src/stomp's parser), so tests can see exactly what the
 * broker wrote — ERROR headers, escaping, content-length bodies with NULs, the close.
 */
import { connect, type Socket } from "node:net";
import { withTimeout } from "./wait.js";

export interface WireFrame {
  readonly command: string;
  /** Raw (still escaped) header values; the first of a repeated name. */
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

export class StompWire {
  readonly frames: WireFrame[] = [];
  heartbeats = 0;
  closed = false;
  private buf = Buffer.alloc(0);
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: Socket) {
    socket.on("data", (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.parse();
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => {});
  }

  static open(port: number): Promise<StompWire> {
    return new Promise((resolve, reject) => {
      const s = connect(port, "127.0.0.1", () => resolve(new StompWire(s)));
      s.once("error", reject);
    });
  }

  /** Opens and logs in (STOMP 1.2 unless `headers` say otherwise); resolves after CONNECTED. */
  static async login(port: number, headers: Record<string, string> = {}): Promise<StompWire> {
    const w = await StompWire.open(port);
    w.send("CONNECT", { "accept-version": "1.2", host: "/", login: "guest", passcode: "guest", ...headers });
    const f = await w.next();
    if (f.command !== "CONNECTED") throw new Error(`expected CONNECTED, got ${f.command}: ${f.body.toString()}`);
    return w;
  }

  write(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  send(command: string, headers: Record<string, string> = {}, body: Buffer | string = ""): void {
    let head = `${command}\n`;
    for (const [k, v] of Object.entries(headers)) head += `${k}:${v}\n`;
    this.socket.write(Buffer.concat([Buffer.from(`${head}\n`), Buffer.from(body), Buffer.from([0])]));
  }

  /** The next frame (in order of arrival). */
  async next(ms = 5000): Promise<WireFrame> {
    await withTimeout(this.until(() => this.frames.length > 0 || this.closed), ms, "a STOMP frame");
    const f = this.frames.shift();
    if (f === undefined) throw new Error("connection closed without a frame");
    return f;
  }

  /** The next frame with this command (earlier ones of other commands are skipped). */
  async nextOf(command: string, ms = 5000): Promise<WireFrame> {
    for (;;) {
      const f = await this.next(ms);
      if (f.command === command) return f;
    }
  }

  /** Resolves once the broker closed the connection. */
  async whenClosed(ms = 5000): Promise<void> {
    await withTimeout(this.until(() => this.closed), ms, "the broker to close the connection");
  }

  close(): void {
    this.socket.destroy();
  }

  private until(cond: () => boolean): Promise<void> {
    if (cond()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (cond()) resolve();
        else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private parse(): void {
    for (;;) {
      while (this.buf.length > 0 && (this.buf[0] === 10 || this.buf[0] === 13)) {
        if (this.buf[0] === 10) this.heartbeats++;
        this.buf = this.buf.subarray(1);
      }
      const end = this.buf.indexOf("\n\n");
      if (end < 0) return;
      const lines = this.buf.subarray(0, end).toString("utf8").split("\n");
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const c = l.indexOf(":");
        const k = l.slice(0, c);
        if (!(k in headers)) headers[k] = l.slice(c + 1);
      }
      const start = end + 2;
      let stop: number;
      if (headers["content-length"] !== undefined) {
        stop = start + Number(headers["content-length"]);
        if (this.buf.length < stop + 1) return;
      } else {
        stop = this.buf.indexOf(0, start);
        if (stop < 0) return;
      }
      this.frames.push({ command: lines[0]!, headers, body: Buffer.from(this.buf.subarray(start, stop)) });
      this.buf = this.buf.subarray(stop + 1);
    }
  }
}
