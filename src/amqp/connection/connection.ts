/**
 * One AMQP 0-9-1 connection over any Duplex stream (a TCP or TLS socket, or an in-memory pair
 * in tests). It owns the socket, the frame reader, the batched output buffer, heartbeats and
 * the channels; everything about messages happens in the channels and the broker.
 *
 * Frame handling is synchronous from 'data' to the last frame of a chunk, and output is one
 * socket write per event-loop turn (flush on setImmediate), so many frames share one syscall.
 * Invariant: after a connection.close has been sent, only connection.close-ok/close are read.
 */
import { tlsSessionInfo } from "../../tls/tls-session.js";
import type { Duplex } from "node:stream";
import type { Socket } from "node:net";
import { PublishFlow } from "./publish-flow.js";
import { FrameReader } from "../codec/frame-reader.js";
import { OutputBuffer } from "../codec/output-buffer.js";
import {
  decodeMethod,
  encodeConnectionClose,
  encodeConnectionCloseOk,
  encodeConnectionOpenOk,
  encodeConnectionStart,
  encodeConnectionTune,
  encodeConnectionBlocked,
  encodeConnectionUnblocked,
  encodeConnectionUpdateSecretOk,
  FRAME_BODY,
  FRAME_HEADER,
  FRAME_HEARTBEAT,
  FRAME_METHOD,
  MethodId,
  type Method,
} from "../codec/generated.js";
import type { FieldTable } from "../../broker/values/field-value.js";
import { BrokerError } from "../../errors/broker-error.js";
import type { Broker } from "../../broker/broker.js";
import type { ClientConnection, ConnectionInfo } from "../../broker/connection-registry.js";
import type { VHost } from "../../broker/vhost.js";
import { clusterNameOf } from "../../broker/runtime-parameters.js";
import type { PermissionChecker } from "../../auth/permission-check.js";
import type { Logger } from "../../logging/logger.js";
import type { ResourceAlarms } from "../../broker/alarms/resource-alarms.js";
import type { TokenVerifier } from "../../auth/oauth/token-verifier.js";
import type { LoginThrottle } from "../../auth/login-throttle.js";
import { Channel } from "../channel/channel.js";
import { Handshake, type Tuning } from "./handshake.js";
import { logIn, refreshSecret, TokenExpiry, type LoggedIn, type LoginSettings } from "./login.js";
import { replyFor } from "./reply.js";
import { serverProperties } from "./server-properties.js";

export interface AmqpSettings {
  readonly channelMax: number;
  readonly frameMax: number;
  readonly heartbeat: number;
  readonly maxMessageSize: number;
  /** Users that may only connect from loopback addresses (RabbitMQ loopback_users). */
  readonly loopbackUsers: readonly string[];
  /** Seconds a client has to complete the handshake. */
  readonly handshakeTimeout: number;
  readonly clusterName: string;
  /** OAuth 2.0: a password that is a JWT is verified as a token (any user name). Null: passwords only. */
  readonly tokens?: TokenVerifier | null;
  /** Memory and disk alarms; a publishing connection is blocked while one is on. */
  readonly alarms?: ResourceAlarms | null;
  /** Open connections allowed on the node; 0 = no limit. */
  readonly maxConnections?: number;
  /** Failed-login throttling per client address. */
  readonly loginThrottle?: LoginThrottle | null;
}

const PROTOCOL_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1]); // "AMQP" 0 0 9 1
/** Above this many buffered output bytes a connection flushes at once and stops taking deliveries. */
const OUTPUT_HIGH_WATER = 512 * 1024;
let nextConnectionId = 1;

export class AmqpConnection implements ClientConnection {
  readonly id = nextConnectionId++;
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly peerHost: string;
  readonly peerPort: number;
  readonly connectedAt = Date.now();
  vhost = "";
  user = "";
  permissions: PermissionChecker | null = null;
  vhostRef: VHost | null = null;
  clientProperties: FieldTable = {};
  authMechanism = "";
  tuning: Tuning;
  state: "starting" | "tuning" | "opening" | "running" | "blocked" | "closing" | "closed" = "starting";
  readonly channels = new Map<number, Channel>();
  readonly out = new OutputBuffer();
  readonly stats = { recvOct: 0, sendOct: 0, recvCnt: 0, sendCnt: 0 };
  /** True while the socket refuses more data; consumers then stop taking deliveries. */
  writeBlocked = false;

  private headerBytes: Buffer | null = Buffer.alloc(0);
  private readonly reader: FrameReader;
  private readonly handshake: Handshake;
  private readonly handshakeHostState: ReturnType<AmqpConnection["handshakeHost"]>;
  private flushScheduled = false;
  private lastRecv = Date.now();
  private lastSend = Date.now();
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private handshakeTimer: NodeJS.Timeout | null;
  private closeTimer: NodeJS.Timeout | null = null;
  private readonly log: Logger;
  /** Set while an alarm holds this connection: connection.blocked sent, socket not read. */
  private alarmBlocked = false;
  /** Publisher flow control (publish-flow.ts): this connection is not read while a consumed queue it feeds catches up. */
  readonly flow = new PublishFlow(this);
  /** The handshake's login (login.ts); null until authenticated. */
  private login: LoggedIn | null = null;
  /** Closes a token login's connection when the token expires (RabbitMQ's credential expiry). */
  private readonly tokenExpiry = new TokenExpiry(() => {
    this.log.info("closing connection: OAuth 2.0 token expired", { user: this.user });
    this.connectionError(new BrokerError("accessRefused", "credential expired"), 0, 0);
  });

  constructor(
    private readonly socket: Duplex,
    readonly broker: Broker,
    readonly settings: AmqpSettings,
    logger: Logger,
    readonly tls = false,
  ) {
    const s = socket as Partial<Socket>;
    this.peerHost = normaliseHost(s.remoteAddress ?? "in-memory");
    this.peerPort = s.remotePort ?? 0;
    this.host = normaliseHost(s.localAddress ?? "in-memory");
    this.port = s.localPort ?? 0;
    this.name = `${this.peerHost}:${this.peerPort} -> ${this.host}:${this.port}`;
    this.log = logger.child({ connection: this.name });
    this.tuning = { channelMax: settings.channelMax, frameMax: settings.frameMax, heartbeat: settings.heartbeat };
    this.reader = new FrameReader(settings.frameMax);
    this.handshakeHostState = this.handshakeHost();
    this.handshake = new Handshake(this.handshakeHostState);
    s.setNoDelay?.(true);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("drain", () => this.onDrain());
    socket.on("error", (err) => this.log.debug("socket error", { err: err.message }));
    socket.on("close", () => this.onSocketClosed());
    this.handshakeTimer = setTimeout(() => {
      this.log.warn("closing connection: handshake timeout");
      this.destroy();
    }, settings.handshakeTimeout * 1000);
    this.handshakeTimer.unref();
  }

  info(): ConnectionInfo {
    return {
      name: this.name,
      host: this.host,
      port: this.port,
      peerHost: this.peerHost,
      peerPort: this.peerPort,
      user: this.user,
      vhost: this.vhost,
      protocol: "AMQP 0-9-1",
      authMechanism: this.authMechanism,
      ssl: this.tls,
      tlsSession: this.tls ? tlsSessionInfo(this.socket) : null,
      state: this.flow.paused && this.state === "running" ? "flow" : this.state,
      connectedAt: this.connectedAt,
      channelMax: this.tuning.channelMax,
      frameMax: this.tuning.frameMax,
      heartbeat: this.tuning.heartbeat,
      clientProperties: this.clientProperties,
      recvOct: this.stats.recvOct,
      sendOct: this.stats.sendOct,
      recvCnt: this.stats.recvCnt,
      sendCnt: this.stats.sendCnt,
      channels: [...this.channels.values()].map((ch) => ch.info()),
    };
  }

  /** A method rather than a narrowed field read: frame handlers may close the connection. */
  get isClosed(): boolean {
    return this.state === "closed";
  }

  get isLoopback(): boolean {
    return isLoopbackAddress(this.peerHost);
  }

  // ------------------------------------------------------------ input

  private onData(chunk: Buffer): void {
    this.lastRecv = Date.now();
    this.stats.recvOct += chunk.length;
    if (this.vhostRef) this.vhostRef.stats.recvOct += chunk.length;
    if (this.state === "closed") return;
    if (this.headerBytes) {
      chunk = this.readProtocolHeader(chunk);
      if (this.headerBytes || chunk.length === 0) return;
    }
    try {
      this.reader.push(chunk);
      for (let f = this.reader.next(); f; f = this.reader.next()) {
        this.stats.recvCnt++;
        this.onFrame(f.type, f.channel, f.payload);
        if (this.isClosed) return;
      }
    } catch (err) {
      this.connectionError(err, 0, 0);
    }
    this.maybeFlush();
  }

  /** Protocol header check (AMQP 0-9-1 §4.2.2): a wrong header gets ours back and the socket closed. */
  private readProtocolHeader(chunk: Buffer): Buffer {
    const have = Buffer.concat([this.headerBytes!, chunk]);
    if (have.length < 8) {
      if (!PROTOCOL_HEADER.subarray(0, have.length).equals(have)) this.refuseProtocol();
      else this.headerBytes = have;
      return Buffer.alloc(0);
    }
    if (!have.subarray(0, 8).equals(PROTOCOL_HEADER)) {
      this.refuseProtocol();
      return Buffer.alloc(0);
    }
    this.headerBytes = null;
    this.handshake.begin();
    this.flush();
    return have.subarray(8);
  }

  private refuseProtocol(): void {
    this.headerBytes = null;
    this.state = "closed";
    this.socket.end(PROTOCOL_HEADER);
  }

  private onFrame(type: number, channel: number, payload: Buffer): void {
    if (type === FRAME_HEARTBEAT) {
      if (channel !== 0) throw new BrokerError("frameError", `heartbeat frame on channel ${channel}`);
      return;
    }
    if (this.state === "closing") {
      // Only the close handshake matters now (AMQP 0-9-1 §2.2.4: discard everything else).
      if (type === FRAME_METHOD && channel === 0) {
        const m = decodeMethod(payload);
        if (m.id === MethodId.ConnectionCloseOk || m.id === MethodId.ConnectionClose) {
          if (m.id === MethodId.ConnectionClose) encodeConnectionCloseOk(this.out, 0, {});
          this.flush();
          this.destroy();
        }
      }
      return;
    }
    if (type === FRAME_METHOD) {
      const m = decodeMethod(payload);
      if (m.id === MethodId.BasicPublish && this.settings.alarms?.reason != null && !this.alarmBlocked) this.blockForAlarm(this.settings.alarms);
      if (channel === 0) return this.onConnectionMethod(m);
      if (!this.handshake.done) throw new BrokerError("channelError", `${m.name} before connection.open`);
      return this.channelFor(channel, m).handleMethod(m);
    }
    if (type === FRAME_HEADER || type === FRAME_BODY) {
      const ch = this.channels.get(channel);
      if (!ch || channel === 0) throw new BrokerError("unexpectedFrame", `content frame on channel ${channel} without a channel`);
      if (type === FRAME_HEADER) ch.handleHeader(payload);
      else ch.handleBody(payload);
      return;
    }
    throw new BrokerError("frameError", `unknown frame type ${type}`);
  }

  get channelCount(): number {
    return this.channels.size;
  }

  private channelFor(number: number, m: Method): Channel {
    let ch = this.channels.get(number);
    if (m.id === MethodId.ChannelOpen) {
      if (ch) throw new BrokerError("channelError", "second 'channel.open' seen");
      if (number > this.tuning.channelMax) {
        throw new BrokerError("notAllowed", `number of channels opened (${this.channels.size}) has reached the negotiated channel_max (${this.tuning.channelMax})`);
      }
      this.broker.admitChannel(this.permissions!.user.name);
      ch = new Channel(this, number);
      this.channels.set(number, ch);
      this.broker.stats.channelCreated++;
      return ch;
    }
    if (!ch) throw new BrokerError("channelError", "expected 'channel.open'");
    return ch;
  }

  private onConnectionMethod(m: Method): void {
    if (!this.handshake.done) {
      this.handshake.handle(m);
      return;
    }
    switch (m.id) {
      case MethodId.ConnectionClose:
        // Client-initiated close: reply close-ok, then the client closes the socket.
        encodeConnectionCloseOk(this.out, 0, {});
        this.flush();
        this.teardown();
        this.state = "closed";
        this.socket.end();
        return;
      case MethodId.ConnectionCloseOk:
        return this.destroy();
      case MethodId.ConnectionUpdateSecret:
        return this.updateSecret(m.args.newSecret.toString("utf8"));
      default:
        throw new BrokerError("commandInvalid", `unexpected method ${m.name} on channel 0`);
    }
  }

  // ------------------------------------------------------------ handshake host

  private handshakeHost() {
    return {
      serverTuning: this.tuning,
      serverProperties: serverProperties(clusterNameOf(this.broker.globalParameters, this.settings.clusterName)),
      sendStart: (mechanisms: string) => {
        encodeConnectionStart(this.out, 0, {
          versionMajor: 0,
          versionMinor: 9,
          serverProperties: serverProperties(clusterNameOf(this.broker.globalParameters, this.settings.clusterName)),
          mechanisms: Buffer.from(mechanisms),
          locales: Buffer.from("en_US"),
        });
      },
      sendTune: (t: Tuning) => {
        this.state = "tuning";
        encodeConnectionTune(this.out, 0, t);
      },
      sendOpenOk: () => {
        encodeConnectionOpenOk(this.out, 0, { knownHosts: "" });
        this.opened();
      },
      closed: false as boolean,
      flush: () => this.flush(),
      fail: (err: unknown) => {
        this.connectionError(err, 0, 0);
      },
      authenticate: (mechanism: string, username: string, password: string): string | Promise<string> => {
        const attempt = { mechanism, username, password, peerHost: this.peerHost, peerIsLoopback: this.isLoopback };
        const stats = this.broker.stats;
        stats.authAttempts++;
        const failed = (err: unknown): never => {
          stats.authFailed++;
          throw err;
        };
        const succeeded = (l: LoggedIn): string => {
          stats.authSucceeded++;
          return this.loggedIn(l);
        };
        let result: LoggedIn | Promise<LoggedIn>;
        try {
          result = logIn(this.broker, this.loginSettings, this.log, attempt);
        } catch (err) {
          return failed(err);
        }
        return result instanceof Promise ? result.then(succeeded, failed) : succeeded(result);
      },
      openVhost: (vhost: string) => {
        this.state = "opening";
        this.vhostRef = this.broker.admitConnection(this.permissions!, vhost, this.nodeConnectionLimit());
        this.vhost = vhost;
      },
      tuned: (t: Tuning, clientProperties: FieldTable, mechanism: string) => {
        this.tuning = t;
        this.clientProperties = clientProperties;
        this.authMechanism = mechanism;
        this.reader.setMaxFrameSize(t.frameMax);
        this.startHeartbeats();
      },
    };
  }

  private opened(): void {
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = null;
    this.state = "running";
    this.broker.connections.add(this);
    this.broker.stats.connectionCreated++;
    this.log.debug("connection opened", { user: this.user, vhost: this.vhost });
  }

  // ------------------------------------------------------------ login, tokens, limits, alarms

  private get loginSettings(): LoginSettings {
    return { tokens: this.settings.tokens ?? null, throttle: this.settings.loginThrottle ?? null, loopbackUsers: this.settings.loopbackUsers };
  }

  private loggedIn(l: LoggedIn): string {
    this.login = l;
    this.user = l.user;
    this.permissions = l.permissions;
    this.tokenExpiry.arm(l.expiresAt);
    return l.user;
  }

  /** connection.update-secret: answered once the new token is verified (login.ts). */
  private updateSecret(secret: string): void {
    if (this.login === null) throw new BrokerError("notAllowed", `Secret update was refused for user '${this.user}'`);
    refreshSecret(this.settings.tokens ?? null, this.login, secret, this.log).then(
      (expiresAt) => {
        if (this.isClosed || this.state === "closing") return;
        this.tokenExpiry.arm(expiresAt);
        encodeConnectionUpdateSecretOk(this.out, 0, {});
        this.flush();
      },
      (err: unknown) => this.connectionError(err, 0, 0),
    );
  }

  /**
   * RabbitMQ blocks a connection when it publishes while an alarm is on: connection.blocked is
   * sent and the socket is no longer read (TCP back-pressure reaches the publisher) until clear.
   */
  private blockForAlarm(alarms: ResourceAlarms): void {
    this.alarmBlocked = true;
    this.state = "blocked";
    if (this.understandsBlocked) {
      encodeConnectionBlocked(this.out, 0, { reason: alarms.reason ?? "" });
      this.maybeFlush();
    }
    alarms.hold(this);
    // The frames already read are still handled; pausing stops the next reads.
    (this.socket as Partial<Socket>).pause?.();
  }

  /** Only clients that announced the capability get connection.blocked/unblocked (RabbitMQ too). */
  private get understandsBlocked(): boolean {
    const caps = this.clientProperties["capabilities"];
    return typeof caps === "object" && caps !== null && (caps as Record<string, unknown>)["connection.blocked"] === true;
  }

  /** Called by ResourceAlarms when every alarm has cleared. */
  unblock(): void {
    if (!this.alarmBlocked) return;
    this.alarmBlocked = false;
    if (this.state === "closed" || this.state === "closing") return;
    this.state = "running";
    if (this.understandsBlocked) encodeConnectionUnblocked(this.out, 0, {});
    this.flush();
    if (!this.flow.paused) (this.socket as Partial<Socket>).resume?.();
  }

  /** FlowHost: any consumer on this connection (such a connection is never paused). */
  get hasConsumers(): boolean {
    for (const ch of this.channels.values()) if (ch.consumers.size > 0) return true;
    return false;
  }

  pauseForFlow(): void {
    (this.socket as Partial<Socket>).pause?.();
  }

  resumeFromFlow(): void {
    if (!this.alarmBlocked && this.state !== "closed") (this.socket as Partial<Socket>).resume?.();
  }

  /** The configured node limit, lowered to the socket limit the descriptor limit allows (ResourceAlarms.socketLimit); 0 = none. */
  private nodeConnectionLimit(): number {
    const configured = this.settings.maxConnections ?? 0;
    const sockets = this.settings.alarms?.socketLimit ?? Infinity;
    if (sockets === Infinity) return configured;
    const bySockets = Math.max(1, sockets);
    return configured > 0 ? Math.min(configured, bySockets) : bySockets;
  }

  // ------------------------------------------------------------ heartbeats

  /**
   * Heartbeats (AMQP 0-9-1 §4.2.7): we send one when we have been silent for half the
   * interval, and close the connection when the peer has been silent for two intervals. The
   * check runs every quarter interval, so a vanished peer (a frozen process, a half-open TCP
   * connection) is closed at most a quarter interval after its two intervals of silence.
   */
  private startHeartbeats(): void {
    const hb = this.tuning.heartbeat;
    if (hb <= 0) return;
    const tickMs = (hb * 1000) / 2;
    this.heartbeatTimer = setInterval(() => {
      const now = Date.now();
      // A connection blocked by an alarm is not read, so its heartbeats cannot count (RabbitMQ too).
      if (this.alarmBlocked || this.flow.paused) this.lastRecv = now;
      if (now - this.lastRecv > hb * 2000) {
        this.log.warn(`missed heartbeats from client, timeout: ${hb}s`);
        this.destroy();
        return;
      }
      if (now - this.lastSend >= tickMs) {
        const pos = this.out.beginFrame(FRAME_HEARTBEAT, 0);
        this.out.endFrame(pos);
        this.flush();
      }
    }, tickMs / 2);
    this.heartbeatTimer.unref();
  }

  // ------------------------------------------------------------ output

  /** Schedules one socket write for everything buffered this turn. */
  maybeFlush(): void {
    if (this.out.length >= OUTPUT_HIGH_WATER) {
      this.flush();
      return;
    }
    if (this.out.length > 0) this.scheduleFlush();
  }

  /** Schedules a flush even with nothing buffered yet: channels add confirms in beforeFlush(). */
  scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  flush(): void {
    for (const ch of this.channels.values()) ch.beforeFlush();
    if (this.out.length === 0 || this.state === "closed") return;
    const bytes = this.out.length;
    const pieces = this.out.takePieces();
    this.stats.sendOct += bytes;
    this.stats.sendCnt++;
    if (this.vhostRef) this.vhostRef.stats.sendOct += bytes;
    this.lastSend = Date.now();
    // Corked, the pieces (encoded frames and large bodies referenced in place) leave in one writev.
    let ok = true;
    if (pieces.length === 1) ok = this.socket.write(pieces[0]!);
    else {
      this.socket.cork();
      for (const p of pieces) ok = this.socket.write(p);
      this.socket.uncork();
    }
    if (!ok) this.writeBlocked = true;
  }

  /** True when consumers on this connection may take more deliveries. */
  get canDeliver(): boolean {
    return !this.writeBlocked && this.state === "running";
  }

  private onDrain(): void {
    this.writeBlocked = false;
    for (const ch of this.channels.values()) ch.resumeDeliveries();
    this.maybeFlush();
  }

  // ------------------------------------------------------------ errors and closing

  /** Sends connection.close with the error's code and waits (briefly) for close-ok. */
  connectionError(err: unknown, classId: number, methodId: number): void {
    if (this.state === "closing" || this.state === "closed") return;
    const reply = replyFor(err);
    if (reply.code === 541) this.log.error("internal error", { err });
    else this.log.info("closing connection", { code: reply.code, text: reply.text });
    this.sendConnectionClose(reply.code, reply.text, classId, methodId);
  }

  /** Closes a channel on a soft error, or the whole connection on a hard one. */
  methodError(err: unknown, channel: number, classId: number, methodId: number): void {
    const reply = replyFor(err);
    const ch = this.channels.get(channel);
    if (reply.level === "channel" && ch) {
      ch.closeWithError(reply.code, reply.text, classId, methodId);
      return;
    }
    this.connectionError(err, classId, methodId);
  }

  /** Management API DELETE /api/connections/{name} and vhost/user deletion: 320 CONNECTION_FORCED. */
  forceClose(reason: string): void {
    this.sendConnectionClose(320, `CONNECTION_FORCED - ${reason}`, 0, 0);
  }

  private sendConnectionClose(code: number, text: string, classId: number, methodId: number): void {
    if (this.state === "closing" || this.state === "closed") return;
    if (this.handshake.done) this.teardown();
    this.state = "closing";
    encodeConnectionClose(this.out, 0, { replyCode: code, replyText: text, classId, methodId });
    this.flush();
    // A peer that never answers close-ok must not hold the socket forever.
    this.closeTimer = setTimeout(() => this.destroy(), 3000);
    this.closeTimer.unref();
    if (!this.handshake.done) {
      // RabbitMQ closes the socket right after refusing a handshake.
      this.socket.end();
    }
  }

  /** Releases channels (unacked messages are requeued), exclusive queues, and the registry entry. */
  private teardown(): void {
    this.flow.stop();
    for (const ch of this.channels.values()) ch.release();
    this.channels.clear();
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    if (this.permissions) this.broker.ownerClosed(this);
    if (this.broker.connections.get(this.name) === this) {
      this.broker.connections.remove(this);
      this.broker.stats.connectionClosed++;
    }
  }

  destroy(): void {
    if (this.state === "closed") return;
    if (this.state !== "closing") this.teardown();
    this.state = "closed";
    this.socket.destroy();
  }

  private onSocketClosed(): void {
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.tokenExpiry.clear();
    this.handshakeHostState.closed = true;
    this.settings.alarms?.release(this);
    if (this.closeTimer) clearTimeout(this.closeTimer);
    if (this.state !== "closed" && this.state !== "closing") this.teardown();
    if (this.state === "closing" && this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.state = "closed";
  }
}

function normaliseHost(addr: string): string {
  return addr.startsWith("::ffff:") ? addr.slice(7) : addr;
}

/** 127.0.0.0/8, ::1 and IPv4-mapped loopback, as RabbitMQ's rabbit_net:is_loopback. */
export function isLoopbackAddress(addr: string): boolean {
  const a = normaliseHost(addr);
  return a === "::1" || a.startsWith("127.") || a === "in-memory";
}
