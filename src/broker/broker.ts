/**
 * The Broker: the domain core that every transport calls. Its state and administration (access,
 * vhosts, users and permissions, policies, parameters) are BrokerAdministration's
 * (broker-administration.ts); this class adds the topology — exchanges, bindings, queues, and
 * queues led by another node — and publishing. Each operation is one method, so names,
 * equivalence and permissions are checked in one place for AMQP, HTTP and every later protocol
 * alike, in the spec's order: authentication (done by the caller's login) → vhost access → the
 * pattern of the needed kind.
 *
 * The operations are written in operations/, one module per concept; each method here hands over
 * to one of them. Publishing is the exception: route() and publish() run per message and stay
 * here as a direct call chain into the vhost's router and the queues.
 *
 * Invariant: a method either completes its change or throws before changing anything.
 */
import type { ClientContext } from "./client-context.js";
import type { Exchange, ExchangeSpec, MessageHold } from "./exchange/exchange.js";
import type { Message } from "./message.js";
import * as bindingOps from "./operations/binding-operations.js";
import * as exchangeOps from "./operations/exchange-operations.js";
import * as queueOps from "./operations/queue-operations.js";
import type { Queue } from "./queue/queue-type.js";
import { SingleActiveGroups } from "./streams/single-active-groups.js";
import * as remoteOps from "./operations/remote-queue-operations.js";
import type { SyncWaiter } from "./queue/queue-journal.js";
import type { QueueSpec } from "./queue/queue-spec.js";
import type { QueuePlacement } from "./queue/queue-placement.js";
import { withoutSkipped } from "./queue/skipped-queues.js";
import type { FieldTable } from "./values/field-value.js";
import type { VHost } from "./vhost.js";
import { BrokerAdministration } from "./broker-administration.js";

export type { BrokerOptions } from "./broker-administration.js";

/**
 * Broker.publish's result: no queue; routed; routed but refused by a queue at its length limit;
 * or routed and written to the store, so a publisher confirm (or a transaction's commit-ok) waits
 * for `whenStored` — the message is safe only once the store has synced it.
 */
export const PUBLISH_UNROUTED = 0;
export const PUBLISH_ROUTED = 1;
export const PUBLISH_REFUSED = 2;
export const PUBLISH_STORED = 3;

export class Broker extends BrokerAdministration {
  /** Single-active-consumer groups of the streams this node leads (single-active-groups.ts). */
  readonly streamGroups = new SingleActiveGroups();

  // ---------------------------------------------------------------- exchanges and bindings (operations/exchange-operations.ts, binding-operations.ts)

  /** exchange.declare / PUT /api/exchanges. Returns true when the exchange was created. */
  declareExchange(ctx: ClientContext, vhostName: string, spec: ExchangeSpec, passive: boolean): boolean {
    return exchangeOps.declareExchange(this, ctx, vhostName, spec, passive);
  }

  /** exchange.delete. `mustExist` makes a missing exchange an error (HTTP); AMQP deletes idempotently. */
  deleteExchange(ctx: ClientContext, vhostName: string, name: string, ifUnused: boolean, mustExist = false): void {
    exchangeOps.deleteExchange(this, ctx, vhostName, name, ifUnused, mustExist);
  }

  /** Looks up an exchange for basic.publish: write permission, existence, not internal, topic authorisation. */
  exchangeForPublish(ctx: ClientContext, v: VHost, name: string, routingKey: string): Exchange {
    return exchangeOps.exchangeForPublish(ctx, v, name, routingKey);
  }

  /** queue.bind: write on the queue, read on the exchange. Idempotent. Returns true when created. */
  bindQueue(ctx: ClientContext, vhostName: string, queue: string, exchange: string, routingKey: string, args: FieldTable): boolean {
    return bindingOps.bind(this, ctx, { vhost: vhostName, source: exchange, destinationKind: "queue", destination: queue, routingKey, args });
  }

  /** queue.unbind: idempotent for a missing binding, 404 for a missing queue or exchange. */
  unbindQueue(ctx: ClientContext, vhostName: string, queue: string, exchange: string, routingKey: string, args: FieldTable): boolean {
    return bindingOps.unbind(this, ctx, { vhost: vhostName, source: exchange, destinationKind: "queue", destination: queue, routingKey, args });
  }

  /** exchange.bind: write on the destination, read on the source. */
  bindExchange(ctx: ClientContext, vhostName: string, destination: string, source: string, routingKey: string, args: FieldTable): boolean {
    return bindingOps.bind(this, ctx, { vhost: vhostName, source, destinationKind: "exchange", destination, routingKey, args });
  }

  unbindExchange(ctx: ClientContext, vhostName: string, destination: string, source: string, routingKey: string, args: FieldTable): boolean {
    return bindingOps.unbind(this, ctx, { vhost: vhostName, source, destinationKind: "exchange", destination, routingKey, args });
  }

  // ---------------------------------------------------------------- queues (operations/queue-operations.ts)

  /** queue.declare / PUT /api/queues. A passive declare only queries (read permission). */
  declareQueue(ctx: ClientContext, vhostName: string, spec: QueueSpec, passive: boolean): queueOps.QueueDeclareResult {
    return queueOps.declareQueue(this, ctx, vhostName, spec, passive);
  }

  /** A queue's x-expires changes (MQTT 5 session expiry set again in DISCONNECT). */
  changeQueueExpires(ctx: ClientContext, vhostName: string, name: string, ms: number): void {
    queueOps.changeQueueExpires(this, ctx, vhostName, name, ms);
  }

  deleteQueue(ctx: ClientContext, vhostName: string, name: string, opts: queueOps.QueueDeleteOptions): number {
    return queueOps.deleteQueue(this, ctx, vhostName, name, opts);
  }

  /** queue.purge: read permission; returns the number of messages removed. */
  purgeQueue(ctx: ClientContext, vhostName: string, name: string): number {
    return queueOps.queueForRead(this, ctx, vhostName, name).purge();
  }

  /** A queue looked up for consume, get or purge: read permission, existence, exclusive access. */
  queueForRead(ctx: ClientContext, vhostName: string, name: string): Queue {
    return queueOps.queueForRead(this, ctx, vhostName, name);
  }

  /** A connection went away: its exclusive queues go with it (AMQP 0-9-1 queue.declare "exclusive"). */
  ownerClosed(owner: object): void {
    queueOps.ownerClosed(this, owner);
  }

  // ---------------------------------------------------------------- publishing (the per-message path)

  /**
   * Routes a message from `x` and enqueues it in every matching queue (following exchange-to-
   * exchange bindings and alternate exchanges). `out` is a caller-owned scratch array, cleared
   * here, that receives the queues; returns how many queues got the message.
   */
  route(v: VHost, x: Exchange, message: Message, out: Queue[]): number {
    // pop(), not `out.length = 0`: V8 makes a length store a slow call that may also drop the
    // array's storage (measured ~70 ns against ~8 ns for a pop, per publish).
    while (out.length > 0) out.pop();
    v.route(x, message.routingKey, message.properties, out);
    x.stats.publishIn++;
    if (out.length > 0) x.stats.publishOut++;
    return out.length;
  }

  /**
   * Publishes a routed message: every queue found by route() takes it. Returns PUBLISH_UNROUTED,
   * PUBLISH_ROUTED, PUBLISH_REFUSED when a queue at its length limit refused it, or PUBLISH_STORED
   * when the store wrote it; `out` is the caller's scratch array (see route()). `skip` names
   * queues the message must not reach although routed there (MQTT's no-local: the publisher's own
   * subscription queues); null, the usual case, costs one comparison.
   */
  publish(v: VHost, x: Exchange, message: Message, out: Queue[], skip: readonly Queue[] | null = null): number {
    if (x.delayed !== null) {
      const held = this.publishDelayed(v, x, x.delayed, message, out);
      if (held >= 0) return held;
    }
    let n = this.route(v, x, message, out);
    if (skip !== null && n > 0) n = withoutSkipped(out, skip);
    this.stats.publish++;
    v.stats.publish++;
    if (n === 0) return PUBLISH_UNROUTED;
    this.stats.routed++;
    const journal = this.journal;
    const appendsBefore = journal !== null ? journal.appends : 0;
    const forwards = this.forwards;
    const forwardsBefore = forwards.count;
    let refused = false;
    for (let i = 0; i < n; i++) if (!out[i]!.enqueue(message)) refused = true;
    if (refused) return PUBLISH_REFUSED;
    if (forwards.count !== forwardsBefore) return forwards.stored(journal !== null && journal.appends !== appendsBefore);
    return journal !== null && journal.appends !== appendsBefore ? PUBLISH_STORED : PUBLISH_ROUTED;
  }

  /**
   * An x-delayed-message exchange holds a message with an x-delay header (delayed/): it counts as
   * routed, and a publisher confirm waits for the store when the held message was written to it.
   * Returns -1 when the message is not delayed and routes as usual.
   */
  private publishDelayed(v: VHost, x: Exchange, hold: MessageHold, message: Message, out: Queue[]): number {
    const journal = this.journal;
    const appendsBefore = journal !== null ? journal.appends : 0;
    if (!hold.hold(message)) return -1;
    while (out.length > 0) out.pop();
    x.stats.publishIn++;
    this.stats.publish++;
    v.stats.publish++;
    this.stats.routed++;
    return journal !== null && journal.appends !== appendsBefore ? PUBLISH_STORED : PUBLISH_ROUTED;
  }

  /**
   * The node stops: delayed-message exchanges release nothing more (their held messages stay in
   * the store for the next start, or the next leader).
   */
  halt(): void {
    for (const v of this.vhosts.values()) for (const x of v.exchanges.values()) x.delayed?.halt();
  }

  /** Delayed-message exchanges hold their releases (pause) until told to go on (resume): see MessageHold.pause. */
  pauseDelayedReleases(): void {
    for (const v of this.vhosts.values()) for (const x of v.exchanges.values()) x.delayed?.pause();
  }

  resumeDelayedReleases(): void {
    for (const v of this.vhosts.values()) for (const x of v.exchanges.values()) x.delayed?.resume();
  }

  /** Calls `waiter.synced(token)` once every message stored so far is on disk (see PUBLISH_STORED). */
  whenStored(waiter: SyncWaiter, token: number): void {
    if (this.forwards.pending) this.forwards.wait(waiter, token, this.journal);
    else this.journal!.whenSynced(waiter, token);
  }

  /** The seam for placing queues: `spec.name` is led by the node behind `leader`; see remote-queue-operations.ts. */
  leadQueueElsewhere = (vhostName: string, spec: QueueSpec, leader: remoteOps.LeaderPort): Queue => remoteOps.leadQueueElsewhere(this, vhostName, spec, leader, this.forwards);
  /** A followed change deleted a queue this node holds as a RemoteQueue: forgotten here (false: the queue is local). */

  /** `coney --workers N`: from now on a new queue `placement` says another node leads is held as a RemoteQueue. */
  placeQueuesWith = (placement: QueuePlacement): void => void (this.queueHost.placement = { of: placement, forwards: this.forwards });
}
