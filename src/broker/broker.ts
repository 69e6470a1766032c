/**
 * The Broker: the domain core that every transport calls. It owns the vhosts (and through them
 * exchanges, queues, bindings, policies, parameters), the users and their permissions, and the
 * registry of client connections. Each operation is one method here, so names, equivalence and
 * permissions are checked in one place for AMQP, HTTP and every later protocol alike, in the
 * spec's order: authentication (done by the caller's login) → vhost access → the pattern of the
 * needed kind.
 *
 * This class is the public face and the holder of the state (BrokerState). The operations are
 * written in operations/, one module per concept; each method here hands over to one of them.
 * Publishing is the exception: route() and publish() run per message and stay here as a direct
 * call chain into the vhost's router and the queues.
 *
 * Invariant: a method either completes its change or throws before changing anything.
 */
import { AuthAttempts, type AuthProtocol } from "../auth/auth-attempts.js";
import type { PermissionChecker } from "../auth/permission-check.js";
import type { PermissionSpec } from "../auth/permission.js";
import type { TopicPermissionSpec } from "../auth/topic-permission.js";
import type { User, UserLimits } from "../auth/user.js";
import { UserRegistry } from "../auth/user-registry.js";
import { BrokerError } from "../errors/broker-error.js";
import { BrokerStats } from "./broker-stats.js";
import type { ClientContext } from "./client-context.js";
import { ConnectionRegistry, type ChannelSource } from "./connection-registry.js";
import { NO_PERSISTENCE, type DefinitionsSink } from "./definitions-sink.js";
import type { TopologyMirror } from "./topology-mirror.js";
import { DirectReplyRegistry } from "./direct-reply.js";
import { FeatureFlags } from "./feature-flags.js";
import type { Exchange, ExchangeSpec, MessageHold } from "./exchange/exchange.js";
import { SYSTEM_ACTOR, type Actor } from "./events/actor.js";
import { attempted } from "./events/announce.js";
import { userChangeRecord } from "./events/change-records.js";
import { DomainEvents } from "./events/domain-events.js";
import { announceConnection } from "./events/runtime-events.js";
import type { Message } from "./message.js";
import * as admission from "./operations/admission.js";
import * as bindingOps from "./operations/binding-operations.js";
import type { BrokerState } from "./operations/broker-state.js";
import * as exchangeOps from "./operations/exchange-operations.js";
import * as parameterOps from "./operations/parameter-operations.js";
import * as policyOps from "./operations/policy-operations.js";
import { BrokerQueueHost } from "./operations/queue-host.js";
import * as queueOps from "./operations/queue-operations.js";
import * as userOps from "./operations/user-operations.js";
import * as vhostOps from "./operations/vhost-operations.js";
import { ParameterComponents } from "./parameter-components.js";
import type { AppliedPolicy } from "./policies.js";
import type { Queue } from "./queue/queue-type.js";
import { ForwardedPublishes } from "./queue/forwarded-publishes.js";
import * as remoteOps from "./operations/remote-queue-operations.js";
import type { QueueJournal, SyncWaiter } from "./queue/queue-journal.js";
import type { QueueSpec } from "./queue/queue-spec.js";
import type { QueuePlacement } from "./queue/queue-placement.js";
import { withoutSkipped } from "./queue/skipped-queues.js";
import { VHOST_LIMITS } from "./runtime-parameters.js";
import type { FieldTable } from "./values/field-value.js";
import type { PolicyRecord, VHost, VHostMetadata } from "./vhost.js";

export interface BrokerOptions {
  definitions?: DefinitionsSink;
  now?: () => number;
  /** Stores persistent messages of durable queues (src/store/message-store.ts). */
  journal?: QueueJournal;
  /** Queue groups of a broker without a journal (queue-groups.ts); with one, the journal's `groups`. Default 1. */
  queueGroups?: number;
}

/**
 * Broker.publish's result: no queue; routed; routed but refused by a queue at its length limit;
 * or routed and written to the store, so a publisher confirm (or a transaction's commit-ok) waits
 * for `whenStored` — the message is safe only once the store has synced it.
 */
export const PUBLISH_UNROUTED = 0;
export const PUBLISH_ROUTED = 1;
export const PUBLISH_REFUSED = 2;
export const PUBLISH_STORED = 3;

export class Broker implements BrokerState {
  readonly users = new UserRegistry();
  readonly vhosts = new Map<string, VHost>();
  /** What operations announce (events/): the event exchange and the audit trail listen here. */
  readonly events = new DomainEvents();
  readonly connections = new ConnectionRegistry();
  readonly stats = new BrokerStats();
  /** Logins tried per protocol (/api/auth/attempts). */
  readonly authAttempts = new AuthAttempts();
  readonly directReply = new DirectReplyRegistry();
  /** RabbitMQ's feature flags, as Coney has their features (feature-flags.ts). */
  readonly featureFlags = new FeatureFlags();
  /** Global runtime parameters (cluster_name, cluster_tags, …): name → JSON value. */
  readonly globalParameters = new Map<string, unknown>();
  /** Runtime-parameter components: vhost-limits here, the features' own (shovel, federation) registered by them. */
  readonly parameterComponents = new ParameterComponents();
  readonly now: () => number;
  definitions: DefinitionsSink;
  /** Every topology change, for other nodes to follow (topology-mirror.ts); null on a single node. */
  mirror: TopologyMirror | null = null;
  /** Publishers wait on it for confirms and tx.commit of stored messages; null = nothing stored. */
  readonly journal: QueueJournal | null;
  private readonly queueHost: BrokerQueueHost;
  /** Confirms of messages forwarded to queues led elsewhere: publish() returns STORED, whenStored waits for them. */
  readonly forwards = new ForwardedPublishes();

  constructor(options: BrokerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.definitions = options.definitions ?? NO_PERSISTENCE;
    this.journal = options.journal ?? null;
    this.queueHost = new BrokerQueueHost(this, this.journal, options.queueGroups);
    this.parameterComponents.register(VHOST_LIMITS);
    this.connections.changed = (c, added) => {
      if (this.events.detailWanted) announceConnection(this, c.info(), added, this.connections.node);
    };
  }

  vhost(name: string): VHost {
    const v = this.vhosts.get(name);
    if (!v) throw new BrokerError("notFound", `no vhost '${name}'`);
    return v;
  }

  // ---------------------------------------------------------------- access (operations/admission.ts)

  /** A permission checker for a logged-in user; one per connection or HTTP request. */
  checkerFor(userName: string): PermissionChecker {
    return admission.checkerFor(this, userName);
  }

  /** A username and cleartext password checked against the internal users; null when refused. */
  authenticate(username: string, password: string, protocol?: AuthProtocol): User | null {
    return admission.authenticate(this, username, password, protocol);
  }

  /** connection.open: vhost access and the vhost, node (0 = none) and user connection limits. */
  admitConnection(permissions: PermissionChecker, vhostName: string, nodeMaxConnections = 0): VHost {
    return admission.admitConnection(this, permissions, vhostName, nodeMaxConnections);
  }

  /** channel.open: the user's max-channels limit over all its connections. */
  admitChannel(userName: string): void {
    admission.admitChannel(this, userName);
  }

  /** A transport opened (after admitChannel) or closed a channel: counted, and announced as channel.created / channel.closed. */
  channelOpened(channel: ChannelSource): void {
    admission.channelChanged(this, channel, true);
  }

  channelClosed(channel: ChannelSource): void {
    admission.channelChanged(this, channel, false);
  }

  // ---------------------------------------------------------------- vhosts (operations/vhost-operations.ts)

  // Configuration changes take who acts (`actor`, the broker itself by default) for the events
  // they announce; `attempted` announces a refusal too, with what was asked.

  /** Creates or updates a vhost; returns true when it was created. */
  putVhost(name: string, metadata: Partial<VHostMetadata>, actor: Actor = SYSTEM_ACTOR): boolean {
    return attempted(this, actor, () => ({ action: "vhost.put", vhost: name, object: name, after: metadata }), () => vhostOps.putVhost(this, this.queueHost, name, metadata, actor));
  }

  /** Deletes a vhost with everything in it, and closes its connections. */
  deleteVhost(name: string, actor: Actor = SYSTEM_ACTOR): void {
    attempted(this, actor, () => ({ action: "vhost.delete", vhost: name, object: name }), () => vhostOps.deleteVhost(this, name, actor));
  }

  // ---------------------------------------------------------------- users and permissions (operations/user-operations.ts)

  /** Creates or updates a user (password, or hash + algorithm, or neither); returns true when created. */
  putUser(name: string, input: userOps.UserInput, actor: Actor = SYSTEM_ACTOR): boolean {
    // What was asked, for a refusal's record: never the password or hash, only that one was given.
    const asked = () => ({ name, tags: input.tags, has_password: input.password !== undefined || (input.passwordHash ?? "") !== "" });
    return attempted(this, actor, () => ({ action: "user.put", vhost: null, object: name, before: userChangeRecord(this.users.get(name)), after: asked() }), () => userOps.putUser(this, name, input, actor));
  }

  /** Sets (a number) or clears (null) one of a user's limits: max-connections, max-channels. */
  setUserLimit(name: string, limit: keyof UserLimits, value: number | null, actor: Actor = SYSTEM_ACTOR): void {
    attempted(this, actor, () => ({ action: "user.limit.set", vhost: null, object: name, after: { [limit]: value } }), () => userOps.setUserLimit(this, name, limit, value, actor));
  }

  /** Deletes a user, its permissions, and closes its connections. */
  deleteUser(name: string, actor: Actor = SYSTEM_ACTOR): void {
    attempted(this, actor, () => ({ action: "user.delete", vhost: null, object: name }), () => userOps.deleteUser(this, name, actor));
  }

  /** Sets the three patterns of (user, vhost); an invalid pattern changes nothing. Returns true when created. */
  setPermission(user: string, vhost: string, spec: PermissionSpec, actor: Actor = SYSTEM_ACTOR): boolean {
    const asked = { configure: spec.configure, write: spec.write, read: spec.read };
    return attempted(this, actor, () => ({ action: "permission.set", vhost, object: user, after: asked }), () => userOps.setPermission(this, user, vhost, spec, actor));
  }

  clearPermission(user: string, vhost: string, actor: Actor = SYSTEM_ACTOR): void {
    attempted(this, actor, () => ({ action: "permission.clear", vhost, object: user }), () => userOps.clearPermission(this, user, vhost, actor));
  }

  /** Sets the topic permission of (user, vhost, exchange); returns true when created. */
  setTopicPermission(user: string, vhost: string, spec: TopicPermissionSpec, actor: Actor = SYSTEM_ACTOR): boolean {
    return attempted(this, actor, () => ({ action: "topic_permission.set", vhost, object: user, after: { ...spec } }), () => userOps.setTopicPermission(this, user, vhost, spec, actor));
  }

  /** Clears one exchange's topic permission of (user, vhost), or all of them; 404 when there was none. */
  clearTopicPermissions(user: string, vhost: string, exchange?: string, actor: Actor = SYSTEM_ACTOR): void {
    attempted(this, actor, () => ({ action: "topic_permission.clear", vhost, object: user }), () => userOps.clearTopicPermissions(this, user, vhost, exchange, actor));
  }

  // ---------------------------------------------------------------- policies and parameters (operations/policy-operations.ts, parameter-operations.ts)

  /** Creates or replaces a policy after validating it; returns true when it was created. */
  putPolicy(p: PolicyRecord, actor: Actor = SYSTEM_ACTOR): boolean {
    return attempted(this, actor, () => ({ action: "policy.set", vhost: p.vhost, object: p.name, after: p }), () => policyOps.putPolicy(this, p, actor));
  }

  deletePolicy(vhost: string, name: string, actor: Actor = SYSTEM_ACTOR): void {
    attempted(this, actor, () => ({ action: "policy.clear", vhost, object: name }), () => policyOps.deletePolicy(this, vhost, name, actor));
  }

  /** Operator policies: only RabbitMQ's operator keys; merged with user policies (smaller limit wins). */
  putOperatorPolicy(p: PolicyRecord, actor: Actor = SYSTEM_ACTOR): boolean {
    return attempted(this, actor, () => ({ action: "operator_policy.set", vhost: p.vhost, object: p.name, after: p }), () => policyOps.putOperatorPolicy(this, p, actor));
  }

  deleteOperatorPolicy(vhost: string, name: string, actor: Actor = SYSTEM_ACTOR): void {
    attempted(this, actor, () => ({ action: "operator_policy.clear", vhost, object: name }), () => policyOps.deleteOperatorPolicy(this, vhost, name, actor));
  }

  /** The policy, operator policy and merged definition that apply to a queue or exchange. */
  policyOf(r: Queue | Exchange): AppliedPolicy {
    return policyOps.policyOf(this, r);
  }

  /** PUT /api/parameters/{component}/{vhost}/{name}: validated first; returns true when created. */
  putParameter(component: string, vhostName: string, name: string, value: unknown, actor: Actor = SYSTEM_ACTOR): boolean {
    return attempted(this, actor, () => ({ action: "parameter.set", vhost: vhostName, object: `${component}/${name}`, after: value }), () => parameterOps.putParameter(this, component, vhostName, name, value, actor));
  }

  deleteParameter(component: string, vhostName: string, name: string, actor: Actor = SYSTEM_ACTOR): void {
    attempted(this, actor, () => ({ action: "parameter.clear", vhost: vhostName, object: `${component}/${name}` }), () => parameterOps.deleteParameter(this, component, vhostName, name, actor));
  }

  putGlobalParameter(name: string, value: unknown, actor: Actor = SYSTEM_ACTOR): boolean {
    return attempted(this, actor, () => ({ action: "global_parameter.set", vhost: null, object: name, after: value }), () => parameterOps.putGlobalParameter(this, name, value, actor));
  }

  deleteGlobalParameter(name: string, actor: Actor = SYSTEM_ACTOR): void {
    attempted(this, actor, () => ({ action: "global_parameter.clear", vhost: null, object: name }), () => parameterOps.deleteGlobalParameter(this, name, actor));
  }

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
