/**
 * A virtual host: its exchanges, queues and the bindings between them, plus its policies and
 * parameters. This class holds state and routes; permission checks and persistence belong to
 * the Broker's operations (operations/), the only callers of the mutating methods.
 */
import type { FieldTable } from "./values/field-value.js";
import type { MessageProperties } from "./values/message-properties.js";
import { Binding } from "./binding.js";
import { DefaultExchange } from "./exchange/default-exchange.js";
import type { Destination, Exchange, ExchangeBinding } from "./exchange/exchange.js";
import { createExchange } from "./exchange/exchange-types.js";
import { StreamQueue } from "./streams/stream-queue.js";
import { RemoteStreamQueue } from "./streams/remote-stream-queue.js";
import { MessageQueue } from "./queue/queue.js";
import type { ForwardedPublishes } from "./queue/forwarded-publishes.js";
import type { QueueLeaderPort } from "./queue/queue-leader-port.js";
import { RemoteQueue } from "./queue/remote-queue.js";
import type { Queue, QueueHost } from "./queue/queue-type.js";
import type { QueueSpec } from "./queue/queue-spec.js";
import { queueGroupOf } from "./queue/placement.js";

export interface VHostMetadata {
  description: string;
  tags: string[];
  defaultQueueType: string;
  tracing: boolean;
}

export interface PolicyRecord {
  readonly vhost: string;
  readonly name: string;
  readonly pattern: string;
  readonly applyTo: string;
  readonly definition: Record<string, unknown>;
  readonly priority: number;
}

/**
 * A vhost's message counters: RabbitMQ keeps the same set per vhost (vhost_stats_fine_stats and
 * vhost_stats_deliver_stats), so a user's overview can add up only the vhosts it may see. Each
 * event is one field increment beside the channel's and the broker's own.
 */
export class VHostStats {
  publish = 0;
  confirm = 0;
  returnUnroutable = 0;
  dropUnroutable = 0;
  deliver = 0;
  deliverNoAck = 0;
  get = 0;
  getNoAck = 0;
  ack = 0;
  redeliver = 0;
  getEmpty = 0;
  recvOct = 0;
  sendOct = 0;
}

/** The exchanges RabbitMQ predeclares in every vhost (name, type, internal). */
const PREDECLARED: ReadonlyArray<readonly [string, string, boolean]> = [
  ["amq.direct", "direct", false],
  ["amq.fanout", "fanout", false],
  ["amq.topic", "topic", false],
  ["amq.headers", "headers", false],
  ["amq.match", "headers", false],
  ["amq.rabbitmq.trace", "topic", true],
];

const NO_BINDINGS: readonly ExchangeBinding[] = Object.freeze([]);

export class VHost {
  readonly exchanges = new Map<string, Exchange>();
  readonly queues = new Map<string, Queue>();
  readonly defaultExchange: DefaultExchange;
  readonly policies = new Map<string, PolicyRecord>();
  readonly operatorPolicies = new Map<string, PolicyRecord>();
  /** component → name → value (vhost-scoped runtime parameters). */
  readonly parameters = new Map<string, Map<string, unknown>>();
  readonly stats = new VHostStats();
  private epoch = 0;
  /** The queues sorted by name, built on demand and dropped when a queue comes or goes. */
  private sortedQueues: Queue[] | null = null;
  /** Exclusive queues by owning connection (invariant: exactly the queues here whose exclusiveOwner is the key). */
  private readonly exclusiveQueues = new Map<object, Set<Queue>>();
  /** Scratch stack reused by every route() call, so routing allocates nothing per message. */
  private readonly scratch: Destination[] = [];

  constructor(readonly name: string, public metadata: VHostMetadata, private readonly queueHost: QueueHost) {
    this.defaultExchange = new DefaultExchange(name, this.queues);
    this.exchanges.set("", this.defaultExchange);
    for (const [xName, type, internal] of PREDECLARED) {
      this.exchanges.set(xName, createExchange(name, { name: xName, type, durable: true, autoDelete: false, internal, arguments: {} })!);
    }
  }

  addExchange(x: Exchange): void {
    this.exchanges.set(x.name, x);
  }

  /** Removes an exchange and every binding that touches it; returns the bindings removed. */
  removeExchange(x: Exchange): ExchangeBinding[] {
    this.exchanges.delete(x.name);
    x.dispose();
    const removed = [...x.bindings.values(), ...x.boundFrom];
    for (const b of removed) this.detach(b);
    return removed;
  }

  /**
   * Declares a queue in the group its host places it in (queue-groups.ts); a queue another node
   * leads (QueueHost.leaderElsewhere: `coney --workers N`) is held here as a RemoteQueue.
   */
  addQueue(declared: QueueSpec): Queue {
    const elsewhere = this.queueHost.leaderElsewhere?.(this.name, declared) ?? null;
    if (elsewhere !== null) {
      return this.addRemoteQueue({ ...declared, group: null }, elsewhere.port, elsewhere.forwards, null);
    }
    const spec: QueueSpec = { ...declared, group: this.queueHost.placeQueue(this.name, declared) };
    const q = spec.arguments["x-queue-type"] === "stream" ? new StreamQueue(this.name, spec, this.queueHost) : new MessageQueue(this.name, spec, this.queueHost);
    this.queues.set(q.name, q);
    this.sortedQueues = null;
    this.noteOwner(q);
    return q;
  }

  /** An exclusive queue is found by its owner when the owner goes (a connection closes, a node is lost). */
  private noteOwner(q: Queue): void {
    if (q.exclusiveOwner === null) return;
    const owned = this.exclusiveQueues.get(q.exclusiveOwner);
    if (owned) owned.add(q);
    else this.exclusiveQueues.set(q.exclusiveOwner, new Set([q]));
  }

  /**
   * Holds a RemoteQueue for a queue led by another node (Broker.leadQueueElsewhere); a `replaced`
   * one (the queue's group moved) hands its bindings over, so routing finds the new one.
   */
  addRemoteQueue(spec: QueueSpec, leader: QueueLeaderPort, forwards: ForwardedPublishes, replaced: Queue | null): Queue {
    const q = spec.arguments["x-queue-type"] === "stream" ? new RemoteStreamQueue(this.name, spec, this.queueHost, leader, forwards) : new RemoteQueue(this.name, spec, this.queueHost, leader, forwards);
    const bindings = replaced === null ? [] : [...replaced.boundFrom];
    if (replaced !== null) this.removeQueue(replaced);
    this.queues.set(q.name, q);
    this.sortedQueues = null;
    this.noteOwner(q);
    for (const b of bindings) {
      const e = b as ExchangeBinding;
      this.attach(new Binding(e.source, q, e.routingKey, e.args));
    }
    return q;
  }

  /** The exclusive queues `owner` (a connection) declared here, so its close finds them without a scan. */
  exclusiveQueuesOf(owner: object): readonly Queue[] {
    const owned = this.exclusiveQueues.get(owner);
    return owned ? [...owned] : [];
  }

  /**
   * A queue that the vhost neither lists nor routes to, sharing its queue host (and so the message
   * store): the x-delayed-message exchange keeps its held messages in one (delayed/).
   */
  internalQueue(spec: QueueSpec): Queue {
    // Not a listed queue, so not counted in any group's load: its group is the name's hash, the same at every boot.
    const journal = this.queueHost.journal;
    return new MessageQueue(this.name, { ...spec, group: journal?.nodeGroup ?? queueGroupOf(this.name, spec.name, journal?.groups ?? 1) }, this.queueHost);
  }

  /**
   * The queues in name order (code-unit order, as the management API sorts), cached between
   * changes to the set of queues, so paging through 10,000 queues does not sort them per page.
   */
  queuesByName(): readonly Queue[] {
    return (this.sortedQueues ??= [...this.queues.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  }

  /** Removes a queue and its bindings; returns the bindings removed. */
  removeQueue(q: Queue): readonly ExchangeBinding[] {
    if (this.queues.get(q.name) === q) this.queueHost.queueRemoved(q);
    this.queues.delete(q.name);
    this.sortedQueues = null;
    if (q.exclusiveOwner !== null) {
      const owned = this.exclusiveQueues.get(q.exclusiveOwner);
      if (owned?.delete(q) && owned.size === 0) this.exclusiveQueues.delete(q.exclusiveOwner);
    }
    // attach() is the only writer of boundFrom, and it adds ExchangeBindings; the queue types
    // the set loosely only because queue.ts sits below exchange.ts.
    if (q.boundFrom.size === 0) return NO_BINDINGS;
    const removed = [...q.boundFrom] as ExchangeBinding[];
    for (const b of removed) this.detach(b);
    return removed;
  }

  /** Adds a binding; false when it already existed. */
  attach(b: ExchangeBinding): boolean {
    if (!b.source.bind(b)) return false;
    b.destination.boundFrom.add(b);
    b.source.bindingsWatcher?.();
    return true;
  }

  detach(b: ExchangeBinding): boolean {
    const had = b.source.unbind(b);
    b.destination.boundFrom.delete(b);
    if (had) b.source.bindingsWatcher?.();
    return had;
  }

  findBinding(source: Exchange, destination: Destination, routingKey: string, args: FieldTable): ExchangeBinding | undefined {
    return source.bindings.get(Binding.keyOf(destination, routingKey, args));
  }

  /** Every binding in the vhost, including the default exchange's implicit ones when asked. */
  *bindings(): IterableIterator<ExchangeBinding> {
    for (const x of this.exchanges.values()) yield* x.bindings.values();
  }

  /**
   * Routes one message from `x` into `out` (each queue at most once). Exchange-to-exchange
   * bindings are followed, each exchange at most once per message (cycles are harmless), and an
   * exchange that routes nowhere hands the message to its alternate exchange (if it exists).
   */
  route(x: Exchange, routingKey: string, properties: MessageProperties, out: Queue[]): void {
    const epoch = ++this.epoch;
    this.routeFrom(x, routingKey, properties, out, epoch);
  }

  private routeFrom(x: Exchange, routingKey: string, properties: MessageProperties, out: Queue[], epoch: number): void {
    x.routeEpoch = epoch;
    const scratch = this.scratch;
    const start = scratch.length;
    const before = out.length;
    x.route(routingKey, properties, scratch);
    const end = scratch.length;
    let routedHere = false;
    for (let i = start; i < end; i++) {
      const d = scratch[i]!;
      routedHere = true;
      if (d.routeEpoch === epoch) continue;
      if (d.kind === "queue") {
        d.routeEpoch = epoch;
        out.push(d);
      } else {
        this.routeFrom(d, routingKey, properties, out, epoch);
      }
    }
    while (scratch.length > start) scratch.pop(); // not a length store: see Broker.route
    if ((!routedHere || out.length === before) && x.alternateExchange !== null) {
      const ae = this.exchanges.get(x.alternateExchange);
      if (ae && ae.routeEpoch !== epoch) this.routeFrom(ae, routingKey, properties, out, epoch);
    }
  }
}
