/**
 * What a stream-protocol connection is to the rest of the node once accepted: its state, its
 * record in the broker's connection registry (protocol "stream", as RabbitMQ lists it), its output
 * (frames out, with the heartbeat told of them), publisher flow control by unconfirmed publishes
 * (RabbitMQ's stream.initial_credits), the ConsumerUpdate round trips, and its end (closed by the
 * broker, by the listener, or after the reading side's close). The reading side — frames, the
 * handshake, protocol errors — is StreamConnection's (stream-connection.ts).
 *
 * Invariant: once `step` is "closed" nothing is sent and clean-up has run (once per cause).
 */
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { type ClientContext, type ConnectionInfo, type StreamConsumerInfo, type StreamPublisherInfo, type VHost } from "../broker/index.js";
import { connectionName } from "../auth/peer-address.js";
import type { PermissionChecker } from "../auth/permission-check.js";
import { ConsumerUpdateRequests } from "./consumer-update-requests.js";
import { FrameSplitter } from "./frame-splitter.js";
import { CMD, INITIAL_FRAME_MAX } from "./protocol.js";
import { StreamHeartbeat } from "./stream-heartbeat.js";
import { StreamLinks } from "./stream-links.js";
import type { PublisherState, SubscriptionState } from "./stream-context.js";
import type { StreamNode } from "./stream-node.js";
import { connectionInfo, consumerInfo, publisherInfo, type StreamPeer } from "./stream-records.js";
import { FrameCursor, FrameWriter } from "./wire.js";

/** RabbitMQ's stream.initial_credits and stream.credits_required_for_unblocking. */
const PUBLISH_CREDITS = 50_000;
const CREDITS_TO_UNBLOCK = 12_500;

/** "client-closed": the client's Close was answered; the connection ends once the read that held it is handled. */
type Step = "peer-properties" | "sasl" | "tune" | "open" | "opened" | "client-closed" | "closing" | "closed";

export abstract class StreamConnectionState {
  readonly name: string;
  readonly links: StreamLinks = new StreamLinks(this);
  readonly publishers = new Map<number, PublisherState>();
  readonly subscriptions = new Map<number, SubscriptionState>();
  readonly goneTold = new Set<string>();
  deliverVersion = 1;
  frameMax = 0;
  heartbeat = 0;
  protected step: Step = "peer-properties";
  protected readonly splitter = new FrameSplitter(INITIAL_FRAME_MAX);
  protected clientProperties = new Map<string, string>();
  protected userName = "";
  protected checker: PermissionChecker | null = null;
  protected openedVhost: VHost | null = null;
  protected context: ClientContext | null = null;
  private readonly connectedAt = Date.now();
  protected readonly queued: Buffer[] = [];
  protected busy = false;
  private readonly drainWaiters: (() => void)[] = [];
  protected readonly beat = new StreamHeartbeat(
    () => this.send(new FrameWriter(CMD.heartbeat, 1, 8).frame()),
    () => {
      this.node.log.info("stream client missed heartbeats", { connection: this.name });
      this.socket.destroy();
    },
  );
  protected handshakeTimer: NodeJS.Timeout | null;
  protected readonly traffic = { recvOct: 0, recvCnt: 0, sendOct: 0, sendCnt: 0 };
  private unconfirmed = 0;
  private readonly updates = new ConsumerUpdateRequests();
  private readingPaused = false;

  /** The reading side (StreamConnection): handles what the socket brings. */
  protected abstract received(data: Buffer): void;

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

  protected end(): void {
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
