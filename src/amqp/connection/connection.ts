/**
 * One AMQP 0-9-1 connection over any Duplex stream (a TCP or TLS socket, or an in-memory pair
 * in tests). It owns the socket, reads frames and is each channel's ChannelHost; everything
 * about messages happens in the channels and the broker. Its concepts live beside it, each
 * behind a small host interface this class implements: where frames go (frame-dispatch.ts),
 * the output (frame-output.ts), the channels (channel-table.ts), the handshake (handshake.ts,
 * connection-opening.ts, login-session.ts), heartbeats (heartbeats.ts), alarms and flow control
 * (alarm-block.ts, src/broker/queue/publish-flow.ts), closing (connection-close.ts) and the management view
 * (connection-info.ts).
 *
 * Frame handling is synchronous from 'data' to the last frame of a chunk, and output is one
 * socket write per event-loop turn, so many frames share one syscall.
 * Invariant: after a connection.close has been sent, only connection.close-ok/close are read.
 */
import type { Duplex } from "node:stream";
import type { Socket } from "node:net";
import { type Broker, type ClientConnection, type ConnectionInfo, type FlowHost, PublishFlow, type VHost } from "../../broker/index.js";
import type { FieldTable } from "../../broker/values/field-value.js";
import type { Logger } from "../../logging/logger.js";
import type { SlabPool } from "../../listeners/slab-pool.js";
import type { SlabTails } from "../../listeners/slab-reads.js";
import { FrameReader } from "../codec/frame-reader.js";
import type { ChannelHost } from "../channel/channel-host.js";
import { AlarmBlock, type BlockHost } from "./alarm-block.js";
import type { AmqpSettings } from "./amqp-settings.js";
import { ChannelTable } from "./channel-table.js";
import { ConnectionClose, type CloseHost, type ConnectionState } from "./connection-close.js";
import { connectionInfo, type ConnectionFacts } from "./connection-info.js";
import { ConnectionOpening, type OpeningConnection } from "./connection-opening.js";
import { dispatchFrame, type DispatchTarget } from "./frame-dispatch.js";
import { FrameOutput, type OutputHost } from "./frame-output.js";
import { Handshake, PROTOCOL_HEADER, type Tuning } from "./handshake.js";
import { Heartbeats, type HeartbeatHost } from "./heartbeats.js";
import { LoginSession, type LoginHost } from "./login-session.js";
import { AcceptedConnection } from "../../auth/accepted-connection.js";

let nextConnectionId = 1;

export class AmqpConnection extends AcceptedConnection implements ClientConnection, ChannelHost, DispatchTarget, OpeningConnection, ConnectionFacts, OutputHost, LoginHost, HeartbeatHost, BlockHost, FlowHost, CloseHost {
  readonly id = nextConnectionId++;
  vhostRef: VHost | null = null;
  clientProperties: FieldTable = {};
  /** Ours until connection.tune-ok, then the negotiated limits. */
  tuning: Tuning;
  state: ConnectionState = "starting";
  readonly channels = new ChannelTable();
  readonly output: FrameOutput;
  readonly stats = { recvOct: 0, recvCnt: 0 };
  /** Publisher flow control: this connection is not read while a consumed queue it feeds catches up. */
  readonly flow = new PublishFlow(this);
  readonly handshake: Handshake;
  readonly heartbeats: Heartbeats;
  readonly login: LoginSession;
  readonly log: Logger;
  readonly alarmBlock = new AlarmBlock(this);
  readonly closing = new ConnectionClose(this);

  private readonly reader: FrameReader;
  /** A method's round trip the frames after it wait for (holdReadingUntil); null when reading. */
  private held: Promise<unknown> | null = null;
  private readonly opening: ConnectionOpening;

  constructor(
    readonly socket: Duplex,
    readonly broker: Broker,
    readonly settings: AmqpSettings,
    logger: Logger,
    tls = false,
    /** The slabs this connection's socket reads into, when they come back to a pool (slab-pool.ts). */
    private readonly tails: SlabTails | null = null,
  ) {
    super(socket as Partial<Socket>, tls);
    const s = socket as Partial<Socket>;
    this.log = logger.child({ connection: this.name });
    this.tuning = { channelMax: settings.channelMax, frameMax: settings.frameMax, heartbeat: settings.heartbeat };
    this.reader = new FrameReader(settings.frameMax);
    this.output = new FrameOutput(socket, this, settings.frameMax);
    this.heartbeats = new Heartbeats(this, this.output);
    this.opening = new ConnectionOpening(this, this.tuning);
    this.handshake = new Handshake(this.opening, settings.handshakeTimeout);
    this.login = new LoginSession(broker, settings, this);
    s.setNoDelay?.(true);
    socket.on("data", this.dataListener);
    socket.on("drain", this.drainListener);
    socket.on("error", this.errorListener);
    socket.on("close", this.closeListener);
  }

  private readonly dataListener = (chunk: Buffer): void => this.onData(chunk);
  private readonly drainListener = (): void => this.onDrain();
  private readonly errorListener = (err: Error): void => this.log.debug("socket error", { err: err.message });
  private readonly closeListener = (): void => this.onSocketClosed();

  /**
   * The header asked for AMQP 1.0: the socket goes to the AMQP 1.0 connection with what was read
   * (nothing of 0-9-1 happened yet: no login, no registration, no timer but the handshake's).
   */
  private handOver(firstBytes: Buffer): void {
    this.state = "closed";
    const socket = this.socket;
    socket.off("data", this.dataListener);
    socket.off("drain", this.drainListener);
    socket.off("error", this.errorListener);
    socket.off("close", this.closeListener);
    // AMQP 1.0 leases its bodies' slabs as 0-9-1 does (src/amqp1/lent-payloads.ts): the slabs go with the socket.
    this.settings.amqp10Handover!(socket, firstBytes, this.tls, this.tails);
  }

  /** Where lent bodies' slabs come from (content-assembly.ts), or null: bodies are the garbage collector's. */
  get slabs(): SlabPool | null {
    return this.tails === null ? null : this.tails.pool;
  }

  info(): ConnectionInfo {
    return connectionInfo(this);
  }

  /** A method rather than a narrowed field read: frame handlers may close the connection. */
  get isClosed(): boolean {
    return this.state === "closed";
  }

  get isOpen(): boolean {
    return this.state !== "closing" && this.state !== "closed";
  }

  /**
   * True when consumers on this connection may take more deliveries. A connection blocked by a
   * resource alarm still gets them: the alarm stops its publishing only (RabbitMQ's rule).
   */
  get canDeliver(): boolean {
    return !this.output.writeBlocked && (this.state === "running" || this.state === "blocked");
  }

  // ------------------------------------------------------------ input

  private onData(chunk: Buffer): void {
    this.read(chunk);
    // What was read is used up, but for the bytes the frame reader keeps uncopied.
    if (this.tails !== null) this.tails.settle(this.reader);
  }

  private read(chunk: Buffer): void {
    this.heartbeats.lastRecv = Date.now();
    this.stats.recvOct += chunk.length;
    if (this.vhostRef) this.vhostRef.stats.recvOct += chunk.length;
    if (this.state === "closed") return;
    if (this.handshake.awaitingHeader) {
      const rest = this.handshake.readHeader(chunk, this.settings.amqp10Handover != null);
      if (rest === null) return;
      if (typeof rest === "object" && !Buffer.isBuffer(rest)) return this.handOver(Buffer.from(rest.amqp10));
      if (rest === "refused") {
        this.state = "closed";
        this.socket.end(PROTOCOL_HEADER);
        return;
      }
      this.output.flush();
      if (rest.length === 0) return;
      chunk = rest;
    }
    this.reader.push(chunk);
    this.dispatchFrames();
  }

  private dispatchFrames(): void {
    try {
      const r = this.reader;
      while (this.held === null && r.next()) {
        this.stats.recvCnt++;
        dispatchFrame(this, r);
        if (this.isClosed) return;
      }
    } catch (err) {
      this.connectionError(err, 0, 0);
    }
    this.output.maybeFlush();
  }

  /**
   * A method waits for a round trip (a queue led by another node, docs/CLUSTERING.md): the frames
   * after it — on every channel, which keeps each channel's order — are read once it is answered.
   */
  holdReadingUntil(p: Promise<unknown>): void {
    this.held = p;
    (this.socket as Partial<Socket>).pause?.();
    const done = (): void => {
      this.held = null;
      if (this.state === "closed") return;
      this.dispatchFrames();
      if (this.tails !== null) this.tails.settle(this.reader);
      if (this.held === null && !this.readingPaused && this.state !== "blocked") (this.socket as Partial<Socket>).resume?.();
    };
    p.then(done, done);
  }

  /** connection.tune-ok (via ConnectionOpening): frames may be as large as negotiated; heartbeats start. */
  applyTuning(t: Tuning): void {
    this.tuning = t;
    this.reader.setMaxFrameSize(t.frameMax);
    this.output.frameMax = t.frameMax;
    this.heartbeats.start(t.heartbeat);
  }

  // ------------------------------------------------------------ channels

  get channelCount(): number {
    return this.channels.size;
  }

  channelClosed(number: number): void {
    this.channels.delete(number);
  }

  holdsChannel(number: number, channel: object): boolean {
    return this.channels.get(number) === channel;
  }

  beforeFlush(): void {
    this.channels.beforeFlush();
  }

  private onDrain(): void {
    this.output.writeBlocked = false;
    this.channels.resumeDeliveries();
    this.output.maybeFlush();
  }

  // ------------------------------------------------------------ reading paused by alarms and flow control

  get readingPaused(): boolean {
    return this.alarmBlock.active || this.flow.paused || this.held !== null;
  }

  stopReadingForAlarm(): void {
    this.state = "blocked";
    (this.socket as Partial<Socket>).pause?.();
  }

  resumeReadingAfterAlarm(): void {
    this.state = "running";
    if (!this.flow.paused && this.held === null) (this.socket as Partial<Socket>).resume?.();
  }

  /** FlowHost: any consumer on this connection (such a connection is never paused). */
  get hasConsumers(): boolean {
    return this.channels.hasConsumers;
  }

  pauseForFlow(): void {
    (this.socket as Partial<Socket>).pause?.();
  }

  resumeFromFlow(): void {
    if (!this.alarmBlock.active && this.held === null && this.state !== "closed") (this.socket as Partial<Socket>).resume?.();
  }

  peerSilent(heartbeat: number): void {
    this.log.warn(`missed heartbeats from client, timeout: ${heartbeat}s`);
    this.destroy();
  }

  // ------------------------------------------------------------ closing (connection-close.ts)

  /** Sends connection.close with the error's code and waits (briefly) for close-ok. */
  connectionError(err: unknown, classId: number, methodId: number): void {
    this.closing.connectionError(err, classId, methodId);
  }

  methodError(err: unknown, channel: number, classId: number, methodId: number): void {
    this.closing.methodError(err, channel, classId, methodId);
  }

  /** Management API DELETE /api/connections/{name} and vhost/user deletion: 320 CONNECTION_FORCED. */
  forceClose(reason: string): void {
    this.closing.send(320, `CONNECTION_FORCED - ${reason}`, 0, 0);
  }

  /** Releases channels (unacked messages are requeued), exclusive queues, and the registry entry. */
  teardown(): void {
    this.flow.stop();
    this.channels.releaseAll();
    this.heartbeats.stop();
    if (this.permissions) this.broker.ownerClosed(this);
    if (this.broker.connections.get(this.name) === this) {
      this.broker.connections.remove(this);
      this.broker.stats.connectionClosed++;
    }
  }

  destroy(): void {
    this.closing.destroy();
  }

  private onSocketClosed(): void {
    this.handshake.stop();
    this.login.close();
    this.opening.socketClosed = true;
    this.alarmBlock.release();
    this.closing.socketClosed();
  }
}
