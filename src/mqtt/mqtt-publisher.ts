/**
 * A connection's incoming PUBLISH packets: permission checks (write on the MQTT exchange and
 * topic write on the routing key, as RabbitMQ), retained messages, routing through the same
 * Broker.publish as AMQP, and PUBACK for QoS 1. A QoS 1 message stored for a durable queue is
 * acknowledged only once the message store has synced it (as an AMQP confirm); PUBACKs go out in
 * the order the PUBLISH packets came (MQTT 3.1.1 §4.6), so one waiting for a sync holds back
 * those behind it.
 *
 * A QoS 1 PUBLISH sent again (DUP) while the first is still awaiting its PUBACK is not published
 * twice, as in RabbitMQ. QoS 2 (§4.3.3, the receiver's "method B"): the message is routed when the
 * PUBLISH comes, its packet id recorded in the session's QoS 2 state (saved for a persistent
 * session) before PUBREC goes; a PUBLISH with a recorded id is answered PUBREC and not routed
 * again, until PUBREL frees the id and PUBCOMP answers it. MQTT 5 No Local: the session names its own queues the message must skip.
 * A message published with RETAIN is remembered as such (MqttNode.publishedRetained) for
 * subscriptions with Retain As Published.
 *
 * RabbitMQ's answers: MQTT 5 gets PUBACK with a reason code (no matching subscribers, not
 * authorized, quota exceeded); MQTT 3.1.1 has no codes, so a refused publish closes the
 * connection and a publish refused by a full queue gets no PUBACK (the client resends it).
 */
import type { IPublishPacket, Packet } from "mqtt-packet";
import { type ChannelCounters, type ClientContext, type ProtocolCounters, PUBLISH_REFUSED, PUBLISH_STORED, PUBLISH_UNROUTED, type PublishFlow, type Queue, type SyncWaiter, type VHost } from "../broker/index.js";
import { messageFromPublish, payloadOf } from "./mqtt-message.js";
import type { MqttNode } from "./mqtt-node.js";
import { RC } from "./mqtt-reason-codes.js";
import { mqttToAmqp } from "./mqtt-topic.js";
import type { PacketWriter } from "./packet-writer.js";
import type { Qos2State, Qos2StateStore } from "./qos2-state-store.js";

/** What the publisher needs of its connection. */
export interface PublisherLink {
  readonly ctx: ClientContext;
  readonly v5: boolean;
  readonly isOpen: boolean;
  readonly flow: PublishFlow;
  send(packet: Packet): boolean;
  /** The output, for PUBACKs encoded without a packet object. */
  readonly packets: PacketWriter;
  /** The session queues a message with this routing key must not reach (No Local); null: none. */
  noLocalSkip(routingKey: string): readonly Queue[] | null;
  /** Closes the connection for a protocol or permission violation (MQTT 5: DISCONNECT with `reasonCode`). */
  violation(reasonCode: number, why: string): void;
  /** The session's QoS 2 packet-identifier state (qos2-state-store.ts). */
  readonly qos2: Qos2State;
}

/** A PUBACK (or, for QoS 2, PUBREC) owed: `code` -1 means none is sent (3.1.1, refused). */
interface OwedAck {
  readonly id: number;
  code: number;
  done: boolean;
  /** QoS 2: a PUBREC, sent once the packet id is recorded in the session's saved state. */
  readonly pubrec: boolean;
}

export class MqttPublisher implements SyncWaiter {
  private readonly routed: Queue[] = [];
  private readonly owed: OwedAck[] = [];
  /** The sync token of owed[0]. */
  private headToken = 0;
  /** Counted among the protocol's publishers since its first PUBLISH (RabbitMQ's publishers gauge). */
  private publishing = false;
  /** The routing key of the last topic published to (a memo of mqttToAmqp). */
  private lastTopic = "";
  private lastKey = "";
  /** Owed PUBRECs whose packet id is already in the inbound state (counted once for Receive Maximum). */
  private recordedOwed = 0;
  private readonly store: Qos2StateStore;

  constructor(
    private readonly node: MqttNode,
    private readonly link: PublisherLink,
    private readonly vhost: VHost,
    /** This protocol version's share of the broker's counters (Prometheus). */
    private readonly counters: ProtocolCounters,
    /** This connection's (its channel's message_stats in the management API). */
    private readonly channel: ChannelCounters,
  ) {
    this.store = node.qos2;
  }

  /** The connection closed. */
  closed(): void {
    if (this.publishing) this.counters.publishers--;
    this.publishing = false;
  }

  /** Publishes one PUBLISH packet; the topic was validated by the connection. */
  publish(p: IPublishPacket): void {
    if (p.qos !== 0) {
      if (p.qos === 2 && this.link.qos2.inbound.has(p.messageId!)) {
        // A resend before PUBREL: answered, not routed again [MQTT-4.3.3-9].
        this.owe(p.messageId!, RC.success, true, true);
        return;
      }
      if (p.dup && this.owed.some((a) => a.id === p.messageId)) return;
      // The Receive Maximum announced in CONNACK (mqtt.receive_maximum, §3.2.2.3.3): QoS 1 and 2
      // PUBLISH packets not yet answered by PUBACK or PUBCOMP beyond it end the connection (0x93).
      const max = this.node.settings.receiveMaximum;
      if (this.link.v5 && this.owed.length - this.recordedOwed + this.link.qos2.inbound.size >= max) {
        return this.link.violation(RC.receiveMaximumExceeded, `more than ${max} QoS 1 and 2 PUBLISH packets unacknowledged`);
      }
    }
    const broker = this.node.broker;
    const counters = this.counters;
    if (!this.publishing) {
      this.publishing = true;
      counters.publishers++;
    }
    // A publisher usually sends to one topic many times in a row.
    if (p.topic !== this.lastTopic) {
      this.lastTopic = p.topic;
      this.lastKey = mqttToAmqp(p.topic);
    }
    const key = this.lastKey;
    let x;
    try {
      x = broker.exchangeForPublish(this.link.ctx, this.vhost, this.node.settings.exchange, key);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      if (this.link.v5 && p.qos !== 0) {
        this.node.log.warn("MQTT publish refused", { topic: p.topic, reason: why });
        this.owe(p.messageId!, RC.notAuthorized, true, p.qos === 2);
      } else {
        this.link.violation(RC.notAuthorized, why);
      }
      return;
    }
    const now = Date.now();
    const payload = payloadOf(p);
    const message = messageFromPublish(p.qos, p.properties, payload, x.name, key, now);
    if (p.retain) {
      this.node.retained.retain(this.vhost.name, { topic: p.topic, qos: p.qos, payload, properties: message.properties, publishedAt: now });
      this.node.publishedRetained.add(message);
    }
    broker.stats.messageSizes.observe(message.bodySize);
    const outcome = broker.publish(this.vhost, x, message, this.routed, this.link.noLocalSkip(key));
    counters.publish++;
    this.channel.publish++;
    if (outcome !== PUBLISH_UNROUTED) {
      counters.routed++;
      this.link.flow.check(this.routed, this.routed.length);
    } else {
      counters.dropUnroutable++;
      this.channel.dropUnroutable++;
      broker.stats.dropUnroutable++;
      this.vhost.stats.dropUnroutable++;
    }
    if (p.qos === 0) return;
    counters.receivedConfirm++;
    broker.stats.receivedConfirm++;
    let code: number = RC.success;
    if (outcome === PUBLISH_UNROUTED && this.link.v5) code = RC.noMatchingSubscribers;
    else if (outcome === PUBLISH_REFUSED) code = this.link.v5 ? RC.quotaExceeded : -1;
    const stored = outcome === PUBLISH_STORED;
    const token = this.owe(p.messageId!, code, !stored, p.qos === 2);
    if (stored) broker.whenStored(this, token);
  }

  /** PUBREL: the packet id is free again; PUBCOMP goes once that is saved (MQTT 5: 0x92 for an unknown id). */
  released(id: number): void {
    const state = this.link.qos2;
    const known = state.inbound.delete(id);
    const pubcomp = (): void => {
      if (this.link.isOpen) this.link.send(this.link.v5 && !known ? { cmd: "pubcomp", messageId: id, reasonCode: RC.packetIdentifierNotFound } : { cmd: "pubcomp", messageId: id });
    };
    if (known) this.store.changed(state, pubcomp);
    else pubcomp();
  }

  /** Records an acknowledgement owed; returns its sync token. */
  private owe(id: number, code: number, done: boolean, pubrec: boolean): number {
    const token = this.headToken + this.owed.length;
    if (pubrec && done && code >= 0 && code < 0x80) {
      // A QoS 2 PUBREC goes only once its packet id is recorded (saved, for a persistent session).
      const a: OwedAck = { id, code, done: false, pubrec };
      this.owed.push(a);
      this.record(a);
      return token;
    }
    if (done && this.owed.length === 0) {
      // Nothing ahead of it (the usual case for a message no durable queue stored): sent at once.
      this.headToken++;
      if (this.link.isOpen) this.sendAck(id, code, pubrec);
      return token;
    }
    this.owed.push({ id, code, done, pubrec });
    if (done) this.sendReady();
    return token;
  }

  /** QoS 2: the packet id joins the inbound state; the PUBREC is ready once that is saved. */
  private record(a: OwedAck): void {
    const state = this.link.qos2;
    // Counted once against Receive Maximum while both owed and recorded (a resend too).
    state.inbound.add(a.id);
    this.recordedOwed++;
    this.store.changed(state, () => {
      a.done = true;
      this.sendReady();
    });
  }

  synced(token: number, ok: boolean): void {
    const i = token - this.headToken;
    const a = this.owed[i];
    if (a === undefined) return;
    if (!ok) a.code = this.link.v5 ? RC.unspecifiedError : -1;
    if (a.pubrec && a.code >= 0 && a.code < 0x80) return this.record(a);
    a.done = true;
    this.sendReady();
  }

  private sendReady(): void {
    const owed = this.owed;
    let n = 0;
    while (n < owed.length && owed[n]!.done) n++;
    if (n === 0) return;
    this.headToken += n;
    for (let i = 0; i < n; i++) {
      const a = owed[i]!;
      if (a.pubrec && a.code >= 0 && a.code < 0x80) this.recordedOwed--;
      if (this.link.isOpen) this.sendAck(a.id, a.code, a.pubrec);
    }
    if (n === owed.length) while (owed.length > 0) owed.pop();
    else owed.splice(0, n);
  }

  /** PUBACKs leave in the order their PUBLISHes came (MQTT 3.1.1 §4.6); code -1: none is sent. */
  private sendAck(id: number, code: number, pubrec: boolean): void {
    if (code < 0) return;
    if (code === RC.success || code === RC.noMatchingSubscribers) {
      this.counters.confirm++;
      this.channel.confirm++;
      this.node.broker.stats.confirm++;
      this.vhost.stats.confirm++;
    }
    if (pubrec) this.link.send(this.link.v5 && code !== RC.success ? { cmd: "pubrec", messageId: id, reasonCode: code } : { cmd: "pubrec", messageId: id });
    else if (code === RC.success) this.link.packets.sendPuback(id);
    else this.link.send(this.link.v5 ? { cmd: "puback", messageId: id, reasonCode: code } : { cmd: "puback", messageId: id });
  }
}
