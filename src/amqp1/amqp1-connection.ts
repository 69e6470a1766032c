/**
 * One AMQP 1.0 connection, handed over by the AMQP listener once the protocol header said 1.0
 * (amqp1-handover.ts). It owns the socket: the SASL layer (SASL header, mechanisms, init,
 * outcome), the AMQP header, open/close, the idle time-out both ways, and its sessions by
 * channel (amqp1-session.ts). It is registered in broker.connections as "AMQP 1-0" from open
 * to close, so the management API, the UI, coneyctl and Prometheus list it.
 *
 * Errors end what they concern: a session's (amqp1-session.ts) or a link's are handled there;
 * what reaches this class closes the connection with the condition (close, then the socket).
 */
import type { Duplex } from "node:stream";
import type { Socket } from "node:net";
import { clientContext, type Broker, type ClientConnection, type ClientContext, type ConnectionInfo, type VHost } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import { peerAddresses } from "../auth/peer-address.js";
import { AcceptedConnection } from "../auth/accepted-connection.js";
import { Amqp1Error, CONDITION, fromBrokerError } from "./amqp1-errors.js";
import { EMPTY_FRAME, FRAME_AMQP, FRAME_SASL, FrameReader, FrameTooLarge, MalformedFrame, MIN_MAX_FRAME_SIZE, type Frame } from "./amqp1-frames.js";
import { Amqp1Output } from "./amqp1-output.js";
import { IdleTimers } from "./idle-timers.js";
import { Amqp1Session } from "./amqp1-session.js";
import type { SessionConnection } from "./link-host.js";
import type { SlabTails } from "../listeners/slab-reads.js";
import type { SlabPool } from "../listeners/slab-pool.js";
import type { Amqp1Settings } from "./amqp1-settings.js";
import { errorValue } from "./amqp1-error-value.js";
import { binaryField, optionalUint, PERFORMATIVE, performativeFrame, readPerformative, textField, uintField } from "./performatives.js";
import { readFramePerformative } from "./performative-heads.js";
import { saslLogIn, saslMechanisms, type SaslLogin, type SaslPeer } from "./sasl-login.js";
import { ConnectionCredential } from "./connection-credential.js";
import { Amqp10DecodeError } from "../amqp10/amqp10-decoder.js";
import { sym, type Amqp10Value } from "../amqp10/amqp10-value.js";

export const SASL_HEADER = Buffer.from("AMQP\x03\x01\x00\x00", "latin1");
export const AMQP_HEADER = Buffer.from("AMQP\x00\x01\x00\x00", "latin1");

/** A read of this many frames (small messages) flushes at once: deferring such reads cost 16 B ~10 % (flushSessions). */
const FLUSH_AFTER_FRAMES = 16;
type State = "sasl-header" | "sasl-init" | "authenticating" | "amqp-header" | "open" | "opened" | "closing" | "closed";

export class Amqp1Connection extends AcceptedConnection implements ClientConnection, SessionConnection {
  vhostRef: VHost | null = null;
  ctx: ClientContext | null = null;
  containerId = "";
  readonly output: Amqp1Output;
  readonly slabs: SlabPool | null; // where lent payloads' slabs come from (lent-payloads.ts); null: the collector's
  readonly log: Logger;
  readonly stats = { recvOct: 0, recvCnt: 0 };
  /** Sessions by the channel the peer sends on. */
  readonly sessions = new Map<number, Amqp1Session>();
  private state: State = "sasl-header";
  private header = Buffer.alloc(0);
  /** Bytes read while an asynchronous login was pending. */
  private held = Buffer.alloc(0);
  private readonly reader: FrameReader;
  private readonly certName: string | null;
  private readonly timers = new IdleTimers((err) => this.fail(err), () => this.output.write(EMPTY_FRAME));
  private registered = false;
  /** Our idle time-out, announced in open (ms; 0 = none). */
  private readonly idleTimeout: number;
  /** A token login's expiry and refresh (PUT /auth/tokens). */
  readonly credential = new ConnectionCredential(this);

  constructor(
    readonly socket: Duplex,
    readonly broker: Broker,
    readonly settings: Amqp1Settings,
    logger: Logger,
    tls: boolean,
    private readonly tails: SlabTails | null = null, // the socket's read slabs, when they return to a pool
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

  /** The bytes read with the protocol header (the header among them). */
  start(first: Buffer): void {
    this.onData(first);
  }

  private flushPending = false;
  /** Accepted deliveries go as ranges, with credit top-ups, after a read of many frames, else once per event-loop turn:
   * a lone disposition per read was a write system call (~16 % of CPU at 64 KB unsettled; FLUSH_AFTER_FRAMES). */
  private readonly flushSessions = (): void => {
    this.flushPending = false;
    for (const session of this.sessions.values()) session.flushAccepted();
  };

  private onData(chunk: Buffer): void {
    this.timers.lastRecv = Date.now();
    this.stats.recvOct += chunk.length;
    const counted = this.stats.recvCnt;
    this.process(chunk);
    if (this.stats.recvCnt - counted >= FLUSH_AFTER_FRAMES || this.state !== "opened") this.flushSessions();
    else if (!this.flushPending) {
      this.flushPending = true;
      setImmediate(this.flushSessions);
    }
    if (this.tails !== null) this.tails.settle(this.reader); // all read is used up or leased, but a frame in progress
  }

  private get closed(): boolean {
    return this.state === "closed";
  }

  /** Reads in the layer the connection is in: a protocol header, one SASL frame, or AMQP frames. */
  private process(chunk: Buffer): void {
    let buf: Buffer | null = chunk;
    try {
      while (buf !== null && buf.length > 0 && !this.closed) {
        if (this.state === "sasl-header" || this.state === "amqp-header") {
          buf = this.readHeader(buf);
        } else if (this.state === "sasl-init") {
          const frames = this.reader.push(buf, 1);
          buf = null;
          if (frames.length > 0) {
            this.stats.recvCnt++;
            this.onSaslInit(frames[0]!);
            buf = this.reader.takeRest();
          }
        } else if (this.state === "authenticating") {
          // A token login is verified asynchronously; what follows waits for its outcome.
          this.held = Buffer.concat([this.held, buf]);
          buf = null;
        } else {
          for (const frame of this.reader.push(buf)) {
            this.stats.recvCnt++;
            this.onFrame(frame);
            if (this.closed) break;
          }
          buf = null;
        }
      }
    } catch (err) {
      this.fail(err);
    }
  }

  /** The SASL or AMQP protocol header; a wrong one is answered with ours, then the socket closes (part 2 §2.2). */
  private readHeader(chunk: Buffer): Buffer | null {
    const have = this.header.length === 0 ? chunk : Buffer.concat([this.header, chunk]);
    if (have.length < 8) {
      this.header = Buffer.from(have);
      return null;
    }
    this.header = Buffer.alloc(0);
    const expected = this.state === "sasl-header" ? SASL_HEADER : AMQP_HEADER;
    if (!have.subarray(0, 8).equals(expected)) {
      this.log.info("AMQP 1.0 protocol header refused", { header: have.subarray(0, 8).toString("hex") });
      this.state = "closed";
      this.output.flush();
      this.socket.end(expected);
      return null;
    }
    if (this.state === "sasl-header") {
      this.output.write(SASL_HEADER);
      const peer: SaslPeer = { peerHost: this.peerHost, isLoopback: this.isLoopback, certName: this.certName };
      const mechanisms: Amqp10Value = { type: "array", value: saslMechanisms(this.settings, peer).map(sym) };
      this.output.write(performativeFrame(FRAME_SASL, 0, PERFORMATIVE.saslMechanisms, [mechanisms]));
      this.state = "sasl-init";
    } else {
      this.output.write(AMQP_HEADER);
      this.state = "open";
    }
    return have.subarray(8);
  }

  private onFrame(frame: Frame): void {
    if (this.state === "sasl-init") return this.onSaslInit(frame);
    if (frame.type !== FRAME_AMQP) throw new Amqp1Error(CONDITION.framingError, `a frame of type ${frame.type} after SASL`);
    if (frame.body.length === 0) return; // an empty frame keeps the connection alive
    const p = readFramePerformative(frame.body);
    if (this.state === "open") {
      if (p.code !== PERFORMATIVE.open) throw new Amqp1Error(CONDITION.illegalState, "the first frame must be open");
      return this.onOpen(p.fields);
    }
    if (this.state === "closing") {
      if (p.code === PERFORMATIVE.close) this.destroy();
      return;
    }
    // What the turn accepted goes out before a link, session or the connection ends (as read).
    if (this.flushPending && (p.code === PERFORMATIVE.detach || p.code === PERFORMATIVE.end || p.code === PERFORMATIVE.close)) this.flushSessions();
    if (p.code === PERFORMATIVE.close) return this.onClose();
    if (p.code === PERFORMATIVE.begin) return this.onBegin(frame.channel, p.fields);
    const session = this.sessions.get(frame.channel);
    if (session === undefined) throw new Amqp1Error(CONDITION.illegalState, `a frame on channel ${frame.channel}, which has no session`);
    session.onPerformative(p, frame);
  }

  private onSaslInit(frame: Frame): void {
    if (frame.type !== FRAME_SASL) throw new Amqp1Error(CONDITION.framingError, "expected sasl-init");
    const p = readPerformative(frame.body);
    if (p.code !== PERFORMATIVE.saslInit) throw new Amqp1Error(CONDITION.illegalState, "expected sasl-init");
    const mechanism = textField(p.fields, 0, "mechanism") ?? "";
    const response = binaryField(p.fields, 1, "initial-response") ?? Buffer.alloc(0);
    const peer: SaslPeer = { peerHost: this.peerHost, isLoopback: this.isLoopback, certName: this.certName };
    this.state = "authenticating";
    const refuse = (err: unknown): void => {
      this.log.warn("AMQP 1.0 login refused", { mechanism, reason: err instanceof Error ? err.message : String(err) });
      // sasl-outcome code 1: authentication failed (part 5 §5.3.3.6), then the socket closes.
      this.output.write(performativeFrame(FRAME_SASL, 0, PERFORMATIVE.saslOutcome, [{ type: "ubyte", value: 1 }]));
      this.state = "closed";
      this.output.flush();
      this.socket.end();
    };
    let login;
    try {
      login = saslLogIn(this.broker, this.settings, this.log, peer, mechanism, response);
    } catch (err) {
      return refuse(err);
    }
    const accept = (l: SaslLogin): void => {
      if (this.state !== "authenticating") return;
      this.credential.arm(l.expiresAt);
      this.user = l.user;
      this.permissions = l.permissions;
      this.authMechanism = l.mechanism;
      this.output.write(performativeFrame(FRAME_SASL, 0, PERFORMATIVE.saslOutcome, [{ type: "ubyte", value: 0 }]));
      this.state = "amqp-header";
    };
    if (login instanceof Promise) {
      login.then(
        (l) => {
          accept(l);
          const held = this.held;
          this.held = Buffer.alloc(0);
          if (held.length > 0) this.onData(held);
        },
        (err: unknown) => refuse(err),
      );
    } else {
      accept(login);
    }
  }

  /** open: the vhost from the hostname "vhost:NAME" (RabbitMQ 4), else the default vhost. */
  private onOpen(f: readonly Amqp10Value[]): void {
    this.containerId = textField(f, 0, "container-id") ?? "";
    const hostname = textField(f, 1, "hostname");
    const vhost = hostname !== null && hostname.startsWith("vhost:") ? hostname.slice(6) : this.settings.defaultVhost;
    const maxFrame = uintField(f, 2, "max-frame-size", 0xffffffff);
    if (maxFrame < MIN_MAX_FRAME_SIZE) throw new Amqp1Error(CONDITION.frameSizeTooSmall, `max-frame-size ${maxFrame} < ${MIN_MAX_FRAME_SIZE}`);
    this.output.maxFrameSize = Math.min(maxFrame, this.settings.frameMax);
    const peerIdle = optionalUint(f, 4, "idle-time-out") ?? 0;
    this.admit(vhost);
    this.output.write(
      performativeFrame(FRAME_AMQP, 0, PERFORMATIVE.open, [
        { type: "string", value: this.settings.containerId },
        { type: "null" },
        { type: "uint", value: this.settings.frameMax },
        { type: "ushort", value: this.settings.channelMax },
        this.idleTimeout > 0 ? { type: "uint", value: this.idleTimeout } : { type: "null" },
      ]),
    );
    this.reader.maxFrameSize = this.settings.frameMax;
    this.vhost = vhost;
    this.ctx = clientContext(this.permissions!, this, "amqp", this.peerHost);
    this.state = "opened";
    this.broker.connections.add(this);
    this.registered = true;
    this.timers.start(this.idleTimeout, peerIdle);
  }

  /** RabbitMQ 4's checks at open: the vhost exists and the user may use it (amqp:unauthorized-access), then the limits (amqp:resource-limit-exceeded). */
  private admit(vhost: string): void {
    if (this.broker.vhosts.get(vhost) === undefined) throw new Amqp1Error(CONDITION.unauthorizedAccess, `AMQP 1.0 connection failed: virtual host '${vhost}' does not exist`);
    if (!this.permissions!.hasVhostAccess(vhost)) throw new Amqp1Error(CONDITION.unauthorizedAccess, `access to vhost '${vhost}' refused for user '${this.user}'`);
    try {
      this.vhostRef = this.broker.admitConnection(this.permissions!, vhost, this.settings.maxConnections);
    } catch (err) {
      throw new Amqp1Error(CONDITION.resourceLimitExceeded, fromBrokerError(err, "connection").description);
    }
  }

  private onBegin(channel: number, f: readonly Amqp10Value[]): void {
    if (this.sessions.has(channel)) throw new Amqp1Error(CONDITION.illegalState, `channel ${channel} already has a session`);
    if (this.sessions.size >= this.settings.channelMax) throw new Amqp1Error(CONDITION.resourceLimitExceeded, `more than ${this.settings.channelMax} sessions`);
    const session = new Amqp1Session(this, channel);
    this.sessions.set(channel, session);
    session.begin(f);
  }

  /** A session ended (its end frame was sent). */
  sessionEnded(channel: number): void {
    this.sessions.delete(channel);
  }

  private onClose(): void {
    this.output.write(performativeFrame(FRAME_AMQP, 0, PERFORMATIVE.close, []));
    this.destroy();
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
