/**
 * One stream-protocol connection: reads frames (frame-splitter.ts), walks the handshake
 * (stream-handshake.ts), then hands each command to its handler (stream-commands.ts). It shows
 * itself in the broker's connection registry (protocol "stream", as RabbitMQ lists it), keeps the
 * heartbeat, and closes as RabbitMQ does: an oversized or unparseable frame after login gets a
 * Close with FRAME_TOO_LARGE / UNKNOWN_FRAME, before login the socket is just closed.
 *
 * Invariants: commands are handled one at a time in arrival order (a login that waits for a
 * token verification holds the reading); nothing a malformed frame asked for is done.
 */
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { clientContext, type ClientConnection, type ClientContext, type ConnectionInfo, type StreamConsumerInfo, type StreamPublisherInfo, type VHost } from "../broker/index.js";
import { connectionName } from "../auth/peer-address.js";
import type { PermissionChecker } from "../auth/permission-check.js";
import { ConsumerUpdateRequests } from "./consumer-update-requests.js";
import { FrameSplitter } from "./frame-splitter.js";
import { CMD, INITIAL_FRAME_MAX, RC, RESPONSE } from "./protocol.js";
import { handleCommand, type CommandHost } from "./stream-commands.js";
import { StreamHeartbeat } from "./stream-heartbeat.js";
import { StreamLinks } from "./stream-links.js";
import type { PublisherState, SubscriptionState } from "./stream-context.js";
import { authenticate, openVhost, saslMechanisms, serverPeerProperties, type AuthOutcome } from "./stream-handshake.js";
import type { StreamNode } from "./stream-node.js";
import { connectionInfo, consumerInfo, publisherInfo, type StreamPeer } from "./stream-records.js";
import { FrameCursor, FrameWriter, MalformedFrame, response } from "./wire.js";

/** RabbitMQ's stream.initial_credits and stream.credits_required_for_unblocking. */
const PUBLISH_CREDITS = 50_000;
const CREDITS_TO_UNBLOCK = 12_500;

/** "client-closed": the client's Close was answered; the connection ends once the read that held it is handled. */
type Step = "peer-properties" | "sasl" | "tune" | "open" | "opened" | "client-closed" | "closing" | "closed";

export class StreamConnection implements CommandHost, ClientConnection {
  readonly name: string;
  readonly links: StreamLinks = new StreamLinks(this);
  readonly publishers = new Map<number, PublisherState>();
  readonly subscriptions = new Map<number, SubscriptionState>();
  deliverVersion = 1;
  frameMax = 0;
  heartbeat = 0;
  private step: Step = "peer-properties";
  private readonly splitter = new FrameSplitter(INITIAL_FRAME_MAX);
  private clientProperties = new Map<string, string>();
  private userName = "";
  private checker: PermissionChecker | null = null;
  private openedVhost: VHost | null = null;
  private context: ClientContext | null = null;
  private readonly connectedAt = Date.now();
  private readonly queued: Buffer[] = [];
  private busy = false;
  private readonly drainWaiters: (() => void)[] = [];
  private readonly beat = new StreamHeartbeat(
    () => this.send(new FrameWriter(CMD.heartbeat, 1, 8).frame()),
    () => {
      this.node.log.info("stream client missed heartbeats", { connection: this.name });
      this.socket.destroy();
    },
  );
  private handshakeTimer: NodeJS.Timeout | null;
  private readonly traffic = { recvOct: 0, recvCnt: 0, sendOct: 0, sendCnt: 0 };
  private unconfirmed = 0;
  private readonly updates = new ConsumerUpdateRequests();
  private readingPaused = false;

  constructor(
    readonly node: StreamNode,
    private readonly socket: Socket,
    readonly peer: StreamPeer,
  ) {
    this.name = connectionName(peer);
    socket.on("data", (d: Buffer) => this.received(d));
    socket.on("drain", () => {
      for (const fn of this.drainWaiters.splice(0)) fn();
    });
    socket.on("error", () => undefined);
    socket.on("close", () => this.cleanUp());
    this.handshakeTimer = setTimeout(() => this.socket.destroy(), node.settings.handshakeTimeout * 1000);
  }

  get vhost(): string {
    return this.openedVhost?.name ?? "";
  }

  /** The vhost; handlers run only once it is open. */
  get openVhost(): VHost {
    return this.openedVhost!;
  }

  get user(): string {
    return this.userName;
  }

  get channelCount(): number {
    return 0;
  }

  get closed(): boolean {
    return this.step === "closed";
  }

  get permissions(): PermissionChecker {
    return this.checker!;
  }

  get ctx(): ClientContext {
    return this.context!;
  }

  /** Host and port told to clients (Open, Metadata): stream.advertised_host/port, else this listener's (under --workers, the worker's own: stream-worker-ports.ts). */
  advertised(): { host: string; port: number; tls: boolean } {
    const s = this.node.settings;
    const own = this.peer.tls ? null : (this.node.workers?.own ?? null);
    return { host: s.advertisedHost ?? this.peer.advertisedHost, port: s.advertisedPort ?? own ?? this.peer.port, tls: this.peer.tls };
  }

  streamDetails(): { publishers: StreamPublisherInfo[]; consumers: StreamConsumerInfo[] } {
    return { publishers: [...this.publishers.values()].map(publisherInfo), consumers: [...this.subscriptions.values()].map(consumerInfo) };
  }

  send(frame: Buffer | readonly Buffer[], written?: () => void): boolean {
    if (this.step === "closed") return false;
    this.beat.sentSomething();
    this.traffic.sendCnt++;
    if (Buffer.isBuffer(frame)) {
      this.traffic.sendOct += frame.length;
      return this.socket.write(frame, written);
    }
    this.socket.cork();
    let ok = true;
    const last = frame.length - 1;
    for (let i = 0; i <= last; i++) {
      const b = frame[i]!;
      this.traffic.sendOct += b.length;
      ok = i === last && written ? this.socket.write(b, written) : this.socket.write(b);
    }
    this.socket.uncork();
    return ok && !this.socket.writableNeedDrain;
  }

  unconfirmedChanged(delta: number): void {
    this.unconfirmed += delta;
    if (!this.readingPaused && this.unconfirmed >= PUBLISH_CREDITS) {
      this.readingPaused = true;
      this.socket.pause();
    } else if (this.readingPaused && this.unconfirmed <= PUBLISH_CREDITS - CREDITS_TO_UNBLOCK) {
      this.readingPaused = false;
      if (this.step !== "closed") this.socket.resume();
    }
  }

  consumerUpdate(subscriptionId: number, active: boolean, answered: (body: FrameCursor | null) => void): void {
    if (this.step !== "opened") return answered(null);
    this.updates.ask((f) => this.send(f), subscriptionId, active, answered);
  }

  /** A ConsumerUpdate response (or its absence: null). */
  consumerUpdateAnswered(corr: number, body: FrameCursor | null): void {
    this.updates.answered(corr, body);
  }

  whenWritable(fn: () => void): void {
    this.drainWaiters.push(fn);
  }

  /** The broker ends it (API, vhost/user deleted): the socket closes with no Close frame, as RabbitMQ's reader on `{shutdown, _}` (clients throw on a server's Close). */
  forceClose(reason: string): void {
    if (this.step === "closed") return;
    this.node.log.info("stream connection closed by the broker", { connection: this.name, reason });
    this.step = "closed";
    this.socket.end(() => this.socket.destroy());
    this.cleanUp();
  }

  /** The listener stops: the socket goes without ceremony. */
  shutdown(): void {
    this.socket.destroy();
  }

  info(): ConnectionInfo {
    return connectionInfo(this.name, this.peer, this.socket as TLSSocket, {
      user: this.userName,
      vhost: this.openedVhost?.name ?? "",
      state: this.step === "closing" ? "closing" : "running",
      connectedAt: this.connectedAt,
      frameMax: this.frameMax,
      heartbeat: this.heartbeat,
      clientProperties: this.clientProperties,
      ...this.traffic,
    });
  }

  private received(data: Buffer): void {
    this.beat.receivedSomething();
    this.traffic.recvOct += data.length;
    if (this.step === "closed") return;
    if (this.busy) {
      this.queued.push(data);
      return;
    }
    this.readFrames(data);
  }

  /** Handles the frames `data` completes; false when an oversized frame stops the reading. */
  private readFrames(data: Buffer): boolean {
    const r = this.splitter.push(data, (f) => this.frame(f));
    if (this.step === "client-closed") this.end();
    else if (r !== null) this.frameTooLarge(r.tooLarge);
    return r === null;
  }

  /** Handles one frame; false stops the reading (a login waits, or the connection closes). */
  private frame(f: Buffer): boolean {
    this.traffic.recvCnt++;
    if (this.step === "closed") return false;
    if (f.length < 4) return this.unknownFrame("a frame shorter than its key and version");
    const key = f.readUInt16BE(0);
    const version = f.readUInt16BE(2);
    const body = new FrameCursor(f.subarray(4));
    try {
      if (this.step === "closing") {
        if (key === (CMD.close | RESPONSE)) {
          this.end();
          return false;
        }
        return true;
      }
      if (this.step === "client-closed" || (this.step === "opened" && key === CMD.close)) {
        // RabbitMQ 3.10's reader handles every frame of the read that held the client's Close, so
        // a Close sent twice is answered twice (rabbitmq-stream-js-client waits for each); other
        // frames after it are not acted on (as RabbitMQ's newer readers drop them all).
        if (key === CMD.close) this.send(response(CMD.close, body.u32(), RC.ok).frame());
        this.step = "client-closed";
        return true;
      }
      if (key === CMD.heartbeat) return true;
      if (this.step !== "opened") return this.handshake(key, body);
      if (key === (CMD.close | RESPONSE)) {
        this.end();
        return false;
      }
      if (!handleCommand(this, key, version, body)) return this.unknownFrame(`unknown command 0x${key.toString(16)}`);
      return true;
    } catch (err) {
      if (err instanceof MalformedFrame) return this.unknownFrame(err.message);
      // A fault of ours: this connection closes, the node and its other clients go on.
      this.node.log.error("stream command failed", { connection: this.name, key, err });
      this.node.countError(RC.internalError);
      if (this.step === "opened") this.sendClose(RC.internalError, "internal error");
      else this.end();
      return false;
    }
  }

  private handshake(key: number, body: FrameCursor): boolean {
    const s = this.node.settings;
    if (key === CMD.peerProperties && this.step === "peer-properties") {
      const corr = body.u32();
      this.clientProperties = body.map();
      this.send(response(CMD.peerProperties, corr, RC.ok, 256).map(serverPeerProperties(s.clusterName)).frame());
      this.step = "sasl";
      return true;
    }
    if (key === CMD.saslHandshake && this.step === "sasl") {
      const corr = body.u32();
      const mechanisms = saslMechanisms(this.peer.certName);
      this.send(mechanisms.reduce((w, m) => w.str(m), response(CMD.saslHandshake, corr, RC.ok).i32(mechanisms.length)).frame());
      return true;
    }
    if (key === CMD.saslAuthenticate && this.step === "sasl") {
      const corr = body.u32();
      const mechanism = body.str();
      const data = body.bytes();
      const outcome = authenticate(this.node, mechanism, data, this.peer);
      if (!(outcome instanceof Promise)) return this.authenticated(corr, outcome);
      this.busy = true;
      void outcome.then((o) => {
        this.busy = false;
        if (this.authenticated(corr, o)) this.resume();
      });
      return false;
    }
    if (key === CMD.tune && this.step === "tune") {
      const frameMax = body.u32();
      const heartbeat = body.u32();
      this.frameMax = s.frameMax === 0 ? frameMax : frameMax === 0 ? s.frameMax : Math.min(frameMax, s.frameMax);
      this.heartbeat = s.heartbeat === 0 ? heartbeat : heartbeat === 0 ? s.heartbeat : Math.min(heartbeat, s.heartbeat);
      this.step = "open";
      return true;
    }
    if (key === CMD.open && this.step === "open") {
      const corr = body.u32();
      const vhost = body.str() ?? "";
      const opened = openVhost(this.node, this.checker!, vhost);
      if ("code" in opened) {
        this.node.log.info("stream connection refused", { connection: this.name, reason: opened.why });
        this.send(response(CMD.open, corr, opened.code).map([]).frame());
        this.node.countError(opened.code);
        this.end();
        return false;
      }
      this.openedVhost = opened.vhost;
      this.context = clientContext(this.checker!, this, "stream", this.peer.peerHost);
      const { host, port } = this.advertised();
      this.send(response(CMD.open, corr, RC.ok, 128).map([["advertised_host", host], ["advertised_port", String(port)]]).frame());
      this.step = "opened";
      this.splitter.maxFrame = this.frameMax;
      if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
      this.handshakeTimer = null;
      this.beat.start(this.heartbeat);
      this.node.connections.add(this);
      this.node.broker.connections.add(this);
      return true;
    }
    // Anything else before the connection is open: RabbitMQ closes without a word.
    this.end();
    return false;
  }

  private authenticated(corr: number, o: AuthOutcome): boolean {
    if (!o.ok) {
      this.node.log.info("stream login refused", { connection: this.name, reason: o.why });
      this.send(response(CMD.saslAuthenticate, corr, o.code).frame());
      this.node.countError(o.code);
      this.end();
      return false;
    }
    this.userName = o.user;
    this.checker = o.permissions;
    this.send(response(CMD.saslAuthenticate, corr, RC.ok).frame());
    const s = this.node.settings;
    this.send(new FrameWriter(CMD.tune).u32(s.frameMax).u32(s.heartbeat).frame());
    this.step = "tune";
    return true;
  }

  private resume(): void {
    const data = this.queued.splice(0);
    for (const d of data) {
      if (this.busy || this.step === "closed") {
        this.queued.push(d);
        continue;
      }
      if (!this.readFrames(d)) return;
    }
    if (data.length === 0) this.readFrames(Buffer.alloc(0));
  }

  private frameTooLarge(size: number): void {
    // The rest of that frame keeps arriving while the Close is on its way: reported once.
    if (this.step === "closing" || this.step === "closed") return;
    this.node.countError(RC.frameTooLarge);
    this.node.log.warn("stream frame too large", { connection: this.name, size, max: this.splitter.maxFrame });
    if (this.step !== "opened") return this.end();
    this.sendClose(RC.frameTooLarge, "frame too large");
  }

  private unknownFrame(why: string): boolean {
    this.node.countError(RC.unknownFrame);
    this.node.log.warn("stream frame not understood", { connection: this.name, why });
    if (this.step !== "opened") this.end();
    else this.sendClose(RC.unknownFrame, "unknown frame");
    return false;
  }

  /** The server closes: Close, then the socket once the client answers (or after a grace period). */
  private sendClose(code: number, reason: string): void {
    if (this.step === "closing" || this.step === "closed") return;
    this.send(new FrameWriter(CMD.close, 1, 64).u32(1).u16(code).str(reason).frame());
    this.step = "closing";
    setTimeout(() => this.end(), 1000).unref();
  }

  private end(): void {
    if (this.step === "closed") return;
    this.step = "closed";
    this.socket.end();
    this.cleanUp();
  }

  private cleanUp(): void {
    this.step = "closed";
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.beat.stop();
    this.handshakeTimer = null;
    for (const s of [...this.subscriptions.values()]) s.stop();
    this.subscriptions.clear();
    for (const p of this.publishers.values()) p.stop();
    this.node.counters.publishers -= this.publishers.size;
    this.publishers.clear();
    this.drainWaiters.length = 0;
    this.updates.dropAll();
    if (this.openedVhost) {
      this.node.connections.delete(this);
      this.node.broker.connections.remove(this);
    }
  }
}
