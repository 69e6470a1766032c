/**
 * One AMQP 1.0 connection, handed over by the AMQP listener once the protocol header said 1.0
 * (amqp1-handover.ts), its reading side: the SASL layer (SASL header, mechanisms, init, outcome),
 * the AMQP header, open, begin and close, and each frame to its session (amqp1-session.ts). Its
 * state, output, idle time-out, registry record ("AMQP 1-0") and end are Amqp1ConnectionState's
 * (amqp1-connection-state.ts).
 *
 * Errors end what they concern: a session's (amqp1-session.ts) or a link's are handled there;
 * what reaches this class closes the connection with the condition (close, then the socket).
 */
import { clientContext, type ClientConnection } from "../broker/index.js";
import { Amqp1Error, CONDITION, fromBrokerError } from "./amqp1-errors.js";
import { FRAME_AMQP, FRAME_SASL, MIN_MAX_FRAME_SIZE, type Frame } from "./amqp1-frames.js";
import { Amqp1Session } from "./amqp1-session.js";
import type { SessionConnection } from "./link-host.js";
import { binaryField, optionalUint, PERFORMATIVE, performativeFrame, readPerformative, textField, uintField } from "./performatives.js";
import { readFramePerformative } from "./performative-heads.js";
import { saslLogIn, saslMechanisms, type SaslLogin, type SaslPeer } from "./sasl-login.js";
import { sym, type Amqp10Value } from "../amqp10/amqp10-value.js";
import { Amqp1ConnectionState } from "./amqp1-connection-state.js";

export const SASL_HEADER = Buffer.from("AMQP\x03\x01\x00\x00", "latin1");
export const AMQP_HEADER = Buffer.from("AMQP\x00\x01\x00\x00", "latin1");

/** A read of this many frames (small messages) flushes at once: deferring such reads cost 16 B ~10 % (flushSessions). */
const FLUSH_AFTER_FRAMES = 16;

export class Amqp1Connection extends Amqp1ConnectionState implements ClientConnection, SessionConnection {
  /** The bytes read with the protocol header (the header among them). */
  start(first: Buffer): void {
    this.onData(first);
  }

  protected onData(chunk: Buffer): void {
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

  private onClose(): void {
    this.output.write(performativeFrame(FRAME_AMQP, 0, PERFORMATIVE.close, []));
    this.destroy();
  }
}
