/**
 * An MQTT session's deliveries to its client: the consumers on the session queues, the QoS 1
 * deliveries in flight (by packet id, until PUBACK), and the retained messages sent on subscribe.
 *
 * The QoS sent is the lower of the subscription's and the message's. At most `prefetch` QoS 1
 * deliveries are unacknowledged at a time (mqtt.prefetch, capped by the client's Receive Maximum,
 * MQTT 5 §3.3.4): the queues are not asked for more, and retained messages on subscribe beyond
 * that wait in a backlog for acknowledgements. A delivery larger than the client's Maximum Packet
 * Size is not sent and counts as delivered (MQTT 5 §3.1.2.11.4); from a queue it is discarded
 * (dead-lettered when the queue says so), as RabbitMQ does. A PUBACK with an error reason code
 * (0x80 or more) also discards the message rather than requeueing it (MQTT-4.4.0-2).
 *
 * Invariant: every inflight entry with a queue is unacked in that queue, and is requeued when the
 * session is released.
 */
import type { Packet, QoS } from "mqtt-packet";
import { type Broker, type ClientContext, createMessage, type Message, type ProtocolCounters, type Queue, type QueueEntry, type VHost } from "../broker/index.js";
import { MqttConsumer, type DeliveryTarget } from "./mqtt-consumer.js";
import { hasNoV5Properties, messageQos, publishFromMessage } from "./mqtt-message.js";
import type { MqttNode } from "./mqtt-node.js";
import { amqpToMqtt, mqttToAmqp } from "./mqtt-topic.js";
import type { PacketWriter } from "./packet-writer.js";
import type { RetainedMessage } from "./retained-store.js";

/** What the deliveries need of the connection. */
export interface DeliveryLink {
  readonly ctx: ClientContext;
  readonly v5: boolean;
  /** False while the socket is backed up. */
  readonly writable: boolean;
  /** Sends a packet; false when it was too large for the client and dropped. */
  send(packet: Packet): boolean;
  /** The output, for the per-message PUBLISH encoded without a packet object. */
  readonly packets: PacketWriter;
}

/** What the deliveries ask of the session's subscriptions. */
export interface RetainFlagRule {
  /** How many subscriptions have Retain As Published: while 0, nothing per delivery is looked up. */
  readonly retainAsPublishedCount: number;
  /** Whether a message published with RETAIN keeps the flag on its way through the `qos` queue (`routingKey`: its AMQP key). */
  keepsRetainFlag(qos: 0 | 1, routingKey: string): boolean;
}

interface Inflight {
  /** null for a retained message sent on subscribe: nothing to settle. */
  readonly consumer: MqttConsumer | null;
  readonly entry: QueueEntry | null;
}

export class MqttDeliveries implements DeliveryTarget {
  private readonly consumers: [MqttConsumer | null, MqttConsumer | null] = [null, null];
  private readonly inflight = new Map<number, Inflight>();
  /** Retained QoS 1 messages sent on subscribe that wait for a free slot. */
  private backlog: RetainedMessage[] = [];
  private nextPacketId = 1;
  /** topicFor's memo. */
  private lastRoutingKey = "";
  private lastTopic = "";
  private readonly broker: Broker;

  constructor(
    private readonly node: MqttNode,
    private readonly link: DeliveryLink,
    private readonly vhost: VHost,
    /** Unacknowledged QoS 1 deliveries allowed at a time. */
    private readonly prefetch: number,
    private readonly retainRule: RetainFlagRule,
    /** This protocol version's share of the broker's counters (Prometheus). */
    private readonly counters: ProtocolCounters,
  ) {
    this.broker = node.broker;
  }

  get owner(): object {
    return this.link.ctx.owner!;
  }

  get hasConsumers(): boolean {
    return this.consumers[0] !== null || this.consumers[1] !== null;
  }

  get unacknowledged(): number {
    return this.inflight.size;
  }

  /** Starts consuming from the session queue of `qos` (once). */
  consume(queue: Queue, qos: 0 | 1): void {
    if (this.consumers[qos] !== null) return;
    const c = new MqttConsumer(this, queue, qos);
    this.consumers[qos] = c;
    queue.addConsumer(c);
  }

  isConsuming(qos: 0 | 1): boolean {
    return this.consumers[qos] !== null;
  }

  canTake(c: MqttConsumer): boolean {
    return this.link.writable && (c.noAck || this.inflight.size < this.prefetch);
  }

  deliver(c: MqttConsumer, queue: Queue, entry: QueueEntry): void {
    const m = entry.message;
    const qos: QoS = c.qos === 1 && messageQos(m) === 1 ? 1 : 0;
    const stats = this.broker.stats;
    const vstats = this.vhost.stats;
    const counters = this.counters;
    if (entry.redelivered) {
      stats.redeliver++;
      vstats.redeliver++;
      counters.redeliver++;
    }
    if (qos === 0) {
      stats.deliverNoAck++;
      vstats.deliverNoAck++;
      counters.deliverNoAck++;
      this.sendPublish(m, c.qos, 0, 0, false);
      // A QoS 0 delivery from the QoS 1 queue needs no PUBACK: settled as sent.
      if (!c.noAck) queue.settle(entry);
      return;
    }
    stats.deliver++;
    vstats.deliver++;
    counters.deliver++;
    const id = this.takePacketId();
    if (!this.sendPublish(m, 1, 1, id, entry.redelivered)) {
      queue.discard(entry);
      return;
    }
    this.inflight.set(id, { consumer: c, entry });
    c.unackedCount++;
  }

  /** A delivery's PUBLISH; false when it was not sent (too large for the client). */
  private sendPublish(m: Message, queueQos: 0 | 1, qos: QoS, id: number, dup: boolean): boolean {
    // Only a message published with RETAIN, to a subscription that asked for the flag, keeps it.
    const retain = this.retainRule.retainAsPublishedCount > 0 && this.node.publishedRetained.has(m) && this.retainRule.keepsRetainFlag(queueQos, m.routingKey);
    const link = this.link;
    const out = link.packets;
    if (out.aliases === null && (!link.v5 || hasNoV5Properties(m))) {
      // The common case, encoded without a packet object (packet-writer.ts).
      return out.sendPublish(this.topicFor(m.routingKey), m.body, m.bodySize, qos, id, dup, retain, link.v5);
    }
    const packet = publishFromMessage(m, qos, id, dup, link.v5, Date.now());
    if (retain) packet.retain = true;
    return link.send(packet);
  }

  /** The MQTT topic of a routing key; a subscriber usually gets one topic many times in a row. */
  private topicFor(routingKey: string): string {
    if (routingKey !== this.lastRoutingKey) {
      this.lastRoutingKey = routingKey;
      this.lastTopic = amqpToMqtt(routingKey);
    }
    return this.lastTopic;
  }

  /** PUBACK: the delivery with this packet id is acknowledged (or, with an error reason code, refused). */
  acknowledged(packetId: number, reasonCode: number | undefined): void {
    const f = this.inflight.get(packetId);
    if (!f) return;
    this.inflight.delete(packetId);
    const c = f.consumer;
    if (c !== null && f.entry !== null) {
      c.unackedCount--;
      if (reasonCode !== undefined && reasonCode >= 0x80) c.queue.discard(f.entry);
      else {
        c.queue.settle(f.entry);
        this.counters.ack++;
        this.broker.stats.ack++;
        this.vhost.stats.ack++;
      }
    }
    if (this.backlog.length > 0) this.sendBacklog();
    c?.queue.dispatch();
    if (c === null) this.drained();
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

  /** Sends retained messages after SUBACK, with RETAIN set; QoS 1 ones beyond the prefetch wait. */
  sendRetained(messages: readonly RetainedMessage[], subscribed: 0 | 1, now: number): void {
    for (const r of messages) {
      const qos: 0 | 1 = subscribed === 1 && r.qos === 1 ? 1 : 0;
      if (qos === 1 && (this.backlog.length > 0 || this.inflight.size >= this.prefetch)) this.backlog.push(r);
      else this.sendOneRetained(r, qos, now);
    }
  }

  private sendBacklog(): void {
    const now = Date.now();
    let i = 0;
    while (i < this.backlog.length && this.inflight.size < this.prefetch) this.sendOneRetained(this.backlog[i++]!, 1, now);
    this.backlog = this.backlog.slice(i);
  }

  private sendOneRetained(r: RetainedMessage, qos: 0 | 1, now: number): void {
    const m = createMessage(this.node.settings.exchange, mqttToAmqp(r.topic), r.properties, null, r.payload, r.publishedAt);
    const id = qos === 1 ? this.takePacketId() : 0;
    const packet = publishFromMessage(m, qos, id, false, this.link.v5, now);
    packet.topic = r.topic;
    packet.retain = true;
    if (this.link.send(packet) && qos === 1) this.inflight.set(id, { consumer: null, entry: null });
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
    this.backlog = [];
    for (const [q, entries] of byQueue) q.requeue(entries);
  }
}
