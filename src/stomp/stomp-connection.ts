/**
 * One STOMP connection over a byte transport (a TCP or TLS socket, or a WebSocket): frame
 * parsing, the CONNECT handshake (version negotiation, login, heart-beats), dispatch to the
 * session, RECEIPTs and ERRORs, and closing. Registered in the broker's connection registry once
 * connected, so the management API lists and closes it like an AMQP one.
 *
 * Every error is answered with an ERROR frame (RabbitMQ's message and text) and the connection
 * closed, as STOMP 1.2 requires; bad input before CONNECT is held to small limits. With
 * stomp.implicit_connect and a default user, a first frame other than CONNECT logs in as it.
 * An OAuth 2.0 token passcode is verified asynchronously: what arrives meanwhile is held.
 */
import { randomBytes } from "node:crypto";
import { TokenExpiry } from "../auth/oauth/token-expiry.js";
import { connectionName } from "../auth/peer-address.js";
import { type ClientConnection, type ClientContext, clientContext, type ConnectionInfo, type FlowHost, PRODUCT, PublishFlow, VERSION } from "../broker/index.js";
import { stompConnectionRecord, type StompPeer } from "./connection-record.js";
import { errorFrame, frameHead } from "./frame-encoding.js";
import type { FrameOutput } from "./frame-output.js";
import { FrameParser, type FrameSink } from "./frame-parser.js";
import { HeartBeats, type HeartBeatHost } from "./heart-beats.js";
import { ReceiptOrder } from "./receipt-order.js";
import { ALREADY_CONNECTED, badCommand, LOGIN_FIRST, serverCancelled, stompError, VERSION_MISMATCH, type StompError } from "./stomp-errors.js";
import { SUPPORTED_VERSIONS, type StompFrame, type StompVersion } from "./stomp-frame.js";
import { logInStomp, type StompLoginOutcome } from "./stomp-login.js";
import { STOMP_PROTOCOL_LABEL, type StompNode, UNAUTHENTICATED_LIMITS } from "./stomp-node.js";
import { StompFailure, StompSession } from "./stomp-session.js";

/** The byte side of a connection: where frames go, and a tap to stop and restart reading. */
export interface StompTransport {
  readonly output: FrameOutput;
  pause(): void;
  resume(): void;
}

const CLIENT_COMMANDS = new Set(["SEND", "SUBSCRIBE", "UNSUBSCRIBE", "ACK", "NACK", "BEGIN", "COMMIT", "ABORT", "DISCONNECT", "CONNECT", "STOMP"]);

export class StompConnection implements ClientConnection, FrameSink, FlowHost, HeartBeatHost {
  readonly name: string;
  readonly channelCount = 0;
  state: "connecting" | "open" | "closed" = "connecting";
  user = "";
  vhost = "";
  ctx!: ClientContext;
  version: StompVersion = "1.0";
  readonly output: FrameOutput;
  readonly flow = new PublishFlow(this);
  readonly receipts: ReceiptOrder;
  private session: StompSession | null = null;
  private readonly parser: FrameParser;
  private readonly heartBeats = new HeartBeats();
  private readonly tokenExpiry = new TokenExpiry(() => this.fail(stompError("Connection expired", "The OAuth 2.0 token expired\n")));
  private heartbeatSeconds = 0;
  private readSinceCheck = false;
  /** Frames behind a CONNECT whose token login is being verified; null otherwise. */
  private held: StompFrame[] | null = null;
  private readonly sessionId = `session-${randomBytes(16).toString("base64url")}`;
  private readonly connectedAt = Date.now();
  private readonly stats = { recvOct: 0, recvCnt: 0 };
  private readonly connectTimer: NodeJS.Timeout;

  constructor(
    private readonly node: StompNode,
    private readonly transport: StompTransport,
    private readonly peer: StompPeer,
  ) {
    this.name = connectionName(peer);
    this.output = transport.output;
    this.parser = new FrameParser(this, UNAUTHENTICATED_LIMITS);
    this.receipts = new ReceiptOrder(node.broker, (id) => this.sendFrame("RECEIPT", [["receipt-id", id]]));
    this.connectTimer = setTimeout(() => this.close("no CONNECT in time"), node.settings.connectTimeout * 1000);
    this.connectTimer.unref();
  }

  get isReading(): boolean {
    return this.state !== "closed";
  }

  get isOpen(): boolean {
    return this.state === "open";
  }

  get hasConsumers(): boolean {
    return this.session !== null && this.session.subscriptions.size > 0;
  }

  // ------------------------------------------------------------ input

  /** Bytes from the transport. */
  data(chunk: Buffer): void {
    if (this.state === "closed") return;
    this.readSinceCheck = true;
    this.stats.recvOct += chunk.length;
    this.parser.push(chunk);
  }

  heartbeat(): void {}

  malformed(message: string, detail: string): void {
    this.fail(stompError(message, `${detail}\n`));
  }

  frame(f: StompFrame): void {
    if (this.state === "closed") return;
    this.stats.recvCnt++;
    if (this.held !== null) {
      this.held.push(f);
      return;
    }
    try {
      this.dispatch(f);
    } catch (err) {
      if (err instanceof StompFailure) this.fail(err.error, f.headers.get("receipt"));
      else throw err;
    }
  }

  private dispatch(f: StompFrame): void {
    const command = f.command;
    if (!CLIENT_COMMANDS.has(command)) return this.fail(badCommand(command));
    if (this.state === "connecting") {
      if (command === "CONNECT" || command === "STOMP") return this.connect(f);
      const s = this.node.settings;
      if (!s.implicitConnect || s.defaultUser === null) return this.fail(LOGIN_FIRST);
      this.connect(f);
      if (this.isOpen) this.frame(f);
      return;
    }
    if (command === "CONNECT" || command === "STOMP") return this.fail(ALREADY_CONNECTED);
    if (command === "DISCONNECT") {
      const receipt = f.headers.get("receipt");
      if (receipt !== undefined) this.sendFrame("RECEIPT", [["receipt-id", receipt]]);
      return this.close("client DISCONNECT");
    }
    this.session!.handle(f);
    const receipt = f.headers.get("receipt");
    if (receipt !== undefined && (command === "SUBSCRIBE" || command === "UNSUBSCRIBE")) this.receipts.waitForFollowers();
    if (receipt !== undefined && command !== "SEND" && this.state === "open") this.receipts.owe(receipt, false);
  }

  // ------------------------------------------------------------ CONNECT

  private connect(f: StompFrame): void {
    const version = negotiate(f.headers.get("accept-version"));
    if (version === null) return this.fail(VERSION_MISMATCH);
    const beats = HeartBeats.negotiate(f.headers.get("heart-beat"));
    if (beats.sendMs < 0) return this.fail(stompError("Invalid heart-beat header", `Invalid heart-beat header "${f.headers.get("heart-beat")}"\n`));
    this.version = version;
    this.parser.version = version;
    const outcome = logInStomp(this.node, f.headers.get("login"), f.headers.get("passcode"), f.headers.get("host"), this.peer);
    if (!(outcome instanceof Promise)) return this.loggedIn(outcome, beats);
    this.held = [];
    this.transport.pause();
    outcome.then(
      (o) => this.afterAsyncLogin(o, beats),
      (err: unknown) => this.afterAsyncLogin({ ok: false, error: stompError("Bad CONNECT", err instanceof Error ? err.message : String(err)) }, beats),
    );
  }

  private afterAsyncLogin(o: StompLoginOutcome, beats: { sendMs: number; expectMs: number }): void {
    const held = this.held ?? [];
    this.held = null;
    if (this.state === "closed") return;
    this.loggedIn(o, beats);
    for (const f of held) this.frame(f);
    this.resumeFromFlow();
  }

  private loggedIn(o: StompLoginOutcome, beats: { sendMs: number; expectMs: number }): void {
    if (!o.ok) {
      this.node.log.warn("STOMP login refused", { peer: this.name, reason: o.error.detail.trim() });
      return this.fail(o.error);
    }
    const { login } = o;
    clearTimeout(this.connectTimer);
    this.user = login.user;
    this.vhost = login.vhost.name;
    this.ctx = clientContext(login.permissions, this, "stomp", `${this.peer.peerHost}:${this.peer.peerPort}`);
    const counters = this.node.broker.stats.protocol(STOMP_PROTOCOL_LABEL);
    this.session = new StompSession(this.node.broker, this, login.vhost, this.version, this.sessionId, counters);
    this.state = "open";
    this.parser.limits = this.node.settings.limits;
    this.node.broker.connections.add(this);
    this.node.broker.stats.connectionCreated++;
    this.heartbeatSeconds = Math.round(beats.sendMs / 1000);
    const headers: [string, string][] = [
      ["server", `${PRODUCT}/${VERSION}`],
      ["session", this.sessionId],
      ["heart-beat", `${beats.sendMs},${beats.expectMs}`],
      ["version", this.version],
    ];
    this.sendFrame("CONNECTED", headers);
    this.heartBeats.start(this, beats.sendMs, beats.expectMs);
    this.tokenExpiry.arm(login.expiresAt);
  }

  // ------------------------------------------------------------ output

  sendFrame(command: string, headers: readonly (readonly [string, string])[]): void {
    this.output.send(frameHead(command, headers, this.version), null);
  }

  get writable(): boolean {
    return this.output.writable;
  }

  /** The output drained: subscriptions may take messages again. */
  drained(): void {
    this.session?.drained();
  }

  sendHeartbeat(): void {
    this.output.heartbeat();
  }

  takeReadFlag(): boolean {
    const r = this.readSinceCheck;
    this.readSinceCheck = false;
    return r;
  }

  silent(ms: number): void {
    if (this.flow.paused) return;
    this.node.log.info("STOMP client missed its heart-beats", { peer: this.name, silentMs: ms });
    this.close("missed heart-beats");
  }

  pauseForFlow(): void {
    this.transport.pause();
  }

  resumeFromFlow(): void {
    if (this.state !== "closed" && this.held === null && !this.flow.paused) this.transport.resume();
  }

  // ------------------------------------------------------------ closing

  /** An ERROR frame, then the close (STOMP 1.2 §ERROR). */
  fail(e: StompError, receiptId?: string): void {
    if (this.state === "closed") return;
    this.node.log.info("STOMP error", { peer: this.name, message: e.message, detail: e.detail.trim() });
    const { head, body } = errorFrame(e, this.version, receiptId);
    this.output.send(head, body);
    this.close(e.message);
  }

  subscriptionEnded(id: string): void {
    if (this.state !== "open") return;
    this.node.log.info("STOMP subscription cancelled by the server", { peer: this.name, subscription: id });
    const { head, body } = errorFrame(serverCancelled(id), this.version, undefined, [["subscription", id]]);
    this.output.send(head, body);
  }

  forceClose(reason: string): void {
    this.fail(stompError("Connection closed", `${reason}\n`));
  }

  shutdown(): void {
    this.fail(stompError("Broker shutdown", "The broker is shutting down\n"));
  }

  /** The transport ended (the peer closed, or a socket error). */
  closed(): void {
    this.close("socket closed", false);
  }

  private close(why: string, endOutput = true): void {
    if (this.state === "closed") return;
    const wasOpen = this.state === "open";
    this.state = "closed";
    clearTimeout(this.connectTimer);
    this.heartBeats.stop();
    this.tokenExpiry.clear();
    this.flow.stop();
    if (wasOpen) {
      this.session?.release();
      const broker = this.node.broker;
      broker.ownerClosed(this);
      if (broker.connections.get(this.name) === this) {
        broker.connections.remove(this);
        broker.stats.connectionClosed++;
      }
    }
    this.node.log.debug("STOMP connection closed", { peer: this.name, reason: why });
    if (endOutput) {
      this.output.end();
      setTimeout(() => this.output.destroy(), 1000).unref();
    }
  }

  info(): ConnectionInfo {
    const state = this.state !== "open" ? "closing" : this.flow.paused ? "flow" : "running";
    return stompConnectionRecord(this.name, this.peer, { user: this.user, vhost: this.vhost, version: this.version, state, connectedAt: this.connectedAt, heartbeat: this.heartbeatSeconds, sessionId: this.sessionId }, this.stats, this.output);
  }
}

/** The highest version both speak; 1.0 without accept-version; null when none is shared. */
function negotiate(header: string | undefined): StompVersion | null {
  if (header === undefined) return "1.0";
  let best: StompVersion | null = null;
  for (const v of header.split(",")) {
    const t = v.trim() as StompVersion;
    if (SUPPORTED_VERSIONS.includes(t) && (best === null || t > best)) best = t;
  }
  return best;
}
