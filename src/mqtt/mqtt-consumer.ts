/**
 * The queue-facing side of an MQTT session's subscription queue: one per session queue
 * (`…qos0` consumed without acks, `…qos1` with acks by PUBACK, `…qos2` settled at PUBREC), or on a
 * shared subscription's queue (shared-subscriptions.ts). Capacity is the session's to
 * decide (prefetch, a backed-up socket); the consumer only forwards to it.
 */
import type { QoS } from "mqtt-packet";
import { generateConsumerTag, type Queue, type QueueConsumer, type QueueEntry } from "../broker/index.js";
import type { Subscription } from "./subscription-options.js";

/** What a consumer hands its deliveries to: the MQTT session. */
export interface DeliveryTarget {
  /** The connection, for exclusive-queue checks. */
  readonly owner: object;
  canTake(c: MqttConsumer): boolean;
  deliver(c: MqttConsumer, queue: Queue, entry: QueueEntry): void;
  consumerGone(c: MqttConsumer): void;
}

export class MqttConsumer implements QueueConsumer {
  /** A server-generated tag, as RabbitMQ's MQTT plugin gives its consumers (unique on the channel the API lists, session-channel.ts). */
  readonly tag = generateConsumerTag();
  readonly exclusive = false;
  readonly priority = 0;
  /** QoS 1 deliveries not yet acknowledged by PUBACK. */
  unackedCount = 0;
  readonly noAck: boolean;

  constructor(
    private readonly target: DeliveryTarget,
    readonly queue: Queue,
    /** The session queue's QoS (a shared subscription's granted QoS): 0 consumes without acks. */
    readonly qos: QoS,
    /** The shared subscription this consumer serves; null on a session queue. */
    readonly shared: Subscription | null = null,
  ) {
    this.noAck = qos === 0;
  }

  get owner(): object {
    return this.target.owner;
  }

  canTake(): boolean {
    return this.target.canTake(this);
  }

  deliver(queue: Queue, entry: QueueEntry): void {
    this.target.deliver(this, queue, entry);
  }

  cancelledByQueue(_queue: Queue): void {
    this.target.consumerGone(this);
  }
}
