/**
 * What an AMQP 1.0 connection is to the rest of the node once handed over (amqp1-handover.ts):
 * its state, its output (amqp1-output.ts) and the idle time-out both ways, its sessions by
 * channel (amqp1-session.ts), its record in broker.connections ("AMQP 1-0", from open to close,
 * so the management API, the UI, coneyctl and Prometheus list it), and its end: a failure closes
 * it with the condition (close, then the socket), the broker or the listener ends it, or the
 * socket goes. The reading side — headers, SASL, open/begin/close, frames to sessions — is
 * Amqp1Connection's (amqp1-connection.ts).
 *
 * Invariant: once `state` is "closed" its sessions are released and it is out of the registry.
 */
import type { Duplex } from "node:stream";
import type { Socket } from "node:net";
import { type Broker, type ClientContext, type ConnectionInfo, type VHost } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import { peerAddresses } from "../auth/peer-address.js";
import { AcceptedConnection } from "../auth/accepted-connection.js";
import { Amqp1Error, CONDITION, fromBrokerError } from "./amqp1-errors.js";
import { EMPTY_FRAME, FRAME_AMQP, FrameReader, FrameTooLarge, MalformedFrame, MIN_MAX_FRAME_SIZE } from "./amqp1-frames.js";
import { Amqp1Output } from "./amqp1-output.js";
import { IdleTimers } from "./idle-timers.js";
import { Amqp1Session } from "./amqp1-session.js";
import type { SlabTails } from "../listeners/slab-reads.js";
import type { SlabPool } from "../listeners/slab-pool.js";
import type { Amqp1Settings } from "./amqp1-settings.js";
import { errorValue } from "./amqp1-error-value.js";
import { PERFORMATIVE, performativeFrame } from "./performatives.js";
import { ConnectionCredential } from "./connection-credential.js";
import { Amqp10DecodeError } from "../amqp10/amqp10-decoder.js";

export type Amqp1ConnectionStep = "sasl-header" | "sasl-init" | "authenticating" | "amqp-header" | "open" | "opened" | "closing" | "closed";

export abstract class Amqp1ConnectionState extends AcceptedConnection {
  vhostRef: VHost | null = null;
  ctx: ClientContext | null = null;
  containerId = "";
  readonly output: Amqp1Output;
  readonly slabs: SlabPool | null; // where lent payloads' slabs come from (lent-payloads.ts); null: the collector's
  readonly log: Logger;
  readonly stats = { recvOct: 0, recvCnt: 0 };
  /** Sessions by the channel the peer sends on. */
  readonly sessions = new Map<number, Amqp1Session>();
  protected state: Amqp1ConnectionStep = "sasl-header";
  protected header = Buffer.alloc(0);
  /** Bytes read while an asynchronous login was pending. */
  protected held = Buffer.alloc(0);
  protected readonly reader: FrameReader;
  protected readonly certName: string | null;
  protected readonly timers = new IdleTimers((err) => this.fail(err), () => this.output.write(EMPTY_FRAME));
  protected registered = false;
  /** Our idle time-out, announced in open (ms; 0 = none). */
  protected readonly idleTimeout: number;
  /** A token login's expiry and refresh (PUT /auth/tokens). */
  readonly credential = new ConnectionCredential(this);

  /** The reading side (Amqp1Connection): what the socket brings. */
  protected abstract onData(chunk: Buffer): void;

  constructor(
    readonly socket: Duplex,
    readonly broker: Broker,
    readonly settings: Amqp1Settings,
    logger: Logger,
    tls: boolean,
    protected readonly tails: SlabTails | null = null, // the socket's read slabs, when they return to a pool
  ) {
    super(socket as Partial<Socket>, tls);
    this.log = logger.child({ connection: this.name, protocol: "amqp1.0" });
    this.certName = settings.certName(socket);
    this.output = new Amqp1Output(socket);
    this.reader = new FrameReader(MIN_MAX_FRAME_SIZE);
    this.slabs = tails?.pool ?? null;
    if (tails !== null) tails.carrier = this.reader; // a frame moves whole to the next slab (amqp1-frames.ts)
    this.idleTimeout = settings.heartbeat * 1000;
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("drain", () => this.onDrain());
    socket.on("error", (err) => this.log.debug("socket error", { err: err.message }));
    socket.on("close", () => this.onSocketClosed());
    this.timers.handshake(settings.handshakeTimeout * 1000);
  }

  get channelCount(): number {
    return this.sessions.size;
  }

  get isOpen(): boolean {
    return this.state === "opened";
  }

  get canWrite(): boolean {
    return this.state === "opened" && !this.output.writeBlocked;
  }

  protected flushPending = false;
  /** Accepted deliveries go as ranges, with credit top-ups, after a read of many frames, else once per event-loop turn:
   * a lone disposition per read was a write system call (~16 % of CPU at 64 KB unsettled; FLUSH_AFTER_FRAMES). */
  protected readonly flushSessions = (): void => {
    this.flushPending = false;
    for (const session of this.sessions.values()) session.flushAccepted();
  };

  protected get closed(): boolean {
    return this.state === "closed";
  }

  /** A session ended (its end frame was sent). */
  sessionEnded(channel: number): void {
    this.sessions.delete(channel);
  }

  /** Closes the connection with an error's condition (part 2 §2.7.9), then the socket. */
  fail(err: unknown): void {
    if (this.state === "closed" || this.state === "closing") return;
    const e = err instanceof Amqp10DecodeError || err instanceof MalformedFrame ? new Amqp1Error(err instanceof MalformedFrame ? CONDITION.framingError : CONDITION.decodeError, err.message) : err instanceof FrameTooLarge ? new Amqp1Error(CONDITION.framingError, err.message) : fromBrokerError(err, "connection");
    this.log.info("AMQP 1.0 connection closed with an error", { condition: e.condition, description: e.description });
    if (this.state === "sasl-header" || this.state === "sasl-init" || this.state === "authenticating" || this.state === "amqp-header") {
      this.state = "closed";
      this.output.flush();
      this.socket.end();
      return;
    }
    if (this.state === "open") {
      // The peer's open is not read yet: open must precede close (part 2 §2.4.1).
      this.output.write(performativeFrame(FRAME_AMQP, 0, PERFORMATIVE.open, [{ type: "string", value: this.settings.containerId }]));
    }
    this.output.write(performativeFrame(FRAME_AMQP, 0, PERFORMATIVE.close, [errorValue(e)]));
    this.state = "closing";
    this.releaseSessions();
    setTimeout(() => this.destroy(), 1000).unref();
  }

  forceClose(reason: string): void {
    this.fail(new Amqp1Error(CONDITION.connectionForced, reason));
  }

  private releaseSessions(): void {
    for (const s of this.sessions.values()) s.release();
    this.sessions.clear();
  }

  destroy(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.output.flush();
    this.socket.end();
    this.socket.destroy();
  }

  private onDrain(): void {
    this.output.writeBlocked = false;
    for (const s of this.sessions.values()) s.resume();
  }

  private onSocketClosed(): void {
    this.state = "closed";
    this.credential.close();
    this.timers.stop();
    this.releaseSessions();
    if (this.registered) {
      this.registered = false;
      this.broker.ownerClosed(this);
      this.broker.connections.remove(this);
    }
  }

  info(): ConnectionInfo {
    return {
      name: this.name,
      ...peerAddresses(this),
      user: this.user,
      vhost: this.vhost,
      protocol: "AMQP 1-0",
      authMechanism: this.authMechanism,
      ssl: this.tls,
      tlsSession: null,
      state: this.state === "opened" ? "running" : "closing",
      connectedAt: this.connectedAt,
      channelMax: this.settings.channelMax,
      frameMax: this.output.maxFrameSize,
      heartbeat: this.idleTimeout / 1000,
      clientProperties: { container_id: this.containerId },
      recvOct: this.stats.recvOct,
      sendOct: this.output.sendOct,
      recvCnt: this.stats.recvCnt,
      sendCnt: this.output.sendCnt,
      channels: [...this.sessions.values()].map((s) => s.info()),
    };
  }
}
