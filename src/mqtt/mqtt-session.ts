/**
 * An MQTT session's subscriptions and deliveries, as RabbitMQ's MQTT plugin keeps them: one queue
 * per subscription QoS, `mqtt-subscription-<client id>qos0` and `…qos1`, bound to the MQTT
 * exchange with each topic filter as binding key. A session with no expiry (clean session) has
 * exclusive queues that go with the connection; a persistent one has durable queues with x-expires
 * set to the session expiry, so they survive the client's absence and a broker restart, and its
 * subscriptions are read back from the queues' bindings. QoS 2 subscriptions are granted QoS 1.
 *
 * Deliveries: the QoS sent is the lower of the subscription's and the message's. QoS 1 deliveries
 * are held in `inflight` by packet id until PUBACK settles them; at most `prefetch` at a time.
 * Invariant: every inflight entry with a queue is unacked in that queue, and is requeued when the
 * session is released.
 */
import type { IPublishPacket, ISubscribePacket, IUnsubscribePacket, Packet, QoS } from "mqtt-packet";
import { type Broker, type ClientContext, createMessage, type Queue, type QueueEntry, type QueueSpec, type VHost } from "../broker/index.js";
import { BrokerError } from "../errors/broker-error.js";
import { MqttConsumer, type DeliveryTarget } from "./mqtt-consumer.js";
import { messageQos, publishFromMessage } from "./mqtt-message.js";
import type { MqttNode } from "./mqtt-node.js";
import { RC } from "./mqtt-reason-codes.js";
import { amqpToMqtt, isValidTopicFilter, mqttToAmqp } from "./mqtt-topic.js";

/** What the session needs of its connection. */
export interface SessionLink {
  readonly ctx: ClientContext;
  readonly clientId: string;
  readonly v5: boolean;
  /** False while the socket is backed up. */
  readonly writable: boolean;
  send(packet: Packet): void;
}

interface Inflight {
  /** null for a retained message sent on subscribe: nothing to settle. */
  readonly consumer: MqttConsumer | null;
  readonly entry: QueueEntry | null;
}

export class MqttSession implements DeliveryTarget {
  /** Topic filter → granted QoS. */
  readonly subscriptions = new Map<string, 0 | 1>();
  private readonly consumers: [MqttConsumer | null, MqttConsumer | null] = [null, null];
  private readonly inflight = new Map<number, Inflight>();
  private nextPacketId = 1;
  private readonly broker: Broker;
  private readonly exchange: string;

  constructor(
    private readonly node: MqttNode,
    private readonly link: SessionLink,
    private readonly vhost: VHost,
    /** Seconds; 0 = the session ends with the connection. */
    private readonly expiry: number,
    private readonly prefetch: number,
  ) {
    this.broker = node.broker;
    this.exchange = node.settings.exchange;
  }

  get owner(): object {
    return this.link.ctx.owner!;
  }

  queueName(qos: 0 | 1): string {
    return `mqtt-subscription-${this.link.clientId}qos${qos}`;
  }

  /**
   * CONNECT: a clean start deletes what a previous session left; otherwise the session's queues
   * and subscriptions are taken up again. Returns whether a session was present. Consuming starts
   * with `resume`, after CONNACK has gone out.
   */
  open(cleanStart: boolean): boolean {
    let present = false;
    for (const qos of [0, 1] as const) {
      const name = this.queueName(qos);
      const q = this.vhost.queues.get(name);
      if (!q) continue;
      if (cleanStart) {
        this.broker.deleteQueue(this.link.ctx, this.vhost.name, name, { ifUnused: false, ifEmpty: false });
        continue;
      }
      q.checkExclusiveAccess(this.owner);
      present = true;
      for (const b of q.boundFrom) if (b.source.name === this.exchange) this.subscriptions.set(amqpToMqtt(b.routingKey), qos);
    }
    return present;
  }

  /** Starts consuming from the session's existing queues. */
  resume(): void {
    for (const qos of [0, 1] as const) {
      if (this.vhost.queues.has(this.queueName(qos))) this.consume(qos);
    }
  }

  // ------------------------------------------------------------ subscribe / unsubscribe

  /** SUBSCRIBE: binds each filter, answers SUBACK, then sends the retained messages that match. */
  subscribe(p: ISubscribePacket): void {
    const granted: number[] = [];
    const retainedFor: Array<[string, 0 | 1]> = [];
    for (const s of p.subscriptions) {
      const qos: 0 | 1 = s.qos === 0 ? 0 : 1;
      try {
        this.addSubscription(s.topic, qos);
        granted.push(qos);
        retainedFor.push([s.topic, qos]);
      } catch (err) {
        this.node.log.warn("MQTT subscription refused", { clientId: this.link.clientId, topic: s.topic, reason: err instanceof Error ? err.message : String(err) });
        granted.push(this.link.v5 && err instanceof BrokerError && err.kind === "accessRefused" ? RC.notAuthorized : RC.unspecifiedError);
      }
    }
    this.link.send({ cmd: "suback", messageId: p.messageId!, granted });
    for (const [filter, qos] of retainedFor) this.sendRetained(filter, qos);
  }

  private addSubscription(filter: string, qos: 0 | 1): void {
    const key = mqttToAmqp(filter);
    const ctx = this.link.ctx;
    const queue = this.ensureQueue(qos);
    this.broker.bindQueue(ctx, this.vhost.name, queue.name, this.exchange, key, {});
    const previous = this.subscriptions.get(filter);
    if (previous !== undefined && previous !== qos) {
      // Resubscribing with another QoS moves the filter to the other queue (MQTT-3.8.4-3).
      this.broker.unbindQueue(ctx, this.vhost.name, this.queueName(previous), this.exchange, key, {});
    }
    this.subscriptions.set(filter, qos);
    this.consume(qos);
  }

  /** UNSUBSCRIBE: unbinds each filter; MQTT 5 tells which ones existed. */
  unsubscribe(p: IUnsubscribePacket): void {
    const codes: number[] = [];
    for (const filter of p.unsubscriptions) {
      const qos = this.subscriptions.get(filter);
      if (qos === undefined) {
        codes.push(RC.noSubscriptionExisted);
        continue;
      }
      try {
        this.broker.unbindQueue(this.link.ctx, this.vhost.name, this.queueName(qos), this.exchange, mqttToAmqp(filter), {});
        this.subscriptions.delete(filter);
        codes.push(RC.success);
      } catch (err) {
        codes.push(err instanceof BrokerError && err.kind === "accessRefused" ? RC.notAuthorized : RC.unspecifiedError);
      }
    }
    if (this.link.v5) this.link.send({ cmd: "unsuback", messageId: p.messageId!, granted: codes });
    else this.link.send({ cmd: "unsuback", messageId: p.messageId!, granted: [] });
  }

  private ensureQueue(qos: 0 | 1): Queue {
    const name = this.queueName(qos);
    const existing = this.vhost.queues.get(name);
    if (existing) {
      existing.checkExclusiveAccess(this.owner);
      return existing;
    }
    const spec: QueueSpec = this.expiry === 0
      ? { name, durable: false, autoDelete: false, exclusiveOwner: this.owner, arguments: {} }
      : { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: { "x-expires": this.expiry * 1000 } };
    return this.broker.declareQueue(this.link.ctx, this.vhost.name, spec, false).queue;
  }

  private consume(qos: 0 | 1): void {
    if (this.consumers[qos] !== null) return;
    const queue = this.broker.queueForRead(this.link.ctx, this.vhost.name, this.queueName(qos));
    const c = new MqttConsumer(this, queue, qos);
    this.consumers[qos] = c;
    queue.addConsumer(c);
  }

  // ------------------------------------------------------------ deliveries

  canTake(c: MqttConsumer): boolean {
    return this.link.writable && (c.noAck || this.inflight.size < this.prefetch);
  }

  deliver(c: MqttConsumer, queue: Queue, entry: QueueEntry): void {
    const m = entry.message;
    const qos: QoS = c.qos === 1 && messageQos(m) === 1 ? 1 : 0;
    const stats = this.broker.stats;
    const vstats = this.vhost.stats;
    if (entry.redelivered) {
      stats.redeliver++;
      vstats.redeliver++;
    }
    if (qos === 0) {
      stats.deliverNoAck++;
      vstats.deliverNoAck++;
      this.link.send(publishFromMessage(m, 0, 0, false, this.link.v5, Date.now()));
      // A QoS 0 delivery from the QoS 1 queue needs no PUBACK: settled as sent.
      if (!c.noAck) queue.settle(entry);
      return;
    }
    stats.deliver++;
    vstats.deliver++;
    const id = this.takePacketId();
    this.inflight.set(id, { consumer: c, entry });
    c.unackedCount++;
    this.link.send(publishFromMessage(m, 1, id, entry.redelivered, this.link.v5, Date.now()));
  }

  /** PUBACK: the delivery with this packet id is acknowledged. */
  acknowledged(packetId: number): void {
    const f = this.inflight.get(packetId);
    if (!f) return;
    this.inflight.delete(packetId);
    const c = f.consumer;
    if (c === null || f.entry === null) return;
    c.unackedCount--;
    c.queue.settle(f.entry);
    this.broker.stats.ack++;
    this.vhost.stats.ack++;
    c.queue.dispatch();
  }

  consumerGone(c: MqttConsumer): void {
    if (this.consumers[c.qos] === c) this.consumers[c.qos] = null;
  }

  /** The socket drained: consumers may take messages again. */
  drained(): void {
    for (const c of this.consumers) c?.queue.dispatch();
  }

  private takePacketId(): number {
    // 16-bit ids, never 0, never one still in flight (at most `prefetch` are).
    let id = this.nextPacketId;
    while (this.inflight.has(id)) id = id === 0xffff ? 1 : id + 1;
    this.nextPacketId = id === 0xffff ? 1 : id + 1;
    return id;
  }

  private sendRetained(filter: string, subscribed: 0 | 1): void {
    if (!isValidTopicFilter(filter)) return;
    const now = Date.now();
    for (const r of this.node.retained.matching(this.vhost.name, filter, now)) {
      const m = createMessage(this.exchange, mqttToAmqp(r.topic), r.properties, null, r.payload, r.publishedAt);
      const qos: QoS = subscribed === 1 && r.qos === 1 ? 1 : 0;
      let id = 0;
      if (qos === 1) {
        id = this.takePacketId();
        this.inflight.set(id, { consumer: null, entry: null });
      }
      const packet: IPublishPacket = publishFromMessage(m, qos, id, false, this.link.v5, now);
      packet.topic = r.topic;
      packet.retain = true;
      this.link.send(packet);
    }
  }

  /**
   * The connection is gone: consumers leave their queues first (so requeued messages do not come
   * straight back), then unacknowledged deliveries return to their queues, marked redelivered.
   */
  release(): void {
    for (let qos = 0; qos < 2; qos++) {
      const c = this.consumers[qos];
      if (c) c.queue.removeConsumer(c);
      this.consumers[qos] = null;
    }
    const byQueue = new Map<Queue, QueueEntry[]>();
    for (const f of this.inflight.values()) {
      if (f.consumer === null || f.entry === null) continue;
      let list = byQueue.get(f.consumer.queue);
      if (!list) byQueue.set(f.consumer.queue, (list = []));
      list.push(f.entry);
    }
    this.inflight.clear();
    for (const [q, entries] of byQueue) q.requeue(entries);
  }

  get hasConsumers(): boolean {
    return this.consumers[0] !== null || this.consumers[1] !== null;
  }

  get unacknowledged(): number {
    return this.inflight.size;
  }
}
