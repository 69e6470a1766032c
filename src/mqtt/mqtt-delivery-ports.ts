/**
 * What an MQTT session's deliveries (mqtt-deliveries.ts) need of the rest of the session: of the
 * connection (its context, protocol version, output and QoS 2 state: DeliveryLink) and of the
 * session's subscriptions (which flags and identifiers a delivery carries, and which queue of
 * overlapping subscriptions delivers it: RetainFlagRule). The connection and the session
 * (mqtt-session.ts) implement them, so the deliveries know neither class.
 */
import type { Packet, QoS } from "mqtt-packet";
import type { ClientContext } from "../broker/index.js";
import type { PacketWriter } from "./packet-writer.js";
import type { Qos2State } from "./qos2-state-store.js";

/** What the deliveries need of the connection. */
export interface DeliveryLink {
  readonly ctx: ClientContext;
  readonly v5: boolean;
  /** False while the socket is backed up. */
  readonly writable: boolean;
  /** Sends a packet; false when it was too large for the client and dropped. */
  send(packet: Packet): boolean;
  /** The session's QoS 2 packet-identifier state. */
  readonly qos2: Qos2State;
  /** The output, for the per-message PUBLISH encoded without a packet object. */
  readonly packets: PacketWriter;
  /**
   * A queue the session consumed from ended its consumer (deleted, its leader lost, or its declare
   * lost to another node's in a spread cluster): RabbitMQ's MQTT plugin closes the connection then
   * (3.10: `subscription_cancelled`; later `consuming_queue_down`), so the client reconnects.
   */
  consumingQueueDown(queue: string): void;
}

/** What the deliveries ask of the session's subscriptions. */
export interface RetainFlagRule {
  /** How many subscriptions have Retain As Published: while 0, nothing per delivery is looked up. */
  readonly retainAsPublishedCount: number;
  /** Whether a message published with RETAIN keeps the flag on its way through the `qos` queue (`routingKey`: its AMQP key). */
  keepsRetainFlag(qos: QoS, routingKey: string): boolean;
  /**
   * Whether a message with this `$…` routing key came through a subscription of the `qos` queue
   * whose filter does not start with a wildcard [MQTT-4.7.2-1]; only asked for `$` topics.
   */
  admitsDollarTopic(qos: QoS, routingKey: string): boolean;
  /** MQTT 3.1.1 with subscriptions in more than one session queue: overlaps are looked up. */
  readonly overlapping: boolean;
  /** Whether a subscription of a queue of higher QoS than `qos` also matches (that queue delivers it). */
  matchedHigher(qos: QoS, routingKey: string): boolean;
  /** How many subscriptions have a Subscription Identifier: while 0, nothing per delivery is looked up. */
  readonly identifiedCount: number;
  /** The identifiers of the `qos` queue's subscriptions that match; null when none has one. */
  identifiersFor(qos: QoS, routingKey: string): number[] | null;
}
