/**
 * A lean AMQP 1.0 connection for `coney-perf amqp10 --client raw`: SASL PLAIN, open, one session
 * (channel 0), one link, and every later frame handed to the load (amqp10-raw-load.ts). It reads
 * into one reused buffer (the scanner keeps nothing of a read), so reading allocates nothing per
 * read, and it never decodes a transfer's payload. Frames other than transfers are built with
 * Coney's own AMQP 1.0 codec (src/amqp1/performatives.ts). Not a client library: it stops at the
 * first error, as a benchmark should.
 */
import type { Socket } from "node:net";
import { connectRawSocket } from "./raw-socket.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { FRAME_AMQP, FRAME_SASL } from "../amqp1/amqp1-frames.js";
import { performativeFrame, PERFORMATIVE, readPerformative, type Performative } from "../amqp1/performatives.js";
import { Amqp10FrameScanner, type TransferInfo } from "./amqp10-frame-scanner.js";

/** The max-frame-size both sides announce: a 64 KB message travels in one transfer frame. */
export const RAW_MAX_FRAME_SIZE = 131072;
const SASL_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 3, 1, 0, 0]);
const AMQP_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 1, 0, 0]);
const SASL_OK = 0;
/** A window no run reaches (2^31 - 1): the broker is never held back by this side's session window. */
export const WIDE_WINDOW = 0x7fffffff;

const uint = (value: number): Amqp10Value => ({ type: "uint", value });
const bool = (value: boolean): Amqp10Value => ({ type: "boolean", value });
const NULL: Amqp10Value = { type: "null" };

/** What the load wants of frames after the link is attached. */
export interface Amqp10RawLoad {
  performative(p: Performative): void;
  transfer(info: TransferInfo): void;
  /** The end of one socket read: the moment to send what the read's frames asked for, in one write. */
  readDone(): void;
}

/** The link a run attaches: a sender to a target, or a receiver from a source. */
export interface RawLinkSpec {
  readonly role: "sender" | "receiver";
  readonly address: string;
  /** Pre-settled (snd-settle-mode settled) or unsettled (mixed: the sender decides, and settles nothing). */
  readonly settled: boolean;
}

export class Amqp10RawConnection {
  private load: Amqp10RawLoad | null = null;
  /** Frames that came before the load was set (the broker's first flow arrives with its attach). */
  private early: Performative[] = [];
  /** The broker's begin: the first transfer id it will send. */
  remoteNextOutgoingId = 0;
  /** The broker's attach: the delivery count its sending side starts at. */
  remoteDeliveryCount = 0;
  /** The smaller of the two max-frame-sizes (the broker's open): what a transfer frame may take. */
  remoteMaxFrameSize = RAW_MAX_FRAME_SIZE;
  private waiting: { code: number; resolve: (p: Performative) => void; reject: (e: Error) => void } | null = null;
  private headerWait: (() => void) | null = null;
  private failed: Error | null = null;
  private readonly scanner = new Amqp10FrameScanner({
    protocolHeader: () => {
      const w = this.headerWait;
      this.headerWait = null;
      w?.();
    },
    frame: (_type, _channel, buf, start, end) => this.frame(buf.subarray(start, end)),
    transfer: (_channel, info) => this.load?.transfer(info),
  });

  private constructor(readonly socket: Socket) {
    socket.on("error", (e) => this.fail(e));
    socket.on("close", () => this.fail(new Error("connection closed by the broker")));
  }

  /** Connects, logs in (PLAIN), opens, begins and attaches `link`. */
  /** `frameMax`: the max-frame-size this side announces (--frame-max); a message larger than it goes in several transfers both ways. */
  static async open(uri: string, link: RawLinkSpec, frameMax = RAW_MAX_FRAME_SIZE): Promise<Amqp10RawConnection> {
    const url = new URL(uri);
    let conn: Amqp10RawConnection | null = null;
    const socket = await connectRawSocket(url, (buf, n) => conn === null || conn.read(buf, n));
    conn = new Amqp10RawConnection(socket);
    const c = conn;
    const user = decodeURIComponent(url.username || "guest");
    const pass = decodeURIComponent(url.password || "guest");
    // The broker's header and its first frame may come in one read: the frame is awaited first.
    const mechanisms = c.expect(PERFORMATIVE.saslMechanisms);
    await c.header(SASL_HEADER);
    await mechanisms;
    const response: Amqp10Value = { type: "binary", value: Buffer.from(`\u0000${user}\u0000${pass}`) };
    const outcome = await c.call(FRAME_SASL, PERFORMATIVE.saslInit, [{ type: "symbol", value: "PLAIN" }, response], PERFORMATIVE.saslOutcome);
    const code = outcome.fields[0];
    if (code?.type !== "ubyte" || code.value !== SASL_OK) throw new Error("SASL PLAIN refused");
    const vhost = url.pathname.length > 1 ? `vhost:${decodeURIComponent(url.pathname.slice(1))}` : url.hostname;
    // The AMQP header and open are pipelined (part 2 §2.4.1 allows it).
    void c.header(AMQP_HEADER);
    const opened = await c.call(FRAME_AMQP, PERFORMATIVE.open, [{ type: "string", value: `coney-perf-${process.pid}` }, { type: "string", value: vhost }, uint(frameMax), { type: "ushort", value: 0 }], PERFORMATIVE.open);
    const theirs = opened.fields[2];
    if (theirs !== undefined && theirs.type !== "null") c.remoteMaxFrameSize = Math.min(frameMax, fieldNumber(theirs));
    else c.remoteMaxFrameSize = frameMax;
    const begin = await c.call(FRAME_AMQP, PERFORMATIVE.begin, [NULL, uint(0), uint(WIDE_WINDOW), uint(WIDE_WINDOW)], PERFORMATIVE.begin);
    c.remoteNextOutgoingId = fieldNumber(begin.fields[1]);
    const receiver = link.role === "receiver";
    const terminus = (code: number): Amqp10Value => ({ type: "described", descriptor: { type: "ulong", value: BigInt(code) }, value: { type: "list", value: [{ type: "string", value: link.address }] } });
    const attached = await c.call(
      FRAME_AMQP,
      PERFORMATIVE.attach,
      [
        { type: "string", value: `coney-perf-${link.role}-${process.pid}` },
        uint(0),
        bool(receiver),
        { type: "ubyte", value: link.settled ? 1 : 0 },
        { type: "ubyte", value: 0 },
        receiver ? terminus(PERFORMATIVE.source) : { type: "described", descriptor: { type: "ulong", value: BigInt(PERFORMATIVE.source) }, value: { type: "list", value: [] } },
        receiver ? { type: "described", descriptor: { type: "ulong", value: BigInt(PERFORMATIVE.target) }, value: { type: "list", value: [] } } : terminus(PERFORMATIVE.target),
        NULL,
        NULL,
        receiver ? NULL : uint(0),
      ],
      PERFORMATIVE.attach,
    );
    // A refused attach answers with an attach without its terminus, then a detach with the error.
    const answered = attached.fields[receiver ? 5 : 6];
    if (answered === undefined || answered.type === "null") throw new Error(`attach to ${link.address} refused`);
    c.remoteDeliveryCount = fieldNumber(attached.fields[9]);
    return c;
  }

  /** Writes one performative frame on channel 0. */
  send(code: number, fields: readonly Amqp10Value[]): boolean {
    return this.socket.write(performativeFrame(FRAME_AMQP, 0, code, fields));
  }

  close(): void {
    this.socket.removeAllListeners("close");
    this.socket.destroy();
  }

  private header(bytes: Buffer): Promise<void> {
    const p = new Promise<void>((resolve) => (this.headerWait = resolve));
    this.scanner.expectProtocolHeader();
    this.socket.write(bytes);
    return p;
  }

  private call(type: number, code: number, fields: readonly Amqp10Value[], reply: number): Promise<Performative> {
    const p = this.expect(reply);
    this.socket.write(performativeFrame(type, 0, code, fields));
    return p;
  }

  private expect(code: number): Promise<Performative> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => (this.waiting = { code, resolve, reject }));
  }

  private read(buf: Buffer, n: number): boolean {
    try {
      this.scanner.push(buf.subarray(0, n));
      this.load?.readDone();
    } catch (e) {
      this.fail(e instanceof Error ? e : new Error(String(e)));
    }
    return true;
  }

  private frame(body: Buffer): void {
    const p = readPerformative(body);
    const w = this.waiting;
    if (w !== null && p.code === w.code) {
      this.waiting = null;
      w.resolve(p);
    } else if (p.code === PERFORMATIVE.detach || p.code === PERFORMATIVE.end || p.code === PERFORMATIVE.close) {
      this.fail(new Error(`the broker sent ${p.code === PERFORMATIVE.detach ? "detach" : p.code === PERFORMATIVE.end ? "end" : "close"}: ${errorText(p)}`));
    } else if (this.load !== null) {
      this.load.performative(p);
    } else {
      this.early.push(p);
    }
  }

  /** Hands every later frame to `load`, first those that came before it. */
  setLoad(load: Amqp10RawLoad): void {
    this.load = load;
    for (const p of this.early) load.performative(p);
    this.early = [];
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

/** A numeric field's value (uint, ushort, ubyte or ulong); 0 when absent. */
export function fieldNumber(v: Amqp10Value | undefined): number {
  if (v === undefined) return 0;
  if (v.type === "uint" || v.type === "ushort" || v.type === "ubyte") return v.value;
  if (v.type === "ulong") return Number(v.value);
  return 0;
}

/** The error condition and description a detach, end or close carries (its last field). */
function errorText(p: Performative): string {
  const e = p.fields[p.code === PERFORMATIVE.detach ? 2 : 0];
  if (e === undefined || e.type !== "described" || e.value.type !== "list") return "no error";
  return e.value.value.map((x) => ("value" in x && typeof x.value === "string" ? x.value : "")).join(" ");
}
