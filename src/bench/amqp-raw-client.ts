/**
 * A lean AMQP 0-9-1 connection for coney-perf's `--client raw`: the handshake (PLAIN), one
 * channel, synchronous calls one at a time, and every other frame handed to the load (raw-load.ts).
 * It reads into one reused buffer (the scanner keeps nothing of a read), so reading allocates
 * nothing per read. Frames are encoded with the broker's own codec. Not a client library: it
 * stops at the first error, as a benchmark should.
 */
import type { Socket } from "node:net";
import { connectRawSocket } from "./raw-socket.js";
import { OutputBuffer } from "../amqp/codec/output-buffer.js";
import {
  decodeMethod,
  encodeChannelOpen,
  encodeConnectionOpen,
  encodeConnectionStartOk,
  encodeConnectionTuneOk,
  MethodId,
  type Method,
} from "../amqp/codec/generated.js";
import { FrameScanner, type FrameSink } from "./frame-scanner.js";

/**
 * @cloudamqp/amqp-client's frame_max (what it asks for unless the URI names another: its
 * MIN_FRAME_SIZE, 8192), so both clients make brokers handle the same frames. It was 4096 until
 * the eighth pass (docs/PERFORMANCE.md): lean-client runs then cut large bodies into twice as many
 * frames as amqp-client runs. test/bench/raw-client.test.ts compares the two on a live broker.
 */
export const RAW_DEFAULT_FRAME_MAX = 8192;
const FRAME_METHOD = 1;
/** The channel every load runs on. */
export const RAW_CHANNEL = 1;

/** What the load wants of frames outside synchronous calls. */
export interface RawLoad extends FrameSink {
  /** A method frame no call waits for (a delivery, a confirm): payload bytes [start, end) of `buf`. */
  method(id: number, buf: Buffer, start: number, end: number): void;
}

export class AmqpRawConnection {
  /** Set by the load before it starts. */
  load: RawLoad | null = null;
  frameMax = RAW_DEFAULT_FRAME_MAX;
  private waiting: { id: number; resolve: (m: Method) => void; reject: (e: Error) => void } | null = null;
  private failed: Error | null = null;
  private readonly scanner = new FrameScanner({
    frame: (type, channel, buf, start, end) => this.frame(type, channel, buf, start, end),
    body: (channel, buf, start, end) => this.load?.body(channel, buf, start, end),
  });

  private constructor(readonly socket: Socket) {
    socket.on("error", (e) => this.fail(e));
    socket.on("close", () => this.fail(new Error("connection closed by the broker")));
  }

  /** Connects and opens the URI's vhost and channel 1; `?frameMax=` in the URI asks for another frame size. */
  static async open(uri: string): Promise<AmqpRawConnection> {
    const url = new URL(uri);
    let conn: AmqpRawConnection | null = null;
    const socket = await connectRawSocket(url, (buf, n) => conn === null || conn.read(buf, n));
    conn = new AmqpRawConnection(socket);
    const wanted = Number(url.searchParams.get("frameMax") ?? RAW_DEFAULT_FRAME_MAX);
    const started = conn.expect(MethodId.ConnectionStart);
    socket.write(Buffer.from([65, 77, 81, 80, 0, 0, 9, 1]));
    await started;
    const user = decodeURIComponent(url.username || "guest");
    const pass = decodeURIComponent(url.password || "guest");
    const tune = await conn.call(
      (out) => encodeConnectionStartOk(out, 0, { clientProperties: { product: "coney-perf raw" }, mechanism: "PLAIN", response: Buffer.from(`\u0000${user}\u0000${pass}`), locale: "en_US" }),
      MethodId.ConnectionTune,
    );
    if (tune.id !== MethodId.ConnectionTune) throw new Error("expected connection.tune");
    const offered = tune.args.frameMax;
    conn.frameMax = offered === 0 ? wanted : Math.min(offered, wanted);
    conn.send((out) => encodeConnectionTuneOk(out, 0, { channelMax: tune.args.channelMax, frameMax: conn.frameMax, heartbeat: 0 }));
    const vhost = url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : "/";
    await conn.call((out) => encodeConnectionOpen(out, 0, { virtualHost: vhost, capabilities: "", insist: false }), MethodId.ConnectionOpenOk);
    await conn.call((out) => encodeChannelOpen(out, RAW_CHANNEL, { outOfBand: "" }), MethodId.ChannelOpenOk);
    return conn;
  }

  /** Writes frames encoded by `encode`; false when the socket asks to wait for 'drain'. */
  send(encode: (out: OutputBuffer) => void): boolean {
    const out = new OutputBuffer(512);
    encode(out);
    return this.socket.write(out.take());
  }

  /** Sends a synchronous method and resolves with the reply `replyId`. */
  call(encode: (out: OutputBuffer) => void, replyId: number): Promise<Method> {
    const reply = this.expect(replyId);
    this.send(encode);
    return reply;
  }

  close(): void {
    this.socket.removeAllListeners("close");
    this.socket.destroy();
  }

  private expect(id: number): Promise<Method> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => (this.waiting = { id, resolve, reject }));
  }

  /** One read into the reused buffer; true: go on reading. */
  private read(buf: Buffer, n: number): boolean {
    try {
      this.scanner.push(buf.subarray(0, n));
    } catch (e) {
      this.fail(e instanceof Error ? e : new Error(String(e)));
    }
    return true;
  }

  private frame(type: number, channel: number, buf: Buffer, start: number, end: number): void {
    if (type !== FRAME_METHOD) {
      this.load?.frame(type, channel, buf, start, end);
      return;
    }
    const id = buf.readUInt32BE(start);
    const w = this.waiting;
    if (w !== null && id === w.id) {
      this.waiting = null;
      w.resolve(decodeMethod(buf, start, end));
    } else if (id === MethodId.ConnectionClose || id === MethodId.ChannelClose) {
      const m = decodeMethod(buf, start, end) as { args: { replyCode: number; replyText: string } };
      this.fail(new Error(`closed by the broker: ${m.args.replyCode} ${m.args.replyText}`));
    } else if (this.load !== null) {
      this.load.method(id, buf, start, end);
    }
  }

  private fail(e: Error): void {
    if (this.failed) return;
    this.failed = e;
    const w = this.waiting;
    this.waiting = null;
    w?.reject(e);
    this.onFailure(e);
  }

  /** Called once, on the first error or an unexpected close (the load ends the process). */
  onFailure: (e: Error) => void = () => {};
}
