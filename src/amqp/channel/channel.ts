/**
 * One AMQP channel: its life (open, then closing until close-ok), the frames it receives, and
 * the state its concepts share (ChannelState). The concepts live beside it: content assembly
 * (content-assembly.ts), publishing, routing and confirms (publishing.ts), deliveries to
 * consumers (channel-consumer.ts, delivery-frames.ts), acks and requeues (settlement.ts), and
 * one handler file per AMQP class (methods/*), found through METHOD_HANDLERS by method id.
 * Everything it needs of its connection comes through ChannelHost.
 *
 * Invariants: see channel-state.ts; besides, a closing channel ignores every frame except
 * channel.close/close-ok (AMQP 0-9-1 §2.2.4 / §4.2.4 of the spec), and a publish's content
 * frames may not be interleaved with methods.
 */
import { type ChannelInfo, type ClientContext, clientContext, type Exchange, type Queue, type VHost } from "../../broker/index.js";
import { BrokerError } from "../../errors/broker-error.js";
import { encodeChannelClose, encodeChannelCloseOk, MethodId, type Method } from "../codec/generated.js";
import { AckTimeoutWatch } from "./ack-timeout.js";
import type { ChannelConsumer } from "./channel-consumer.js";
import { UnackedDeliveries } from "./unacked-deliveries.js";
import type { ChannelHost, ChannelOutput } from "./channel-host.js";
import { channelInfo } from "./channel-info.js";
import type { ChannelState, TxState } from "./channel-state.js";
import { ChannelStats } from "./channel-stats.js";
import type { ConfirmTracker } from "./confirm-tracker.js";
import { PendingPublish } from "./content-assembly.js";
import { BASIC_CLASS } from "./delivery-frames.js";
import type { DirectReplyConsumer } from "./direct-reply-to.js";
import { METHOD_HANDLERS } from "./method-table.js";
import { completePublish, storeSynced, writeConfirms } from "./publishing.js";
import { requeueAllUnacked } from "./settlement.js";

/** A body frame with no content header before it (both body paths raise it). */
const bodyWithoutHeader = (): BrokerError => new BrokerError("unexpectedFrame", "expected content header, got content body instead");

/** A zero-length body is never written to, so one serves every empty publish. */
const EMPTY_BODY = Buffer.alloc(0);

export class Channel implements ChannelState {
  state: "open" | "closing" = "open";
  readonly ctx: ClientContext;
  readonly vhost: VHost;
  nextDeliveryTag = 1;
  readonly unacked = new UnackedDeliveries();
  readonly consumers = new Map<string, ChannelConsumer>();
  prefetchCount = 0;
  consumerPrefetch = 0;
  confirm: ConfirmTracker | null = null;
  tx: TxState | null = null;
  lastQueue = "";
  cancelsAfterAnswer: string[] | null = null;
  replyConsumer: DirectReplyConsumer | null = null;
  readonly stats: ChannelStats;
  readonly createdAt = Date.now();
  readonly routed: Queue[] = [];
  readonly output: ChannelOutput;
  /** consumer_timeout: closes the channel when a delivery stays unacked too long (ack-timeout.ts). */
  readonly ackWatch: AckTimeoutWatch;

  /** The publish whose content frames are awaited; null between publishes. */
  private content: PendingPublish | null = null;
  /** The one PendingPublish this channel reuses for every publish (content-assembly.ts). */
  private readonly assembly: PendingPublish;

  constructor(readonly host: ChannelHost, readonly number: number) {
    this.output = host.output;
    this.assembly = new PendingPublish(host.slabs);
    this.ctx = clientContext(host.permissions!, host, "amqp", `${host.peerHost}:${host.peerPort}`);
    this.vhost = host.vhostRef!;
    this.stats = new ChannelStats(host.broker.stats, this.vhost.stats);
    this.ackWatch = new AckTimeoutWatch(this, host.settings.consumerTimeout ?? 0);
  }

  info(): ChannelInfo {
    return channelInfo(this);
  }

  // ------------------------------------------------------------ input

  handleMethod(m: Method): void {
    if (this.state === "closing") {
      if (m.id === MethodId.ChannelCloseOk) this.host.channelClosed(this.number);
      else if (m.id === MethodId.ChannelClose) {
        encodeChannelCloseOk(this.output.out, this.number, {});
        this.host.channelClosed(this.number);
      }
      return;
    }
    if (this.content) {
      throw new BrokerError("unexpectedFrame", `expected content header for class ${BASIC_CLASS}, got non content header frame instead`);
    }
    const handler = METHOD_HANDLERS.get(m.id);
    try {
      if (!handler) throw new BrokerError("commandInvalid", `unexpected method ${m.name} from client`);
      handler(this, m);
    } catch (err) {
      this.host.methodError(err, this.number, m.id >>> 16, m.id & 0xffff);
    }
  }

  startPublish(exchange: Exchange, routingKey: string, mandatory: boolean): void {
    this.content = this.assembly.start(exchange, routingKey, mandatory);
  }

  /** A content header frame: bytes [start, end) of `buf`. */
  handleHeader(buf: Buffer, start: number, end: number): void {
    if (this.state === "closing") return;
    const c = this.content;
    if (!c || c.properties) throw new BrokerError("unexpectedFrame", "expected method frame, got non method frame instead");
    c.readHeader(buf, start, end);
    const max = this.host.settings.maxMessageSize;
    if (c.bodySize > max) {
      this.content = null;
      const err = new BrokerError("preconditionFailed", `message size ${c.bodySize} is larger than configured max size ${max}`);
      this.host.methodError(err, this.number, BASIC_CLASS, 40);
      return;
    }
    if (c.bodySize === 0) {
      this.content = null;
      completePublish(this, c, EMPTY_BODY);
    }
  }

  /** A body frame whose payload is bytes [start, end) of `buf`. */
  handleBody(buf: Buffer, start: number, end: number): void {
    if (this.state === "closing") return;
    const c = this.content;
    if (!c || !c.properties) throw bodyWithoutHeader();
    const body = c.addBodyAt(buf, start, end);
    if (body !== null) {
      this.content = null;
      completePublish(this, c, body);
    }
  }

  /** A body frame that spanned socket reads, as the pieces each read held (not joined: see FrameReader). */
  handleBodyPieces(pieces: readonly Buffer[]): void {
    if (this.state === "closing") return;
    const c = this.content;
    if (!c || !c.properties) throw bodyWithoutHeader();
    const last = pieces.length - 1;
    for (let i = 0; i <= last; i++) {
      const body = c.addBody(pieces[i]!);
      if (body === null) continue;
      // The body is complete: the rest of this frame would be more than the header declared.
      if (i < last) throw new BrokerError("frameError", `content body exceeds the declared size ${c.bodySize}`);
      this.content = null;
      completePublish(this, c, body);
    }
  }

  // ------------------------------------------------------------ output

  /** The message store synced what this channel waits for (SyncWaiter). */
  synced(token: number, ok: boolean): void {
    storeSynced(this, token, ok);
  }

  /** Called by the connection right before it writes its buffer: coalesced confirms go out now. */
  beforeFlush(): void {
    writeConfirms(this);
  }

  /** After acks freed capacity or the socket drained (no `queues`): consumers take messages again. */
  resumeDeliveries(queues?: ReadonlySet<Queue>): void {
    if (this.prefetchCount > 0 || !queues) {
      for (const c of this.consumers.values()) c.queue.dispatch();
    } else {
      for (const q of queues) q.dispatch();
    }
  }

  // ------------------------------------------------------------ closing

  hasAckConsumers(): boolean {
    for (const c of this.consumers.values()) if (!c.noAck) return true;
    return false;
  }

  /** RabbitMQ's consumer_timeout: the channel closes with PRECONDITION_FAILED and its unacked messages are requeued. */
  ackTimedOut(timeoutMs: number): void {
    const text = `delivery acknowledgement on channel ${this.number} timed out. Timeout value used: ${timeoutMs} ms. This timeout value can be configured, see consumers doc guide to learn more`;
    this.host.methodError(new BrokerError("preconditionFailed", text), this.number, 0, 0);
  }

  /** Soft error: send channel.close and ignore everything until close-ok. */
  closeWithError(code: number, text: string, classId: number, methodId: number): void {
    if (this.state === "closing") return;
    this.release();
    this.state = "closing";
    encodeChannelClose(this.output.out, this.number, { replyCode: code, replyText: text, classId, methodId });
    this.output.maybeFlush();
  }

  closeByClient(): void {
    this.release();
    this.host.channelClosed(this.number);
    encodeChannelCloseOk(this.output.out, this.number, {});
    this.output.maybeFlush();
  }

  /**
   * Gives back what the channel holds: consumers leave their queues first (so requeued messages
   * cannot come straight back here), then unacked messages return to their queues in order.
   */
  release(): void {
    if (this.state === "closing") return;
    this.state = "closing";
    this.ackWatch.stop();
    this.content = null;
    this.tx = null;
    for (const c of this.consumers.values()) c.queue.removeConsumer(c);
    this.consumers.clear();
    if (this.replyConsumer) this.host.broker.directReply.unregister(this.replyConsumer.key);
    this.replyConsumer = null;
    requeueAllUnacked(this);
    this.host.broker.channelClosed(this);
  }
}
