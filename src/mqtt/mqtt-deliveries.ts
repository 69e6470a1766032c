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
 * QoS 2 (§4.3.3, the sender's side): the PUBLISH waits for PUBREC; then the message is settled in
 * its queue, the packet id moves to the session's outbound QoS 2 state (saved for a persistent
 * session) and PUBREL goes once that is saved; PUBCOMP frees the id. A resumed session sends the
 * PUBRELs still owed again [MQTT-4.4.0-1]. Ids awaiting PUBCOMP count against the prefetch.
 *
 * Subscription Identifiers (MQTT 5): a PUBLISH carries those of every subscription of its queue
 * that matches it, looked up only while the session has any. A shared subscription's consumer
 * (shared-subscriptions.ts) takes its options from its own subscription.
 *
 * Invariant: every inflight entry with a queue is unacked in that queue, and is requeued when the
 * session is released.
 */
import type { QoS } from "mqtt-packet";
import { type Broker, type ChannelCounters, createMessage, type Message, type ProtocolCounters, type Queue, type QueueEntry, type VHost } from "../broker/index.js";
import { MqttConsumer, type DeliveryTarget } from "./mqtt-consumer.js";
import { hasNoV5Properties, messageQos, publishFromMessage } from "./mqtt-message.js";
import type { MqttNode } from "./mqtt-node.js";
import { RC } from "./mqtt-reason-codes.js";
import { amqpToMqtt, mqttToAmqp } from "./mqtt-topic.js";
import { reserveResend, takeResend } from "./qos2-state-store.js";
import type { RetainedMessage } from "./retained-store.js";
import type { Subscription } from "./subscription-options.js";
import type { DeliveryLink, RetainFlagRule } from "./mqtt-delivery-ports.js";

const DOLLAR = 0x24;
const HASH = 0x23;
const STAR = 0x2a;

interface Inflight {
  /** null for a retained message sent on subscribe: nothing to settle. */
  readonly consumer: MqttConsumer | null;
  readonly entry: QueueEntry | null;
  /** Sent at QoS 2: answered by PUBREC, not PUBACK. */
  readonly exactlyOnce: boolean;
}

export class MqttDeliveries implements DeliveryTarget {
  private readonly consumers: [MqttConsumer | null, MqttConsumer | null, MqttConsumer | null] = [null, null, null];
  /** Consumers on shared subscriptions' queues, by queue name. */
  private readonly shared = new Map<string, MqttConsumer>();
  private readonly inflight = new Map<number, Inflight>();
  /** Retained QoS 1 messages sent on subscribe that wait for a free slot. */
  private backlog: Array<{ readonly message: RetainedMessage; readonly qos: QoS }> = [];
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
    /** This connection's (its channel's message_stats in the management API). */
    private readonly channel: ChannelCounters,
  ) {
    this.broker = node.broker;
  }

  get owner(): object {
    return this.link.ctx.owner!;
  }

  get hasConsumers(): boolean {
    return this.consumers[0] !== null || this.consumers[1] !== null || this.consumers[2] !== null || this.shared.size > 0;
  }

  get unacknowledged(): number {
    return this.inflight.size + this.link.qos2.outbound.size;
  }

  /** Starts consuming from the session queue of `qos` (once). */
  consume(queue: Queue, qos: QoS): void {
    if (this.consumers[qos] !== null) return;
    const c = new MqttConsumer(this, queue, qos);
    this.consumers[qos] = c;
    queue.addConsumer(c);
  }

  /** Starts consuming from a shared subscription's queue (once). */
  consumeShared(queue: Queue, sub: Subscription): void {
    if (this.shared.has(queue.name)) return;
    const c = new MqttConsumer(this, queue, sub.qos, sub);
    this.shared.set(queue.name, c);
    queue.addConsumer(c);
  }

  /** Stops consuming from a shared subscription's queue; deliveries in flight are still settled by their acknowledgements. */
  stopShared(queueName: string): void {
    const c = this.shared.get(queueName);
    if (c === undefined) return;
    this.shared.delete(queueName);
    c.queue.removeConsumer(c);
  }

  isConsuming(qos: QoS): boolean {
    return this.consumers[qos] !== null;
  }

  canTake(c: MqttConsumer): boolean {
    return this.link.writable && (c.noAck || this.inflight.size + this.link.qos2.outbound.size < this.prefetch);
  }

  deliver(c: MqttConsumer, queue: Queue, entry: QueueEntry): void {
    const m = entry.message;
    const dollar = m.routingKey.charCodeAt(0) === DOLLAR;
    if (c.shared !== null) {
      const first = c.shared.key.charCodeAt(0);
      if (dollar && (first === HASH || first === STAR)) {
        // A `$` topic does not come through a filter starting with a wildcard [MQTT-4.7.2-1].
        if (!c.noAck) queue.settle(entry);
        return;
      }
    } else if (dollar && !this.retainRule.admitsDollarTopic(c.qos, m.routingKey)) {
      // Routed only by a filter starting with a wildcard, which must not match it: not for this client.
      if (!c.noAck) queue.settle(entry);
      return;
    } else if (this.retainRule.overlapping && this.retainRule.matchedHigher(c.qos, m.routingKey)) {
      // MQTT 3.1.1 overlapping subscriptions: one delivery, at the highest QoS granted (§3.3.5).
      if (!c.noAck) queue.settle(entry);
      return;
    }
    const published = messageQos(m);
    const qos: QoS = c.qos < published ? c.qos : published;
    const stats = this.broker.stats;
    const vstats = this.vhost.stats;
    const counters = this.counters;
    const channel = this.channel;
    if (entry.redelivered) {
      stats.redeliver++;
      vstats.redeliver++;
      counters.redeliver++;
      channel.redeliver++;
    }
    if (qos === 0) {
      // A QoS 0 delivery from an acknowledged queue needs no PUBACK: settled as sent.
      stats.deliverNoAck++;
      vstats.deliverNoAck++;
      counters.deliverNoAck++;
      channel.deliverNoAck++;
      this.sendPublish(m, c, 0, 0, false);
      if (!c.noAck) queue.settle(entry);
      return;
    }
    stats.deliver++;
    vstats.deliver++;
    counters.deliver++;
    channel.deliver++;
    // A QoS 2 delivery whose PUBREC never came is sent again with its first id (qos2-state-store.ts).
    const resent = qos === 2 && entry.redelivered && this.link.qos2.resend.size > 0 ? takeResend(this.link.qos2, entry) : 0;
    const id = resent > 0 ? resent : this.takePacketId();
    if (!this.sendPublish(m, c, qos, id, entry.redelivered)) {
      queue.discard(entry);
      return;
    }
    this.inflight.set(id, { consumer: c, entry, exactlyOnce: qos === 2 });
    c.unackedCount++;
  }

  /** A delivery's PUBLISH; false when it was not sent (too large for the client). */
  private sendPublish(m: Message, c: MqttConsumer, qos: QoS, id: number, dup: boolean): boolean {
    const rule = this.retainRule;
    const shared = c.shared;
    // Only a message published with RETAIN, to a subscription that asked for the flag, keeps it.
    const retain = shared === null
      ? rule.retainAsPublishedCount > 0 && this.node.publishedRetained.has(m) && rule.keepsRetainFlag(c.qos, m.routingKey)
      : shared.retainAsPublished && this.node.publishedRetained.has(m);
    const ids = shared === null ? (rule.identifiedCount > 0 ? rule.identifiersFor(c.qos, m.routingKey) : null) : shared.id > 0 ? [shared.id] : null;
    const link = this.link;
    const out = link.packets;
    if (ids === null && out.aliases === null && (!link.v5 || hasNoV5Properties(m))) {
      // The common case, encoded without a packet object (packet-writer.ts).
      return out.sendPublish(this.topicFor(m.routingKey), m.body, m.bodySize, qos, id, dup, retain, link.v5);
    }
    const packet = publishFromMessage(m, qos, id, dup, link.v5, Date.now());
    if (retain) packet.retain = true;
    // MQTT 5 §3.3.4: one copy carries the identifiers of every matching subscription.
    if (ids !== null) packet.properties = { ...packet.properties, subscriptionIdentifier: ids.length === 1 ? ids[0]! : ids };
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
    if (!f || f.exactlyOnce) return;
    this.inflight.delete(packetId);
    this.settle(f, reasonCode);
    this.freed(f.consumer);
  }

  private settle(f: Inflight, reasonCode: number | undefined): void {
    const c = f.consumer;
    if (c === null || f.entry === null) return;
    c.unackedCount--;
    if (reasonCode !== undefined && reasonCode >= 0x80) c.queue.discard(f.entry);
    else {
      c.queue.settle(f.entry);
      this.counters.ack++;
      this.channel.ack++;
      this.broker.stats.ack++;
      this.vhost.stats.ack++;
    }
  }

  /** A packet id was freed: the backlog and the consumers may go on. */
  private freed(c: MqttConsumer | null): void {
    if (this.backlog.length > 0) this.sendBacklog();
    if (c === null) this.drained();
    else c.queue.dispatch();
  }

  /**
   * PUBREC: a QoS 2 delivery arrived. Its message is settled and its id kept for PUBCOMP once
   * saved, then PUBREL goes; an error reason code (MQTT 5, 0x80 or more) ends the exchange and
   * discards the message. A PUBREC for an id already released is answered with PUBREL again; for
   * an unknown id, MQTT 5 hears 0x92.
   */
  received(packetId: number, reasonCode: number | undefined): void {
    const state = this.link.qos2;
    const f = this.inflight.get(packetId);
    if (f === undefined || !f.exactlyOnce) {
      const known = state.outbound.has(packetId);
      this.link.send(this.link.v5 && !known ? { cmd: "pubrel", messageId: packetId, reasonCode: RC.packetIdentifierNotFound } : { cmd: "pubrel", messageId: packetId });
      return;
    }
    this.inflight.delete(packetId);
    if (reasonCode !== undefined && reasonCode >= 0x80) {
      this.settle(f, reasonCode);
      this.freed(f.consumer);
      return;
    }
    state.outbound.add(packetId);
    this.node.qos2.changed(state, () => {
      this.settle(f, undefined);
      if (state.outbound.has(packetId)) this.link.send({ cmd: "pubrel", messageId: packetId });
    });
  }

  /** PUBCOMP: the QoS 2 exchange of this id is over. */
  completed(packetId: number): void {
    const state = this.link.qos2;
    if (!state.outbound.delete(packetId)) return;
    this.node.qos2.changed(state, null);
    this.freed(null);
  }

  /** A resumed session: the PUBRELs owed are sent again [MQTT-4.4.0-1]. */
  resendReleases(): void {
    for (const id of this.link.qos2.outbound) this.link.send({ cmd: "pubrel", messageId: id });
  }

  /** The queue ended the consumer (never the session's own cancel, which removes it first): the connection closes. */
  consumerGone(c: MqttConsumer): void {
    if (c.shared !== null) {
      if (this.shared.get(c.queue.name) !== c) return;
      this.shared.delete(c.queue.name);
    } else if (this.consumers[c.qos] === c) this.consumers[c.qos] = null;
    else return;
    this.link.consumingQueueDown(c.queue.name);
  }

  /** The socket drained: consumers may take messages again. */
  drained(): void {
    for (const c of this.consumers) c?.queue.dispatch();
    if (this.shared.size > 0) for (const c of this.shared.values()) c.queue.dispatch();
  }

  private takePacketId(): number {
    // 16-bit ids, never 0, never one still in flight or awaiting PUBCOMP (at most `prefetch` are).
    const { outbound: released, reserved } = this.link.qos2;
    let id = this.nextPacketId;
    while (this.inflight.has(id) || (released.size > 0 && released.has(id)) || (reserved.size > 0 && reserved.has(id))) id = id === 0xffff ? 1 : id + 1;
    this.nextPacketId = id === 0xffff ? 1 : id + 1;
    return id;
  }

  /** Sends retained messages after SUBACK, with RETAIN set; QoS 1 ones beyond the prefetch wait. */
  sendRetained(messages: readonly RetainedMessage[], subscribed: QoS, now: number): void {
    for (const r of messages) {
      const qos: QoS = subscribed < r.qos ? subscribed : r.qos;
      if (qos > 0 && (this.backlog.length > 0 || this.full)) this.backlog.push({ message: r, qos });
      else this.sendOneRetained(r, qos, now);
    }
  }

  private get full(): boolean {
    return this.inflight.size + this.link.qos2.outbound.size >= this.prefetch;
  }

  private sendBacklog(): void {
    const now = Date.now();
    let i = 0;
    while (i < this.backlog.length && !this.full) {
      const b = this.backlog[i++]!;
      this.sendOneRetained(b.message, b.qos, now);
    }
    this.backlog = this.backlog.slice(i);
  }

  private sendOneRetained(r: RetainedMessage, qos: QoS, now: number): void {
    const m = createMessage(this.node.settings.exchange, mqttToAmqp(r.topic), r.properties, null, r.payload, r.publishedAt);
    const id = qos > 0 ? this.takePacketId() : 0;
    const packet = publishFromMessage(m, qos, id, false, this.link.v5, now);
    packet.topic = r.topic;
    packet.retain = true;
    if (this.link.send(packet) && qos > 0) this.inflight.set(id, { consumer: null, entry: null, exactlyOnce: qos === 2 });
  }

  /**
   * The connection is gone: consumers leave their queues first (so requeued messages do not come
   * straight back), then unacknowledged deliveries return to their queues, marked redelivered.
   */
  release(): void {
    for (let qos = 0; qos < 3; qos++) {
      const c = this.consumers[qos];
      if (c) c.queue.removeConsumer(c);
      this.consumers[qos] = null;
    }
    for (const c of this.shared.values()) c.queue.removeConsumer(c);
    this.shared.clear();
    const byQueue = new Map<Queue, QueueEntry[]>();
    for (const [id, f] of this.inflight) {
      if (f.consumer === null || f.entry === null) continue;
      if (f.exactlyOnce && f.consumer.shared === null) reserveResend(this.link.qos2, f.entry, id);
      let list = byQueue.get(f.consumer.queue);
      if (!list) byQueue.set(f.consumer.queue, (list = []));
      list.push(f.entry);
    }
    this.inflight.clear();
    this.backlog = [];
    for (const [q, entries] of byQueue) q.requeue(entries);
  }
}
