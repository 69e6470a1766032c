/**
 * A raw AMQP 0-9-1 client for wire-level tests: sends exact bytes and reads frames back, so
 * tests can send what no well-behaved client library would (garbage, oversized or truncated
 * frames, methods on closed channels).
 */
import { connect, type Socket } from "node:net";
import { FrameReader, nextFrame, type Frame } from "../../src/amqp/codec/frame-reader.js";
import { OutputBuffer } from "../../src/amqp/codec/output-buffer.js";
import { decodeMethod, encodeMethod, FRAME_METHOD, MethodId, type Method } from "../../src/amqp/codec/generated.js";

export const PROTOCOL_HEADER = Buffer.from("AMQP\x00\x00\x09\x01", "latin1");

export class WireClient {
  private readonly reader = new FrameReader(1 << 24);
  private readonly frames: Frame[] = [];
  private waiters: Array<() => void> = [];
  readonly raw: Buffer[] = [];
  private closeArgs: { replyCode: number; replyText: string } | undefined;
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.raw.push(chunk);
      try {
        this.reader.push(chunk);
        for (let f = nextFrame(this.reader); f; f = nextFrame(this.reader)) this.frames.push(f);
      } catch {
        // not frames (e.g. a protocol header reply); raw keeps the bytes
      }
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => {});
  }

  static async connect(port: number): Promise<WireClient> {
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    return new WireClient(socket);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  send(channel: number, m: Method): void {
    const out = new OutputBuffer();
    encodeMethod(out, channel, m);
    this.write(out.take());
  }

  /** Resolves when the socket closes (or rejects after ms). */
  async waitClosed(ms = 3000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error("socket did not close");
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  /** The next method frame (skipping heartbeats), or throws after ms. */
  async nextMethod(ms = 3000): Promise<{ channel: number; method: Method }> {
    const deadline = Date.now() + ms;
    for (;;) {
      const i = this.frames.findIndex((f) => f.type === FRAME_METHOD);
      if (i >= 0) {
        const [f] = this.frames.splice(0, i + 1).slice(-1);
        return { channel: f!.channel, method: decodeMethod(f!.payload) };
      }
      if (this.closed) throw new Error("socket closed while waiting for a method");
      if (Date.now() > deadline) throw new Error("timed out waiting for a method frame");
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  /** Frames of a given type seen so far (e.g. heartbeats). */
  count(type: number): number {
    return this.frames.filter((f) => f.type === type).length;
  }

  /** The arguments of the last connection.close received, if any. */
  lastClose(): { replyCode: number; replyText: string } | undefined {
    return this.closeArgs;
  }

  /** Runs the whole handshake (guest/guest on vhost "/" unless told otherwise). */
  async handshake(heartbeat = 0, user = "guest", pass = "guest", vhost = "/"): Promise<void> {
    this.write(PROTOCOL_HEADER);
    const start = await this.nextMethod();
    if (start.method.id !== MethodId.ConnectionStart) throw new Error(`expected connection.start, got ${start.method.name}`);
    this.send(0, {
      id: MethodId.ConnectionStartOk,
      name: "connection.start-ok",
      args: { clientProperties: { product: "wire-test" }, mechanism: "PLAIN", response: Buffer.from(`\0${user}\0${pass}`), locale: "en_US" },
    });
    const tune = await this.nextMethod();
    if (tune.method.id !== MethodId.ConnectionTune) throw new Error(`expected connection.tune, got ${tune.method.name}`);
    this.send(0, { id: MethodId.ConnectionTuneOk, name: "connection.tune-ok", args: { channelMax: 2047, frameMax: 131072, heartbeat } });
    this.send(0, { id: MethodId.ConnectionOpen, name: "connection.open", args: { virtualHost: vhost, capabilities: "", insist: false } });
    const ok = await this.nextMethod();
    if (ok.method.id === MethodId.ConnectionClose) this.closeArgs = ok.method.args;
    if (ok.method.id !== MethodId.ConnectionOpenOk) throw new Error(`expected connection.open-ok, got ${ok.method.name}`);
  }

  close(): void {
    this.socket.destroy();
  }
}
