/**
 * An endpoint on the broker this link runs in (an `amqp://` URI with no host): it calls the
 * domain's operations directly, no TCP to itself. It consumes as a QueueConsumer (its own
 * delivery tags, a prefetch, settle/requeue/discard on the queue) and publishes through
 * exchangeForPublish/publish, confirming a stored message when the store has synced it
 * (whenStored), as a channel in confirm mode does. It acts as RabbitMQ's direct connection:
 * with no user in the URI as the broker itself, with one as that user (their permissions), and
 * listed as one in the management API while it is open (direct-connection.ts).
 */
import { PermissionChecker } from "../auth/permission-check.js";
import { BrokerError } from "../errors/broker-error.js";
import {
  PUBLISH_REFUSED,
  PUBLISH_STORED,
  createMessage,
  deleteQueueAsync,
  emptyChannelCounters,
  generateConsumerTag,
  type Blockable,
  type Broker,
  type ClientContext,
  type Queue,
  type QueueConsumer,
  type QueueEntry,
  type SyncWaiter,
} from "../broker/index.js";
import type { FieldTable } from "../broker/values/field-value.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import type { Body } from "../broker/values/message-body.js";
import type { AmqpUri } from "./amqp-uri.js";
import { DirectConnection, type DirectEndpointState } from "./direct-connection.js";
import type { Confirmed, ConsumeOptions, Endpoint, EndpointOptions, ExchangeOptions, LinkDelivery, QueueOptions } from "./endpoint.js";

/** The broker acting for its own links: every vhost, every permission (RabbitMQ's direct connection without a user). */
function systemContext(broker: Broker, owner: object): ClientContext {
  const system = { name: "rmq-internal", passwordHash: "", hashingAlgorithm: "rabbit_password_hashing_sha256" as const, tags: ["administrator"], limits: {}, isInternal: false };
  const grants = { hasVhostAccess: () => true, grantFor: () => "a shovel or federation link (runs as the broker)" };
  return { permissions: new PermissionChecker(broker.users, system, grants), owner, actor: { user: "rmq-internal", authMethod: "internal", source: "internal", peer: "" } };
}

function contextFor(broker: Broker, uri: AmqpUri, owner: object): ClientContext {
  if (uri.username === null) return systemContext(broker, owner);
  const permissions = broker.checkerFor(uri.username);
  return { permissions, owner, actor: { user: uri.username, authMethod: "internal", source: "internal", peer: "" } };
}

export function openLocalEndpoint(broker: Broker, uri: AmqpUri, opts: EndpointOptions): Endpoint {
  if (!broker.vhosts.has(uri.vhost)) throw new BrokerError("notFound", `no vhost '${uri.vhost}'`);
  return new LocalEndpoint(broker, uri, opts);
}

interface HeldPublish {
  readonly exchange: string;
  readonly routingKey: string;
  readonly properties: MessageProperties;
  readonly body: Body;
  readonly confirmed: Confirmed;
}

class LocalEndpoint implements Endpoint, QueueConsumer<Queue>, SyncWaiter, Blockable {
  readonly local = true;
  readonly uri: string;
  onDown: ((reason: string) => void) | null = null;
  // QueueConsumer
  readonly tag = generateConsumerTag();
  noAck = false;
  readonly exclusive = false;
  readonly priority = 0;
  readonly owner: object = this;
  private readonly ctx: ClientContext;
  private readonly vhost: string;
  private queue: Queue | null = null;
  private prefetch = 0;
  /** The consumer's arguments (x-stream-offset: where a shovel out of a stream starts), read by the queue. */
  args: Record<string, unknown> = {};
  private onDelivery: ((d: LinkDelivery) => void) | null = null;
  /** Unacked deliveries by tag, in delivery order (tags increase). */
  private readonly unacked = new Map<number, QueueEntry>();
  private nextTag = 1;
  private readonly scratch: Queue[] = [];
  private readonly waiting = new Map<number, Confirmed>();
  private nextToken = 1;
  private ended = false;
  /** Publishes waiting for the node's alarms to clear, in order; bounded by the caller's prefetch. */
  private held: HeldPublish[] = [];
  private holding = false;
  /** Its channel's message counters, as the management API shows the direct connection's. */
  private readonly stats = emptyChannelCounters();
  private readonly direct: DirectConnection;

  constructor(private readonly broker: Broker, uri: AmqpUri, private readonly opts: EndpointOptions) {
    this.uri = uri.display;
    this.vhost = uri.vhost;
    this.ctx = contextFor(broker, uri, this);
    this.direct = new DirectConnection(broker.connections.node, uri.vhost, uri.username ?? "none", opts.name, () => this.directState(), (reason) => this.down(reason));
    broker.connections.add(this.direct);
  }

  private directState(): DirectEndpointState {
    const q = this.queue;
    const consumer =
      q === null || this.onDelivery === null
        ? null
        : { tag: this.tag, queue: q.name, vhost: q.vhost, ackRequired: !this.noAck, exclusive: false, prefetchCount: this.prefetch, priority: 0, arguments: this.args as FieldTable, activity: q.consumerActivity(this) };
    return { consumer, unacked: this.unacked.size, prefetch: this.prefetch, stats: this.stats };
  }

  // ---------------------------------------------------------------- topology

  async ensureQueue(name: string, args: FieldTable = {}): Promise<number> {
    try {
      return this.broker.declareQueue(this.ctx, this.vhost, { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: {} }, true).queue.messageCount;
    } catch (err) {
      if (!(err instanceof BrokerError) || err.kind !== "notFound") throw err;
    }
    this.broker.declareQueue(this.ctx, this.vhost, { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: args }, false);
    return 0;
  }

  async declareQueue(name: string, o: QueueOptions): Promise<{ name: string; messages: number }> {
    const spec = { name, durable: o.durable ?? true, autoDelete: o.autoDelete ?? false, exclusiveOwner: o.exclusive ? this : null, arguments: o.args ?? {} };
    const { queue } = this.broker.declareQueue(this.ctx, this.vhost, spec, false);
    return { name: queue.name, messages: queue.messageCount };
  }

  async declareExchange(name: string, type: string, o: ExchangeOptions): Promise<void> {
    this.broker.declareExchange(this.ctx, this.vhost, { name, type, durable: o.durable ?? true, autoDelete: o.autoDelete ?? false, internal: o.internal ?? false, arguments: o.args ?? {} }, false);
  }

  async ensureExchange(name: string, type: string, o: ExchangeOptions): Promise<void> {
    if (this.broker.vhost(this.vhost).exchanges.has(name)) return;
    await this.declareExchange(name, type, o);
  }

  async bindQueue(queue: string, exchange: string, key: string, args: FieldTable = {}): Promise<void> {
    this.broker.bindQueue(this.ctx, this.vhost, queue, exchange, key, args);
  }

  async unbindQueue(queue: string, exchange: string, key: string, args: FieldTable = {}): Promise<void> {
    this.broker.unbindQueue(this.ctx, this.vhost, queue, exchange, key, args);
  }

  async bindExchange(destination: string, source: string, key: string, args: FieldTable = {}): Promise<void> {
    this.broker.bindExchange(this.ctx, this.vhost, destination, source, key, args);
  }

  async unbindExchange(destination: string, source: string, key: string, args: FieldTable = {}): Promise<void> {
    this.broker.unbindExchange(this.ctx, this.vhost, destination, source, key, args);
  }

  async deleteQueue(name: string): Promise<void> {
    // Led by another worker: deleted there (a round trip).
    await deleteQueueAsync(this.broker, this.ctx, this.vhost, name, { ifUnused: false, ifEmpty: false });
  }

  async deleteExchange(name: string): Promise<void> {
    this.broker.deleteExchange(this.ctx, this.vhost, name, false);
  }

  // ---------------------------------------------------------------- consuming

  async consume(queue: string, o: ConsumeOptions, onDelivery: (d: LinkDelivery) => void): Promise<void> {
    const q = this.broker.queueForRead(this.ctx, this.vhost, queue);
    this.noAck = o.noAck;
    this.prefetch = o.prefetch;
    this.args = o.args ?? {};
    this.onDelivery = onDelivery;
    this.queue = q;
    q.addConsumer(this);
  }

  async cancel(): Promise<void> {
    this.queue?.removeConsumer(this);
    this.onDelivery = null;
  }

  canTake(): boolean {
    return !this.ended && this.onDelivery !== null && (this.noAck || this.prefetch === 0 || this.unacked.size < this.prefetch);
  }

  deliver(_queue: Queue, entry: QueueEntry): void {
    const tag = this.nextTag++;
    if (entry.redelivered) this.stats.redeliver++;
    if (this.noAck) this.stats.deliverNoAck++;
    else {
      this.stats.deliver++;
      this.unacked.set(tag, entry);
    }
    const m = entry.message;
    this.onDelivery?.({ tag, exchange: m.exchange, routingKey: m.routingKey, properties: m.properties, body: m.body, redelivered: entry.redelivered });
  }

  cancelledByQueue(): void {
    this.queue = null;
    this.unacked.clear();
    this.down("the source queue was deleted");
  }

  ack(tag: number, multiple: boolean): void {
    const q = this.queue;
    if (q === null) return;
    if (multiple) {
      for (const [t, e] of this.unacked) {
        if (t > tag) break;
        this.unacked.delete(t);
        q.settle(e);
        this.stats.ack++;
      }
    } else {
      const e = this.unacked.get(tag);
      if (!e) return;
      this.unacked.delete(tag);
      q.settle(e);
      this.stats.ack++;
    }
    q.dispatch();
  }

  nack(tag: number, requeue: boolean): void {
    const q = this.queue;
    const e = this.unacked.get(tag);
    if (q === null || !e) return;
    this.unacked.delete(tag);
    if (requeue) q.requeue([e]);
    else q.discard(e);
    q.dispatch();
  }

  // ---------------------------------------------------------------- publishing

  publish(exchange: string, routingKey: string, properties: MessageProperties, body: Body, confirmed: Confirmed): void {
    if (this.ended) return;
    const alarms = this.opts.alarms;
    if (alarms && (this.held.length > 0 || alarms.reason !== null)) {
      // A memory or disk alarm blocks this endpoint as it blocks a publishing connection.
      this.held.push({ exchange, routingKey, properties, body, confirmed });
      if (!this.holding) {
        this.holding = true;
        alarms.hold(this);
      }
      return;
    }
    this.publishNow(exchange, routingKey, properties, body, confirmed);
  }

  /** Called by the alarms when every alarm has cleared: the held publishes go, in order. */
  unblock(): void {
    this.holding = false;
    const held = this.held;
    this.held = [];
    for (let i = 0; i < held.length; i++) {
      if (this.ended) return;
      const alarms = this.opts.alarms;
      if (alarms && alarms.reason !== null) {
        // An alarm came back while releasing: the rest waits again.
        this.held = held.slice(i);
        this.holding = true;
        alarms.hold(this);
        return;
      }
      const h = held[i]!;
      this.publishNow(h.exchange, h.routingKey, h.properties, h.body, h.confirmed);
    }
  }

  private publishNow(exchange: string, routingKey: string, properties: MessageProperties, body: Body, confirmed: Confirmed): void {
    let result: number;
    try {
      const v = this.broker.vhost(this.vhost);
      const x = this.broker.exchangeForPublish(this.ctx, v, exchange, routingKey);
      result = this.broker.publish(v, x, createMessage(exchange, routingKey, properties, null, body, this.broker.now()), this.scratch);
      this.stats.publish++;
    } catch (err) {
      // RabbitMQ closes the channel (a missing exchange, no permission): the link goes down with why.
      this.down(err instanceof Error ? err.message : String(err));
      return;
    }
    if (result === PUBLISH_REFUSED) confirmed(!this.opts.confirms);
    else if (result === PUBLISH_STORED && this.opts.confirms) {
      const token = this.nextToken++;
      this.waiting.set(token, confirmed);
      this.broker.whenStored(this, token);
    } else confirmed(true);
  }

  synced(token: number, ok: boolean): void {
    const confirmed = this.waiting.get(token);
    if (!confirmed) return;
    this.waiting.delete(token);
    if (!this.ended) confirmed(ok);
  }

  // ---------------------------------------------------------------- life

  private release(): void {
    this.ended = true;
    const q = this.queue;
    this.queue = null;
    if (q !== null) {
      q.removeConsumer(this);
      const held = [...this.unacked.values()];
      this.unacked.clear();
      q.requeue(held);
    }
    this.waiting.clear();
    // Held publishes were never confirmed: their deliveries go back to the source when it closes.
    this.held = [];
    if (this.holding) this.opts.alarms?.release(this);
    this.holding = false;
    this.broker.ownerClosed(this);
    this.broker.connections.remove(this.direct);
  }

  private down(reason: string): void {
    if (this.ended) return;
    this.release();
    this.onDown?.(reason);
  }

  async close(): Promise<void> {
    if (!this.ended) this.release();
  }
}
