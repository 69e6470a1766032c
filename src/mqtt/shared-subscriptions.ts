/**
 * A session's shared subscriptions `$share/<group>/<filter>` (MQTT 5 §4.8.2; accepted from MQTT
 * 3.1.1 clients too, as Mosquitto does). Each shared subscription is one queue per vhost, group
 * and filter, `mqtt-shared-<group>/<filter>`, bound to the MQTT exchange once per member session
 * (binding argument `x-mqtt-shared-member`: the member's client id, beside the MQTT 5 options).
 * Every member consumes from that queue, so the queue spreads the messages over the connected
 * members round-robin, each message to one of them; a member that goes has its unacknowledged
 * messages requeued, and they go to the others [MQTT-4.8.2-4..6]. Each member gets them at the
 * lower of its granted QoS and the message's.
 *
 * Lifetime: a member binding lasts as long as the member's session. A clean session leaves its
 * groups when its connection goes; a persistent one stays a member while away (messages still
 * go to the members connected, or wait in the queue when none is). The queue is deleted when its
 * last member leaves. It is durable, with the session expiry as x-expires, when the member that
 * created it had a persistent session; otherwise it is transient. Retained messages are not sent
 * on a shared subscription (Mosquitto and RabbitMQ 4 do not either).
 */
import type { ISubscription } from "mqtt-packet";
import { type Broker, deleteQueueAsync, type Queue, type QueueSpec, type VHost } from "../broker/index.js";
import type { FieldTable } from "../broker/values/field-value.js";
import type { MqttDeliveries } from "./mqtt-deliveries.js";
import type { MqttNode } from "./mqtt-node.js";
import { mqttToAmqp } from "./mqtt-topic.js";
import type { DeliveryLink } from "./mqtt-delivery-ports.js";
import { SHARED_QUEUE_PREFIX } from "./shared-queue-index.js";
import type { SharedFilter } from "./subscribe-checks.js";
import { OPTIONS_ARG, optionsOf, requestedSubscription, sameOptions, storedSubscription, type Subscription } from "./subscription-options.js";

export const MEMBER_ARG = "x-mqtt-shared-member";

export function sharedQueueName(s: SharedFilter): string {
  return `${SHARED_QUEUE_PREFIX}${s.group}/${s.filter}`;
}

/** One shared subscription of this session. */
interface Membership {
  readonly queue: string;
  readonly sub: Subscription;
}

/** What a member needs of its connection. */
export interface MemberLink extends DeliveryLink {
  readonly clientId: string;
}

export class SharedSubscriptions {
  /** The full `$share/…` filter → membership. */
  readonly memberships = new Map<string, Membership>();
  private readonly broker: Broker;
  private readonly exchange: string;

  constructor(
    private readonly node: MqttNode,
    private readonly link: MemberLink,
    private readonly vhost: VHost,
    /** Seconds; 0 = the session ends with the connection. */
    private readonly expiry: number,
    private readonly deliveries: MqttDeliveries,
  ) {
    this.broker = node.broker;
    this.exchange = node.settings.exchange;
  }

  /** CONNECT: the memberships a previous session of this client id left are taken up again, or left (clean start). Returns whether there were any. */
  open(cleanStart: boolean): boolean {
    let present = false;
    const names = this.node.sharedQueues.names(this.vhost);
    for (const name of names) {
      const q = this.vhost.queues.get(name);
      if (q === undefined) {
        names.delete(name);
        continue;
      }
      for (const b of [...q.boundFrom]) {
        if (b.source.name !== this.exchange || b.args[MEMBER_ARG] !== this.link.clientId) continue;
        const { subscription } = storedSubscription(b.args, 0, this.link.v5, b.routingKey);
        const q = optionsOf(b.args)?.["qos"];
        const qos = q === 1 || q === 2 ? q : 0;
        // The binding's own arguments, so that leaving finds it whatever protocol version made it.
        const sub: Subscription = { ...subscription, qos, args: b.args };
        if (cleanStart) this.leaveLogged(name, sub);
        else {
          this.memberships.set(`$share/${name.slice(SHARED_QUEUE_PREFIX.length)}`, { queue: name, sub });
          present = true;
        }
      }
    }
    return present;
  }

  /** Starts consuming from each group's queue (after CONNACK). */
  resume(): void {
    for (const m of this.memberships.values()) this.consume(m);
  }

  /**
   * SUBSCRIBE to `$share/<group>/<filter>`: joins the group (or changes this member's options).
   * Throws when refused. Consuming is left to `starts` (MqttSession.subscribe runs it once the
   * other nodes hold the queue).
   */
  subscribe(s: ISubscription, shared: SharedFilter, id: number, starts: Array<() => void>): Subscription {
    const queue = sharedQueueName(shared);
    const extra: FieldTable = { [MEMBER_ARG]: this.link.clientId };
    const wanted = requestedSubscription(s, this.link.v5, mqttToAmqp(shared.filter), id, extra);
    // A QoS field in the options table for 3.1.1 too: a resumed membership knows its QoS.
    if (!this.link.v5) wanted.args[OPTIONS_ARG] = { qos: wanted.qos };
    const existing = this.memberships.get(s.topic);
    if (existing !== undefined && sameOptions(existing.sub, wanted)) return wanted;
    const ctx = this.link.ctx;
    this.ensureQueue(queue);
    this.broker.bindQueue(ctx, this.vhost.name, queue, this.exchange, wanted.key, wanted.args);
    if (existing !== undefined) {
      this.broker.unbindQueue(ctx, this.vhost.name, queue, this.exchange, existing.sub.key, existing.sub.args);
      if (existing.sub.qos !== wanted.qos) this.deliveries.stopShared(queue);
    }
    const m = { queue, sub: wanted };
    this.memberships.set(s.topic, m);
    starts.push(() => this.consume(m));
    return wanted;
  }

  /** UNSUBSCRIBE: false when this session is no member. Throws when refused. */
  unsubscribe(filter: string): boolean {
    const m = this.memberships.get(filter);
    if (m === undefined) return false;
    this.deliveries.stopShared(m.queue);
    this.leave(m.queue, m.sub);
    this.memberships.delete(filter);
    return true;
  }

  /** The connection is gone (the deliveries have requeued what this member had not acknowledged): a clean session leaves its groups. */
  release(): void {
    if (this.expiry === 0) this.end();
  }

  /** The session ends: it leaves every group. */
  end(): void {
    for (const m of this.memberships.values()) this.leaveLogged(m.queue, m.sub);
    this.memberships.clear();
  }

  /** Leaving when the session goes: a refusal (permissions changed meanwhile) is logged, the rest goes on. */
  private leaveLogged(queue: string, sub: Subscription): void {
    try {
      this.leave(queue, sub);
    } catch (err) {
      this.node.log.warn("MQTT shared subscription not left", { queue, reason: err instanceof Error ? err.message : String(err) });
    }
  }

  private consume(m: Membership): void {
    this.deliveries.consumeShared(this.broker.queueForRead(this.link.ctx, this.vhost.name, m.queue), m.sub);
  }

  private ensureQueue(name: string): Queue {
    const existing = this.vhost.queues.get(name);
    if (existing !== undefined) return existing;
    const spec: QueueSpec = this.expiry === 0
      ? { name, durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }
      : { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: { "x-expires": this.expiry * 1000 } };
    const q = this.broker.declareQueue(this.link.ctx, this.vhost.name, spec, false).queue;
    this.node.sharedQueues.names(this.vhost).add(name);
    return q;
  }

  /** Unbinds this member; the queue goes with its last member. */
  private leave(queue: string, sub: Subscription): void {
    const q = this.vhost.queues.get(queue);
    if (q === undefined) return;
    this.broker.unbindQueue(this.link.ctx, this.vhost.name, queue, this.exchange, sub.key, sub.args);
    for (const b of q.boundFrom) if (b.args[MEMBER_ARG] !== undefined) return;
    this.node.sharedQueues.names(this.vhost).delete(queue);
    // A local queue goes at once; one led by another worker when its leader answers.
    deleteQueueAsync(this.broker, this.link.ctx, this.vhost.name, queue, { ifUnused: false, ifEmpty: false }).catch((err: unknown) =>
      this.node.log.warn("MQTT shared subscription queue not deleted", { queue, reason: err instanceof Error ? err.message : String(err) }),
    );
  }
}
