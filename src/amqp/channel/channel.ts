/**
 * One AMQP channel: its state (open or closing), content assembly for basic.publish, the
 * deliveries it has handed out (unacked, by delivery tag), its consumers, qos, and the confirm
 * or transaction mode. Method handlers live in ./methods/*, one file per AMQP class, and are
 * found through METHOD_HANDLERS by method id.
 *
 * Invariants: delivery tags grow by one per delivery or get-ok; `unacked` iterates in tag order
 * (a Map keeps insertion order), which multiple-acks rely on; a closing channel ignores every
 * frame except channel.close/close-ok (AMQP 0-9-1 §2.2.4 / §4.2.4 of the spec).
 */
import { writeBody } from "../codec/body-frames.js";
import type { Body } from "../../broker/values/message-body.js";
import {
  decodeBasicProperties,
  decodeContentHeader,
  encodeBasicAck,
  encodeBasicCancel,
  encodeBasicDeliver,
  encodeBasicNack,
  encodeBasicProperties,
  encodeBasicReturn,
  encodeChannelClose,
  encodeChannelCloseOk,
  encodeTxCommitOk,
  MethodId,
  writeContentHeader,
  type BasicDeliverArgs,
  type BasicProperties,
  type Method,
} from "../codec/generated.js";
import { BrokerError } from "../../errors/broker-error.js";
import { checkExpiration } from "../../broker/queue/message-expiry.js";
import { PUBLISH_REFUSED, PUBLISH_ROUTED, PUBLISH_UNROUTED } from "../../broker/broker.js";
import type { ClientContext } from "../../broker/client-context.js";
import type { ChannelInfo } from "../../broker/connection-registry.js";
import type { Exchange } from "../../broker/exchange/exchange.js";
import { createMessage, type Message } from "../../broker/message.js";
import type { Queue } from "../../broker/queue/queue.js";
import type { QueueEntry } from "../../broker/queue/queue-entry.js";
import type { SyncWaiter } from "../../broker/queue/queue-journal.js";
import type { AmqpConnection } from "../connection/connection.js";
import type { ChannelConsumer } from "./channel-consumer.js";
import { ConfirmTracker, TX_COMMIT_TOKEN } from "./confirm-tracker.js";
import { METHOD_HANDLERS } from "./method-table.js";
import type { DirectReplyConsumer } from "./direct-reply-to.js";

const BASIC_CLASS = 60;

export interface Unacked {
  readonly queue: Queue;
  readonly entry: QueueEntry;
  readonly consumer: ChannelConsumer | null;
}

interface PendingPublish {
  exchange: Exchange;
  routingKey: string;
  mandatory: boolean;
  properties: BasicProperties | null;
  rawProperties: Buffer | null;
  bodySize: number;
  parts: Buffer[];
  received: number;
}

/** Publishes and acks held back by a transaction until tx.commit (AMQP 0-9-1 tx class). */
interface TxState {
  publishes: Array<{ exchange: Exchange; message: Message; mandatory: boolean }>;
  settlements: Array<() => void>;
}

export class Channel implements SyncWaiter {
  state: "open" | "closing" = "open";
  readonly ctx: ClientContext;
  nextDeliveryTag = 1;
  readonly unacked = new Map<number, Unacked>();
  readonly consumers = new Map<string, ChannelConsumer>();
  /** Channel-wide prefetch (basic.qos global=true); 0 = unlimited. */
  prefetchCount = 0;
  /** Prefetch given to consumers created from now on (basic.qos global=false). */
  consumerPrefetch = 0;
  confirm: ConfirmTracker | null = null;
  tx: TxState | null = null;
  /** The queue most recently declared on this channel: "" in queue names means it (AMQP 0-9-1). */
  lastQueue = "";
  replyConsumer: DirectReplyConsumer | null = null;
  readonly stats = { publish: 0, confirm: 0, deliver: 0, deliverNoAck: 0, get: 0, getNoAck: 0, ack: 0, redeliver: 0, returnUnroutable: 0, dropUnroutable: 0, getEmpty: 0 };
  readonly createdAt = Date.now();

  private content: PendingPublish | null = null;
  /** Scratch array for routing results, reused by every publish. */
  private readonly routed: Queue[] = [];
  /** Scratch args for basic.deliver, reused by every delivery (no allocation per message). */
  private readonly deliverArgs: BasicDeliverArgs = { consumerTag: "", deliveryTag: 0, redelivered: false, exchange: "", routingKey: "" };

  constructor(readonly conn: AmqpConnection, readonly number: number) {
    this.ctx = { permissions: conn.permissions!, owner: conn };
  }

  get vhost() {
    return this.conn.vhostRef!;
  }

  info(): ChannelInfo {
    const conn = this.conn;
    return {
      number: this.number,
      name: `${conn.name} (${this.number})`,
      connectionName: conn.name,
      peerHost: conn.peerHost,
      peerPort: conn.peerPort,
      user: conn.user,
      vhost: conn.vhost,
      state: this.state === "open" ? "running" : "closing",
      consumerCount: this.consumers.size,
      prefetchCount: this.consumerPrefetch,
      globalPrefetchCount: this.prefetchCount,
      messagesUnacknowledged: this.unacked.size,
      messagesUnconfirmed: this.confirm?.unconfirmed ?? 0,
      messagesUncommitted: this.tx?.publishes.length ?? 0,
      acksUncommitted: this.tx?.settlements.length ?? 0,
      confirm: this.confirm !== null,
      transactional: this.tx !== null,
      createdAt: this.createdAt,
      stats: { ...this.stats },
      consumers: [...this.consumers.values()].map((c) => ({
        tag: c.tag,
        queue: c.queue.name,
        vhost: c.queue.vhost,
        ackRequired: !c.noAck,
        exclusive: c.exclusive,
        prefetchCount: c.prefetch,
        priority: c.priority,
        arguments: c.args as ChannelInfo["consumers"][number]["arguments"],
        activity: c.queue.consumerActivity(c),
      })),
    };
  }

  // ------------------------------------------------------------ input

  handleMethod(m: Method): void {
    if (this.state === "closing") {
      if (m.id === MethodId.ChannelCloseOk) this.conn.channels.delete(this.number);
      else if (m.id === MethodId.ChannelClose) {
        encodeChannelCloseOk(this.conn.out, this.number, {});
        this.conn.channels.delete(this.number);
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
      this.conn.methodError(err, this.number, m.id >>> 16, m.id & 0xffff);
    }
  }

  /** basic.publish: content follows in a header frame and zero or more body frames. */
  startPublish(exchange: Exchange, routingKey: string, mandatory: boolean): void {
    this.content = { exchange, routingKey, mandatory, properties: null, rawProperties: null, bodySize: 0, parts: [], received: 0 };
  }

  handleHeader(payload: Buffer): void {
    if (this.state === "closing") return;
    const c = this.content;
    if (!c || c.properties) throw new BrokerError("unexpectedFrame", "expected method frame, got non method frame instead");
    const h = decodeContentHeader(payload);
    if (h.classId !== BASIC_CLASS) throw new BrokerError("frameError", `content header for class ${h.classId} is not basic`);
    c.rawProperties = h.rawProperties;
    c.properties = decodeBasicProperties(h.rawProperties);
    c.bodySize = h.bodySize;
    if (h.bodySize > this.conn.settings.maxMessageSize) {
      this.content = null;
      this.conn.methodError(
        new BrokerError("preconditionFailed", `message size ${h.bodySize} is larger than configured max size ${this.conn.settings.maxMessageSize}`),
        this.number,
        BASIC_CLASS,
        40,
      );
      return;
    }
    if (h.bodySize === 0) this.completePublish(Buffer.alloc(0));
  }

  handleBody(payload: Buffer): void {
    if (this.state === "closing") return;
    const c = this.content;
    if (!c || !c.properties) throw new BrokerError("unexpectedFrame", "expected content header, got content body instead");
    c.received += payload.length;
    if (c.received > c.bodySize) throw new BrokerError("frameError", `content body exceeds the declared size ${c.bodySize}`);
    if (c.received === c.bodySize) {
      // Never copied: a body in one frame stays a slice of the socket read, a body in several
      // frames stays the list of their payloads (message-body.ts).
      if (c.parts.length === 0) this.completePublish(payload);
      else {
        c.parts.push(payload);
        this.completePublish(c.parts);
      }
    } else if (payload.length > 0) {
      c.parts.push(payload);
    }
  }

  private completePublish(body: Body): void {
    const c = this.content!;
    this.content = null;
    try {
      const props = c.properties!;
      const user = this.conn.user;
      if (props.userId !== undefined && props.userId !== user && !this.ctx.permissions.user.tags.includes("impersonator")) {
        throw new BrokerError("preconditionFailed", `user_id property set to '${props.userId}' but authenticated user was '${user}'`);
      }
      if (props.expiration !== undefined) checkExpiration(props.expiration);
      let raw = c.rawProperties;
      if (props.replyTo !== undefined && props.replyTo === "amq.rabbitmq.reply-to") {
        if (!this.replyConsumer) throw new BrokerError("preconditionFailed", "fast reply consumer does not exist");
        props.replyTo = this.replyConsumer.replyAddress;
        raw = null;
      }
      const message = createMessage(c.exchange.name, c.routingKey, props, raw, body, Date.now());
      this.stats.publish++;
      this.conn.broker.stats.messageSizes.observe(message.bodySize);
      if (this.tx) {
        this.tx.publishes.push({ exchange: c.exchange, message, mandatory: c.mandatory });
        return;
      }
      this.route(c.exchange, message, c.mandatory);
    } catch (err) {
      this.conn.methodError(err, this.number, BASIC_CLASS, 40);
    }
  }

  /** Routes one message, returns it when unroutable and mandatory, and settles its confirm. */
  route(exchange: Exchange, message: Message, mandatory: boolean): void {
    const seq = this.confirm ? this.confirm.take() : 0;
    const broker = this.conn.broker;
    const journal = broker.journal;
    const appendsBefore = journal ? journal.appends : 0;
    const directReply = exchange.name === "" && message.routingKey.startsWith("amq.rabbitmq.reply-to.");
    const outcome = directReply
      ? (this.conn.broker.directReply.deliver(message.routingKey, message) ? PUBLISH_ROUTED : PUBLISH_UNROUTED)
      : broker.publish(this.vhost, exchange, message, this.routed);
    if (outcome === PUBLISH_ROUTED && !directReply) this.conn.flow.check(this.routed, this.routed.length);
    if (outcome === PUBLISH_UNROUTED) {
      if (mandatory) {
        this.sendReturn(312, "NO_ROUTE", message);
        this.stats.returnUnroutable++;
        broker.stats.returnUnroutable++;
      } else {
        this.stats.dropUnroutable++;
        broker.stats.dropUnroutable++;
      }
    }
    if (this.confirm) {
      broker.stats.receivedConfirm++;
      // A queue at its limit with overflow reject-publish(-dlx) refused it: the publisher gets a nack.
      // A persistent message stored for a durable queue is confirmed only once it is fsynced.
      if (outcome === PUBLISH_REFUSED) this.synced(seq, false);
      else if (journal !== null && journal.appends !== appendsBefore) journal.whenSynced(this, seq);
      else this.synced(seq, true);
    }
  }

  /** The message store synced what this channel waits for: a confirm (token = seq) or a tx.commit. */
  synced(token: number, ok: boolean): void {
    if (token === TX_COMMIT_TOKEN) {
      if (this.state !== "open" || this.conn.channels.get(this.number) !== this) return;
      if (ok) encodeTxCommitOk(this.conn.out, this.number, {});
      else this.conn.methodError(new BrokerError("internalError", "the message store could not write the transaction"), this.number, 90, 20);
      this.conn.maybeFlush();
      return;
    }
    if (!this.confirm) return;
    this.confirm.settle(token, ok);
    this.conn.scheduleFlush();
  }

  private sendReturn(code: number, text: string, message: Message): void {
    const out = this.conn.out;
    encodeBasicReturn(out, this.number, { replyCode: code, replyText: text, exchange: message.exchange, routingKey: message.routingKey });
    this.writeContent(message);
  }

  // ------------------------------------------------------------ output

  /** Hands one queue entry to a consumer: basic.deliver + content, tracked until acked unless no-ack. */
  deliver(consumer: ChannelConsumer, queue: Queue, entry: QueueEntry): void {
    const tag = this.nextDeliveryTag++;
    if (!consumer.noAck) {
      this.unacked.set(tag, { queue, entry, consumer });
      consumer.unackedCount++;
      this.stats.deliver++;
      this.conn.broker.stats.deliver++;
    } else {
      this.stats.deliverNoAck++;
      this.conn.broker.stats.deliverNoAck++;
    }
    if (entry.redelivered) {
      this.stats.redeliver++;
      this.conn.broker.stats.redeliver++;
    }
    this.vhost.stats.deliver++;
    const m = entry.message;
    const a = this.deliverArgs;
    a.consumerTag = consumer.tag;
    a.deliveryTag = tag;
    a.redelivered = entry.redelivered;
    a.exchange = m.exchange;
    a.routingKey = m.routingKey;
    encodeBasicDeliver(this.conn.out, this.number, a);
    this.writeContent(m);
  }

  /** Writes a message's content header (re-sending received property bytes) and body frames. */
  writeContent(m: Message): void {
    const out = this.conn.out;
    m.rawProperties ??= encodeBasicProperties(m.properties);
    writeContentHeader(out, this.number, BASIC_CLASS, m.bodySize, m.rawProperties);
    writeBody(out, this.number, m.body, this.conn.tuning.frameMax);
    this.conn.maybeFlush();
  }

  /** Called by the connection right before it writes its buffer: coalesced confirms go out now. */
  beforeFlush(): void {
    const tracker = this.confirm;
    if (!tracker || tracker.unconfirmed === 0) return;
    const before = tracker.unconfirmed;
    tracker.drain((deliveryTag, multiple, ack) => {
      if (ack) encodeBasicAck(this.conn.out, this.number, { deliveryTag, multiple });
      else encodeBasicNack(this.conn.out, this.number, { deliveryTag, multiple, requeue: false });
    });
    // RabbitMQ's `confirm` statistic counts confirmed messages, not basic.ack frames.
    const confirmed = before - tracker.unconfirmed;
    this.stats.confirm += confirmed;
    this.conn.broker.stats.confirm += confirmed;
  }

  // ------------------------------------------------------------ settlement

  /** basic.ack / nack / reject. `multiple` settles every outstanding tag up to and including `tag` (0 = all). */
  settle(tag: number, multiple: boolean, outcome: "ack" | "requeue" | "discard"): void {
    const picked: Array<[number, Unacked]> = [];
    if (multiple) {
      for (const item of this.unacked) {
        if (tag !== 0 && item[0] > tag) break;
        picked.push(item);
      }
      if (picked.length === 0 && tag !== 0 && !this.unacked.has(tag)) throw unknownTag(tag);
    } else {
      const u = this.unacked.get(tag);
      if (!u) throw unknownTag(tag);
      picked.push([tag, u]);
    }
    const apply = (): void => this.applySettlement(picked, outcome);
    if (this.tx) this.tx.settlements.push(apply);
    else apply();
  }

  private applySettlement(picked: Array<[number, Unacked]>, outcome: "ack" | "requeue" | "discard"): void {
    const requeue = new Map<Queue, QueueEntry[]>();
    const touched = new Set<Queue>();
    for (const [tag, u] of picked) {
      if (!this.unacked.delete(tag)) continue;
      if (u.consumer) u.consumer.unackedCount--;
      touched.add(u.queue);
      if (outcome === "ack") {
        u.queue.settle(u.entry);
        this.stats.ack++;
        this.conn.broker.stats.ack++;
        this.vhost.stats.ack++;
      } else if (outcome === "requeue") {
        let list = requeue.get(u.queue);
        if (!list) requeue.set(u.queue, (list = []));
        list.push(u.entry);
      } else {
        u.queue.discard(u.entry);
      }
    }
    for (const [q, entries] of requeue) q.requeue(entries);
    this.resumeDeliveries(touched);
  }

  /** Lets consumers take messages again after acks freed capacity or the socket drained. */
  resumeDeliveries(queues?: Set<Queue>): void {
    if (this.prefetchCount > 0 || !queues) {
      for (const c of this.consumers.values()) c.queue.dispatch();
    } else {
      for (const q of queues) q.dispatch();
    }
  }

  /** basic.recover / recover-async with requeue: every unacked message goes back to its queue. */
  recover(): void {
    this.applySettlement([...this.unacked], "requeue");
  }

  // ------------------------------------------------------------ consumers

  consumerCancelledByQueue(c: ChannelConsumer): void {
    if (this.consumers.get(c.tag) !== c) return;
    this.consumers.delete(c.tag);
    const caps = this.conn.clientProperties["capabilities"];
    if (caps && typeof caps === "object" && !Array.isArray(caps) && (caps as Record<string, unknown>)["consumer_cancel_notify"] === true) {
      encodeBasicCancel(this.conn.out, this.number, { consumerTag: c.tag, nowait: true });
      this.conn.maybeFlush();
    }
  }

  cancelConsumer(tag: string): boolean {
    const c = this.consumers.get(tag);
    if (!c) return false;
    this.consumers.delete(tag);
    c.queue.removeConsumer(c);
    return true;
  }

  // ------------------------------------------------------------ closing

  /** Soft error: send channel.close and ignore everything until close-ok. */
  closeWithError(code: number, text: string, classId: number, methodId: number): void {
    if (this.state === "closing") return;
    this.release();
    this.state = "closing";
    encodeChannelClose(this.conn.out, this.number, { replyCode: code, replyText: text, classId, methodId });
    this.conn.maybeFlush();
  }

  /** Client channel.close: release everything and confirm. */
  closeByClient(): void {
    this.release();
    this.conn.channels.delete(this.number);
    encodeChannelCloseOk(this.conn.out, this.number, {});
    this.conn.maybeFlush();
  }

  /**
   * Gives back what the channel holds: consumers leave their queues first (so requeued messages
   * cannot come straight back here), then unacked messages return to their queues in order.
   */
  release(): void {
    if (this.state === "closing") return;
    this.state = "closing";
    this.content = null;
    this.tx = null;
    for (const c of this.consumers.values()) c.queue.removeConsumer(c);
    this.consumers.clear();
    if (this.replyConsumer) this.conn.broker.directReply.unregister(this.replyConsumer.key);
    this.replyConsumer = null;
    const byQueue = new Map<Queue, QueueEntry[]>();
    for (const u of this.unacked.values()) {
      let list = byQueue.get(u.queue);
      if (!list) byQueue.set(u.queue, (list = []));
      list.push(u.entry);
    }
    this.unacked.clear();
    for (const [q, entries] of byQueue) q.requeue(entries);
    this.conn.broker.stats.channelClosed++;
  }
}

function unknownTag(tag: number): BrokerError {
  return new BrokerError("preconditionFailed", `unknown delivery tag ${tag}`);
}
