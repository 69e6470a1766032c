/**
 * An MQTT session's subscriptions, as RabbitMQ's MQTT plugin keeps them: one queue per
 * subscription QoS, `mqtt-subscription-<client id>qos0` and `…qos1` (and Coney's `…qos2`), bound to the MQTT exchange
 * with each topic filter as binding key (MQTT 5: with the subscription options as binding
 * arguments, subscription-options.ts). A session with no expiry (clean session) has exclusive
 * queues that go with the connection; a persistent one has durable queues with x-expires set to
 * the session expiry, so they survive the client's absence and a broker restart, and its
 * subscriptions are read back from the queues' bindings.
 *
 * MQTT 5 subscription options: Retain Handling decides whether SUBSCRIBE sends retained messages
 * (0 always, 1 for a new subscription, 2 never); No Local keeps the client's own publications out
 * of its queues (`skipFor`, used by the publisher); Retain As Published keeps the RETAIN flag on
 * deliveries (`keepsRetainFlag`, used by the deliveries). Both cost nothing while no subscription
 * of the session uses them. Deliveries themselves are mqtt-deliveries.ts; shared subscriptions
 * `$share/<group>/<filter>` are shared-subscriptions.ts. A Subscription Identifier (MQTT 5) is kept
 * with its subscription; deliveries ask `identifiersFor` only while one exists.
 */
import type { ISubscribePacket, IUnsubscribePacket, QoS } from "mqtt-packet";
import { definitionsFollowed, deleteQueueAsync, emptyChannelCounters, type Broker, type ChannelCounters, type ProtocolCounters, type Queue, type QueueSpec, type VHost } from "../broker/index.js";
import { BrokerError } from "../errors/broker-error.js";
import { MqttDeliveries } from "./mqtt-deliveries.js";
import type { DeliveryLink, RetainFlagRule } from "./mqtt-delivery-ports.js";
import type { MqttNode } from "./mqtt-node.js";
import { RC } from "./mqtt-reason-codes.js";
import { amqpToMqtt, bindingKeyMatches, mqttToAmqp } from "./mqtt-topic.js";
import { SharedSubscriptions } from "./shared-subscriptions.js";
import { sharedFilter } from "./subscribe-checks.js";
import { requestedSubscription, sameOptions, storedSubscription, type Subscription } from "./subscription-options.js";
import { admitsDollarTopic, identifiersFor, matchedHigher } from "./subscriptions-matching.js";

/** The session queues, one per subscription QoS. */
export const QOS_LEVELS: readonly QoS[] = [0, 1, 2];

/** The queue of a session's subscriptions at one QoS (RabbitMQ's name for it). */
export function sessionQueueName(clientId: string, qos: QoS): string {
  return `mqtt-subscription-${clientId}qos${qos}`;
}

/** What the session needs of its connection. */
export interface SessionLink extends DeliveryLink {
  readonly clientId: string;
  readonly isOpen: boolean;
}

export class MqttSession implements RetainFlagRule {
  /** Topic filter → subscription. */
  readonly subscriptions = new Map<string, Subscription>();
  retainAsPublishedCount = 0;
  identifiedCount = 0;
  /** Subscriptions per session queue (QoS), for `overlapping`. */
  private readonly perQos = [0, 0, 0];
  overlapping = false;
  /** Counted in the consumers gauge (recount). */
  private counted = false;
  private noLocalCount = 0;
  readonly deliveries: MqttDeliveries;
  readonly shared: SharedSubscriptions;
  /** This connection's message counters, shared with its publisher: the MQTT channel's message_stats (connection-record.ts). */
  readonly channelStats: ChannelCounters = emptyChannelCounters();
  private readonly skipped: Queue[] = [];
  private readonly broker: Broker;
  private readonly exchange: string;

  constructor(
    private readonly node: MqttNode,
    private readonly link: SessionLink,
    private readonly vhost: VHost,
    /** Seconds; 0 = the session ends with the connection. */
    private readonly expiry: number,
    /** QoS 1 deliveries unacknowledged at most (the management API shows it as the consumers' prefetch). */
    readonly prefetch: number,
    /** This protocol version's share of the broker's counters (Prometheus). */
    private readonly counters: ProtocolCounters,
  ) {
    this.broker = node.broker;
    this.exchange = node.settings.exchange;
    this.deliveries = new MqttDeliveries(node, link, vhost, prefetch, this, counters, this.channelStats);
    this.shared = new SharedSubscriptions(node, link, vhost, expiry, this.deliveries);
  }

  queueName(qos: QoS): string {
    return sessionQueueName(this.link.clientId, qos);
  }

  /**
   * CONNECT: a clean start deletes what a previous session left; otherwise the session's queues
   * and subscriptions are taken up again (bindings made by the other protocol version are re-made
   * in this one's form, as RabbitMQ does). Returns whether a session was present. Consuming starts
   * with `resume`, after CONNACK has gone out.
   */
  open(cleanStart: boolean): boolean {
    let present = this.shared.open(cleanStart);
    for (const qos of QOS_LEVELS) {
      const name = this.queueName(qos);
      const q = this.vhost.queues.get(name);
      if (!q) continue;
      if (cleanStart) {
        this.broker.deleteQueue(this.link.ctx, this.vhost.name, name, { ifUnused: false, ifEmpty: false });
        continue;
      }
      q.checkExclusiveAccess(this.owner);
      present = true;
      for (const b of [...q.boundFrom]) {
        if (b.source.name !== this.exchange) continue;
        const { subscription, rebind } = storedSubscription(b.args, qos, this.link.v5, b.routingKey);
        if (rebind) {
          this.broker.bindQueue(this.link.ctx, this.vhost.name, name, this.exchange, b.routingKey, subscription.args);
          this.broker.unbindQueue(this.link.ctx, this.vhost.name, name, this.exchange, b.routingKey, b.args);
        }
        this.remember(amqpToMqtt(b.routingKey), subscription);
      }
    }
    this.recount();
    return present;
  }

  private get owner(): object {
    return this.link.ctx.owner!;
  }

  /** See SessionConsumers.consumedQueueNames (connection-record.ts). */
  *consumedQueueNames(): Iterable<string> {
    for (const qos of QOS_LEVELS) yield this.queueName(qos);
    for (const m of this.shared.memberships.values()) yield m.queue;
  }

  /** Starts consuming from the session's existing queues. */
  resume(): void {
    this.deliveries.resendReleases();
    for (const qos of QOS_LEVELS) {
      if (this.vhost.queues.has(this.queueName(qos))) this.consume(qos);
    }
    this.shared.resume();
  }

  // ------------------------------------------------------------ subscribe / unsubscribe

  /**
   * SUBSCRIBE: binds each filter, answers SUBACK, then sends the retained messages its Retain
   * Handling asks for. On a node others follow (`--workers`, a spread cluster) SUBACK waits until
   * every node applied the new bindings (definitionsFollowed, as 0-9-1's bind-ok), so a message
   * published on any node once the client heard SUBACK reaches it; the promise resolves once sent.
   * Consuming starts then too, just before SUBACK: a queue this node declared for another worker
   * to lead exists there only once that worker applied the declare (a consume sent over the link
   * before it is refused "not found", and the session closed: paho's redelivery test under
   * `--workers 2`). On a single node it all happens in this turn, as before.
   */
  subscribe(p: ISubscribePacket): Promise<void> | null {
    const granted: number[] = [];
    const starts: Array<{ readonly index: number; readonly start: () => void }> = [];
    const later: Array<() => void> = [];
    const retainedFor: Array<[string, QoS]> = [];
    const id = this.link.v5 ? p.properties?.subscriptionIdentifier ?? 0 : 0;
    for (const s of p.subscriptions) {
      const shared = sharedFilter(s.topic);
      try {
        if (shared !== null && shared !== "invalid") {
          granted.push(this.shared.subscribe(s, shared, id, later).qos);
          for (const start of later.splice(0)) starts.push({ index: granted.length - 1, start });
          continue;
        }
        const wanted = requestedSubscription(s, this.link.v5, mqttToAmqp(s.topic), id);
        const existing = this.subscriptions.get(s.topic);
        if (existing === undefined || !sameOptions(existing, wanted)) this.replaceSubscription(s.topic, wanted, existing);
        granted.push(wanted.qos);
        starts.push({ index: granted.length - 1, start: () => this.consume(wanted.qos) });
        if (wanted.retainHandling === 0 || (wanted.retainHandling === 1 && existing === undefined)) retainedFor.push([s.topic, wanted.qos]);
      } catch (err) {
        granted.push(this.refused(s.topic, err));
      }
    }
    this.recount();
    const answer = (): void => {
      // The connection may have closed while the other nodes were asked.
      if (!this.link.isOpen) return;
      for (const { index, start } of starts) {
        try {
          start();
        } catch (err) {
          granted[index] = this.refused(p.subscriptions[index]!.topic, err);
        }
      }
      this.link.send({ cmd: "suback", messageId: p.messageId!, granted });
      const now = Date.now();
      for (const [filter, qos] of retainedFor) this.deliveries.sendRetained(this.node.retained.matching(this.vhost.name, filter, now), qos, now);
    };
    const followed = definitionsFollowed(this.broker);
    if (followed !== null) return followed.then(answer, answer);
    answer();
    return null;
  }

  /** A subscription refused: logged, and the SUBACK code that says so. */
  private refused(filter: string, err: unknown): number {
    this.node.log.warn("MQTT subscription refused", { clientId: this.link.clientId, topic: filter, reason: err instanceof Error ? err.message : String(err) });
    return this.link.v5 && err instanceof BrokerError && err.kind === "accessRefused" ? RC.notAuthorized : RC.unspecifiedError;
  }

  /**
   * Binds `filter` with the wanted options (consuming is the caller's, see `subscribe`); an existing subscription of the filter with other
   * options (another QoS, so another queue, or other MQTT 5 options, so other binding arguments)
   * is unbound once the new binding is in place (MQTT-3.8.4-3).
   */
  private replaceSubscription(filter: string, wanted: Subscription, existing: Subscription | undefined): void {
    const ctx = this.link.ctx;
    const queue = this.ensureQueue(wanted.qos);
    this.broker.bindQueue(ctx, this.vhost.name, queue.name, this.exchange, wanted.key, wanted.args);
    if (existing !== undefined) {
      this.broker.unbindQueue(ctx, this.vhost.name, this.queueName(existing.qos), this.exchange, existing.key, existing.args);
      this.forget(filter);
    }
    this.remember(filter, wanted);
  }

  /** UNSUBSCRIBE: unbinds each filter; MQTT 5 tells which ones existed. */
  unsubscribe(p: IUnsubscribePacket): void {
    const codes: number[] = [];
    for (const filter of p.unsubscriptions) {
      const sub = this.subscriptions.get(filter);
      try {
        if (sub === undefined) {
          codes.push(this.shared.unsubscribe(filter) ? RC.success : RC.noSubscriptionExisted);
          continue;
        }
        this.broker.unbindQueue(this.link.ctx, this.vhost.name, this.queueName(sub.qos), this.exchange, sub.key, sub.args);
        this.forget(filter);
        codes.push(RC.success);
      } catch (err) {
        codes.push(err instanceof BrokerError && err.kind === "accessRefused" ? RC.notAuthorized : RC.unspecifiedError);
      }
    }
    this.recount();
    if (this.link.v5) this.link.send({ cmd: "unsuback", messageId: p.messageId!, granted: codes });
    else this.link.send({ cmd: "unsuback", messageId: p.messageId!, granted: [] });
  }

  private remember(filter: string, sub: Subscription): void {
    this.subscriptions.set(filter, sub);
    this.recount();
    this.perQos[sub.qos]!++;
    this.overlapping = this.queuesInUse();
    if (sub.noLocal) this.noLocalCount++;
    if (sub.retainAsPublished) this.retainAsPublishedCount++;
    if (sub.id > 0) this.identifiedCount++;
  }

  private forget(filter: string): void {
    const sub = this.subscriptions.get(filter);
    if (sub === undefined) return;
    this.subscriptions.delete(filter);
    this.perQos[sub.qos]!--;
    this.overlapping = this.queuesInUse();
    this.recount();
    if (sub.noLocal) this.noLocalCount--;
    if (sub.retainAsPublished) this.retainAsPublishedCount--;
    if (sub.id > 0) this.identifiedCount--;
  }

  /** A session with subscriptions, shared ones included, counts as one consumer (RabbitMQ's consumers gauge for MQTT). */
  private recount(): void {
    const now = this.subscriptions.size > 0 || this.shared.memberships.size > 0;
    if (now === this.counted) return;
    this.counters.consumers += now ? 1 : -1;
    this.counted = now;
  }

  private ensureQueue(qos: QoS): Queue {
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

  private consume(qos: QoS): void {
    if (this.deliveries.isConsuming(qos)) return;
    this.deliveries.consume(this.broker.queueForRead(this.link.ctx, this.vhost.name, this.queueName(qos)), qos);
  }

  // ------------------------------------------------------------ options applied per message

  /**
   * No Local (MQTT-3.8.3-3): the session queues a message this client publishes with AMQP key
   * `routingKey` must skip, because every subscription of that queue it matches has No Local.
   * Null (nothing to skip) at once while no subscription has No Local.
   */
  skipFor(routingKey: string): readonly Queue[] | null {
    if (this.noLocalCount === 0) return null;
    const skipped = this.skipped;
    skipped.length = 0;
    for (const qos of QOS_LEVELS) {
      let local = false;
      let other = false;
      for (const sub of this.subscriptions.values()) {
        if (sub.qos !== qos || !bindingKeyMatches(sub.key, routingKey)) continue;
        if (sub.noLocal) local = true;
        else other = true;
      }
      const q = local && !other ? this.vhost.queues.get(this.queueName(qos)) : undefined;
      if (q !== undefined) skipped.push(q);
    }
    return skipped.length > 0 ? skipped : null;
  }

  /** Retain As Published: a subscription of the `qos` queue that the message matched asked to keep RETAIN. */
  keepsRetainFlag(qos: QoS, routingKey: string): boolean {
    for (const sub of this.subscriptions.values()) {
      if (sub.qos === qos && sub.retainAsPublished && bindingKeyMatches(sub.key, routingKey)) return true;
    }
    return false;
  }

  /**
   * MQTT 3.1.1 only: MQTT 5 may send a copy per matching subscription (§3.3.4), and does, one per
   * session queue, as RabbitMQ does.
   */
  private queuesInUse(): boolean {
    const p = this.perQos;
    return !this.link.v5 && (p[0]! > 0 ? 1 : 0) + (p[1]! > 0 ? 1 : 0) + (p[2]! > 0 ? 1 : 0) > 1;
  }

  /** See RetainFlagRule.matchedHigher. */
  matchedHigher(qos: QoS, routingKey: string): boolean {
    return matchedHigher(this.subscriptions.values(), qos, routingKey);
  }

  /** See RetainFlagRule.identifiersFor. */
  identifiersFor(qos: QoS, routingKey: string): number[] | null {
    return identifiersFor(this.subscriptions.values(), qos, routingKey);
  }

  /** See RetainFlagRule.admitsDollarTopic. */
  admitsDollarTopic(qos: QoS, routingKey: string): boolean {
    return admitsDollarTopic(this.subscriptions.values(), qos, routingKey);
  }

  /**
   * MQTT 5 DISCONNECT with a new, non-zero session expiry (§3.14.2.2.2): the session queues expire
   * after the new interval, as RabbitMQ updates their x-expires.
   */
  changeExpiry(seconds: number): void {
    for (const qos of QOS_LEVELS) {
      const name = this.queueName(qos);
      if (!this.vhost.queues.has(name)) continue;
      try {
        this.broker.changeQueueExpires(this.link.ctx, this.vhost.name, name, seconds * 1000);
      } catch (err) {
        this.node.log.warn("MQTT session expiry not changed", { queue: name, reason: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** The session ends now (MQTT 5 DISCONNECT with session expiry 0): its queues are deleted. */
  end(): void {
    this.shared.end();
    for (const qos of QOS_LEVELS) {
      const name = this.queueName(qos);
      if (!this.vhost.queues.has(name)) continue;
      // A local queue goes at once; one led by another worker when its leader answers.
      deleteQueueAsync(this.broker, this.link.ctx, this.vhost.name, name, { ifUnused: false, ifEmpty: false }).catch((err: unknown) =>
        this.node.log.warn("MQTT session queue not deleted", { queue: name, reason: err instanceof Error ? err.message : String(err) }),
      );
    }
  }

  /** The connection is gone: see MqttDeliveries.release. */
  release(): void {
    this.deliveries.release();
    this.shared.release();
    if (this.counted) this.counters.consumers--;
    this.counted = false;
  }
}
