/**
 * The Broker: the domain core that every transport calls. It owns the vhosts (and through them
 * exchanges, queues, bindings, policies, parameters), the users and their permissions, and the
 * registry of client connections. Each operation is one method here, so names, equivalence and
 * permissions are checked in one place for AMQP and HTTP alike, in the spec's order:
 * authentication (done by the caller's login) → vhost access → the pattern of the needed kind.
 *
 * Invariant: a method either completes its change or throws before changing anything.
 */
import type { FieldTable } from "./values/field-value.js";
import { PermissionChecker } from "../auth/permission-check.js";
import { UserRegistry } from "../auth/user-registry.js";
import { BrokerError, badRequestTerm, notFound } from "../errors/broker-error.js";
import { Binding } from "./binding.js";
import type { ClientContext } from "./client-context.js";
import { NO_PERSISTENCE, type DefinitionsSink } from "./definitions-sink.js";
import { bindingDefinition, exchangeDefinition, queueDefinition } from "./definition-records.js";
import { assertExchangeEquivalent, assertQueueEquivalent } from "./equivalence.js";
import type { Destination, Exchange, ExchangeBinding, ExchangeSpec } from "./exchange/exchange.js";
import { createExchange, EXCHANGE_TYPES } from "./exchange/exchange-types.js";
import { isValidMatchMode } from "./exchange/headers-exchange.js";
import type { Message } from "./message.js";
import { checkNameLength, checkNotReserved, generateQueueName } from "./names.js";
import { InvalidPatternError } from "../auth/permission-pattern.js";
import type { PermissionSpec } from "../auth/permission.js";
import type { TopicPermissionSpec } from "../auth/topic-permission.js";
import { AuthAttempts, type AuthProtocol } from "../auth/auth-attempts.js";
import { DEFAULT_HASHING_ALGORITHM, hashPassword, isValidPasswordHash, verifyPassword, type HashingAlgorithm } from "../auth/password.js";
import type { User, UserLimits } from "../auth/user.js";
import { validateQueueArguments } from "./queue/queue-arguments.js";
import type { Queue, QueueHost } from "./queue/queue.js";
import type { QueueSpec } from "./queue/queue-spec.js";
import type { QueueJournal } from "./queue/queue-journal.js";
import { VHost, type PolicyRecord, type VHostMetadata } from "./vhost.js";
import { appliedPolicy, validateOperatorPolicy, validatePolicy, type AppliedPolicy } from "./policies.js";
import { deadLetteredMessage, isDeadLetterCycle, type DeathReason } from "./dead-letter.js";
import { checkQueueType } from "./queue/queue-type-rules.js";
import { ConnectionRegistry } from "./connection-registry.js";
import { BrokerStats } from "./broker-stats.js";
import { DirectReplyRegistry } from "./direct-reply.js";
import { validateGlobalParameter, validateParameter, vhostLimitsOf } from "./runtime-parameters.js";

export interface BrokerOptions {
  definitions?: DefinitionsSink;
  now?: () => number;
  /** Stores persistent messages of durable queues (src/store/message-store.ts). */
  journal?: QueueJournal;
}

export interface UserInput {
  password?: string;
  passwordHash?: string;
  hashingAlgorithm?: HashingAlgorithm;
  tags: string[];
  limits?: UserLimits;
}

/** A user as RabbitMQ's definitions file records it. */
export function userDefinition(u: User): Record<string, unknown> {
  return { name: u.name, password_hash: u.passwordHash, hashing_algorithm: u.hashingAlgorithm, tags: u.tags, limits: u.limits };
}

/** Broker.publish's result: no queue, routed, or routed but refused by a queue at its length limit. */
export const PUBLISH_UNROUTED = 0;
export const PUBLISH_ROUTED = 1;
export const PUBLISH_REFUSED = 2;

export interface QueueDeclareResult {
  readonly queue: Queue;
  readonly created: boolean;
}

export class Broker {
  readonly users = new UserRegistry();
  readonly vhosts = new Map<string, VHost>();
  readonly connections = new ConnectionRegistry();
  readonly stats = new BrokerStats();
  /** Logins tried per protocol (/api/auth/attempts). */
  readonly authAttempts = new AuthAttempts();
  readonly directReply = new DirectReplyRegistry();
  /** Global runtime parameters (cluster_name, cluster_tags, …): name → JSON value. */
  readonly globalParameters = new Map<string, unknown>();
  readonly now: () => number;
  definitions: DefinitionsSink;
  private readonly queueHost: QueueHost;
  /** Publishers wait on it for confirms and tx.commit of stored messages; null = nothing stored. */
  readonly journal: QueueJournal | null;

  constructor(options: BrokerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.definitions = options.definitions ?? NO_PERSISTENCE;
    this.journal = options.journal ?? null;
    this.queueHost = {
      now: this.now,
      queueUnused: (q) => this.removeQueue(this.vhosts.get(q.vhost)!, q),
      queueExpired: (q) => this.removeQueue(this.vhosts.get(q.vhost)!, q),
      deadLetter: (q, message, reason) => this.deadLetter(q, message, reason),
      unstored: null,
    };
    if (options.journal) {
      this.queueHost.journal = options.journal;
      options.journal.lostRecords = (isLost, lost) => this.dropUnstored(isLost, lost);
    }
  }

  /** A permission checker for a logged-in user; one per connection or HTTP request. */
  checkerFor(userName: string): PermissionChecker {
    const user = this.users.get(userName);
    if (!user) throw new BrokerError("notAuthorized", `user '${userName}' does not exist`);
    return new PermissionChecker(this.users, user);
  }

  // ---------------------------------------------------------------- vhosts

  vhost(name: string): VHost {
    const v = this.vhosts.get(name);
    if (!v) throw new BrokerError("notFound", `no vhost '${name}'`);
    return v;
  }

  /** Creates or updates a vhost; returns true when it was created. */
  putVhost(name: string, metadata: Partial<VHostMetadata>): boolean {
    const existing = this.vhosts.get(name);
    const merged: VHostMetadata = {
      description: metadata.description ?? existing?.metadata.description ?? "",
      tags: metadata.tags ?? existing?.metadata.tags ?? [],
      defaultQueueType: metadata.defaultQueueType ?? existing?.metadata.defaultQueueType ?? "classic",
      tracing: metadata.tracing ?? existing?.metadata.tracing ?? false,
    };
    if (existing) existing.metadata = merged;
    else this.vhosts.set(name, new VHost(name, merged, this.queueHost));
    this.definitions.put("vhosts", name, { name, ...merged });
    return !existing;
  }

  /** Deletes a vhost with everything in it, and closes its connections. */
  deleteVhost(name: string): void {
    const v = this.vhost(name);
    for (const conn of this.connections.inVhost(name)) conn.forceClose(`vhost '${name}' is deleted`);
    for (const q of [...v.queues.values()]) this.removeQueue(v, q);
    for (const x of [...v.exchanges.values()]) if (x.name !== "" && !x.name.startsWith("amq.")) this.removeExchange(v, x);
    for (const p of this.users.permissionsOfVhost(name)) this.definitions.delete("permissions", `${name}\u0000${p.user}`);
    this.users.clearVhost(name);
    for (const policy of v.policies.keys()) this.definitions.delete("policies", `${name}\u0000${policy}`);
    for (const policy of v.operatorPolicies.keys()) this.definitions.delete("operator_policies", `${name}\u0000${policy}`);
    for (const [component, byName] of v.parameters) {
      for (const param of byName.keys()) this.definitions.delete("parameters", `${name}\u0000${component}\u0000${param}`);
    }
    this.vhosts.delete(name);
    this.definitions.delete("vhosts", name);
  }

  // ---------------------------------------------------------------- users and permissions

  /**
   * Creates or updates a user. Give `password` (hashed here) or `passwordHash` (+ algorithm), or
   * neither (the user then cannot log in with a password). Returns true when it was created.
   */
  putUser(name: string, input: UserInput): boolean {
    checkNameLength("user", name);
    const algorithm = input.hashingAlgorithm ?? DEFAULT_HASHING_ALGORITHM;
    if (input.passwordHash !== undefined && !isValidPasswordHash(input.passwordHash, algorithm)) {
      throw /^[A-Za-z0-9+/]*={0,2}$/.test(input.passwordHash) ? new BrokerError("badRequest", "not_hash") : badRequestTerm("not_base64", input.passwordHash);
    }
    const passwordHash = input.password !== undefined ? hashPassword(input.password, algorithm) : (input.passwordHash ?? "");
    const existing = this.users.get(name);
    const user: User = { name, passwordHash, hashingAlgorithm: algorithm, tags: input.tags, limits: input.limits ?? existing?.limits ?? {}, isInternal: true };
    this.users.put(user);
    this.definitions.put("users", name, userDefinition(user));
    return !existing;
  }

  /** Sets (a number) or clears (null) one of a user's limits: max-connections, max-channels. */
  setUserLimit(name: string, limit: keyof UserLimits, value: number | null): void {
    const user = this.users.get(name);
    if (!user) throw badRequestTerm("no_such_user", name);
    const limits: UserLimits = { ...user.limits };
    if (value === null) delete limits[limit];
    else limits[limit] = value;
    user.limits = limits;
    this.users.put(user);
    this.definitions.put("users", name, userDefinition(user));
  }

  /** Deletes a user, its permissions, and closes its connections. */
  deleteUser(name: string): void {
    if (!this.users.get(name)) throw new BrokerError("objectNotFound", "Not Found");
    for (const p of this.users.permissionsOfUser(name)) this.definitions.delete("permissions", `${p.vhost}\u0000${name}`);
    this.users.delete(name);
    this.definitions.delete("users", name);
    for (const conn of this.connections.ofUser(name)) conn.forceClose(`user '${name}' is deleted`);
  }

  /** Sets the three patterns of (user, vhost); an invalid pattern changes nothing. Returns true when created. */
  setPermission(user: string, vhost: string, spec: PermissionSpec): boolean {
    if (!this.users.get(user) || !this.vhosts.has(vhost)) throw new BrokerError("badRequest", "vhost_or_user_not_found");
    const existed = this.users.permission(user, vhost) !== undefined;
    try {
      this.users.setPermission(user, vhost, spec);
    } catch (err) {
      if (err instanceof InvalidPatternError) throw new BrokerError("badRequest", err.message);
      throw err;
    }
    this.definitions.put("permissions", `${vhost}\u0000${user}`, { user, vhost, configure: spec.configure, write: spec.write, read: spec.read });
    return !existed;
  }

  clearPermission(user: string, vhost: string): void {
    if (!this.users.clearPermission(user, vhost)) throw new BrokerError("objectNotFound", "Not Found");
    this.definitions.delete("permissions", `${vhost}\u0000${user}`);
  }

  /** channel.open: the user's max-channels limit over all its connections (RabbitMQ's rabbit_reader text). */
  admitChannel(userName: string): void {
    // The registry's record, not the login's copy: a limit set now applies to open connections.
    const limit = this.users.get(userName)?.limits["max-channels"];
    if (limit === undefined || limit < 0) return;
    let open = 0;
    for (const c of this.connections.ofUser(userName)) open += c.channelCount;
    if (open >= limit) {
      throw new BrokerError("notAllowed", `number of channels opened for user '${userName}' has reached the maximum allowed user limit of (${limit})`);
    }
  }

  /** Sets the topic permission of (user, vhost, exchange); an invalid pattern changes nothing. Returns true when created. */
  setTopicPermission(user: string, vhost: string, spec: TopicPermissionSpec): boolean {
    if (!this.users.get(user) || !this.vhosts.has(vhost)) throw new BrokerError("badRequest", "vhost_or_user_not_found");
    let created: boolean;
    try {
      created = this.users.setTopicPermission(user, vhost, spec);
    } catch (err) {
      if (err instanceof InvalidPatternError) throw new BrokerError("badRequest", err.message);
      throw err;
    }
    this.definitions.put("topic_permissions", `${vhost}\u0000${user}\u0000${spec.exchange}`, { user, vhost, ...spec });
    return created;
  }

  /** Clears one exchange's topic permission of (user, vhost), or all of them; 404 when there was none. */
  clearTopicPermissions(user: string, vhost: string, exchange?: string): void {
    const gone = this.users.clearTopicPermissions(user, vhost, exchange);
    if (gone.length === 0) throw new BrokerError("objectNotFound", "Not Found");
    for (const p of gone) this.definitions.delete("topic_permissions", `${vhost}\u0000${user}\u0000${p.exchange}`);
  }

  /**
   * Checks a username and cleartext password against the internal users; null when refused.
   * With `protocol`, the attempt is counted for /api/auth/attempts.
   */
  authenticate(username: string, password: string, protocol?: AuthProtocol): User | null {
    const user = this.users.get(username);
    const ok = user !== undefined && verifyPassword(password, user.passwordHash, user.hashingAlgorithm);
    if (protocol) this.authAttempts.record(protocol, ok);
    return ok ? user : null;
  }

  // ---------------------------------------------------------------- policies

  /** Creates or replaces a policy after validating it; returns true when it was created. */
  putPolicy(p: PolicyRecord): boolean {
    return this.storePolicy("policies", p, validatePolicy);
  }

  deletePolicy(vhost: string, name: string): void {
    this.dropPolicy("policies", vhost, name);
  }

  /** Operator policies: only RabbitMQ's operator keys; merged with user policies (smaller limit wins). */
  putOperatorPolicy(p: PolicyRecord): boolean {
    return this.storePolicy("operator_policies", p, validateOperatorPolicy);
  }

  deleteOperatorPolicy(vhost: string, name: string): void {
    this.dropPolicy("operator_policies", vhost, name);
  }

  private storePolicy(kind: "policies" | "operator_policies", p: PolicyRecord, validate: (p: PolicyRecord) => void): boolean {
    const v = this.vhost(p.vhost);
    validate(p);
    const map = kind === "policies" ? v.policies : v.operatorPolicies;
    const isNew = !map.has(p.name);
    map.set(p.name, p);
    this.definitions.put(kind, `${p.vhost}\u0000${p.name}`, p);
    this.applyPolicies(v);
    return isNew;
  }

  private dropPolicy(kind: "policies" | "operator_policies", vhost: string, name: string): void {
    const v = this.vhost(vhost);
    if (!(kind === "policies" ? v.policies : v.operatorPolicies).delete(name)) throw new BrokerError("objectNotFound", "Not Found");
    this.definitions.delete(kind, `${vhost}\u0000${name}`);
    this.applyPolicies(v);
  }

  /** The policy, operator policy and merged definition that apply to a queue or exchange. */
  policyOf(r: Queue | Exchange): AppliedPolicy {
    const v = this.vhost(r.vhost);
    return appliedPolicy(v.policies.values(), v.operatorPolicies.values(), r.kind, r.name, r.kind === "queue" ? r.type : "classic");
  }

  /** A policy changed: every queue and exchange of the vhost takes its (new) effective definition now. */
  private applyPolicies(v: VHost): void {
    for (const q of [...v.queues.values()]) q.applyPolicy(this.policyOf(q).definition);
    for (const x of v.exchanges.values()) x.applyPolicy(this.policyOf(x).definition);
  }

  // ---------------------------------------------------------------- runtime parameters

  /** PUT /api/parameters/{component}/{vhost}/{name}: validated first; returns true when created. */
  putParameter(component: string, vhostName: string, name: string, value: unknown): boolean {
    const v = this.vhost(vhostName);
    validateParameter(component, name, value);
    let byName = v.parameters.get(component);
    if (!byName) v.parameters.set(component, (byName = new Map()));
    const isNew = !byName.has(name);
    byName.set(name, value);
    this.definitions.put("parameters", `${vhostName}\u0000${component}\u0000${name}`, { vhost: vhostName, component, name, value });
    return isNew;
  }

  deleteParameter(component: string, vhostName: string, name: string): void {
    const byName = this.vhost(vhostName).parameters.get(component);
    if (!byName?.delete(name)) throw new BrokerError("objectNotFound", "Not Found");
    this.definitions.delete("parameters", `${vhostName}\u0000${component}\u0000${name}`);
  }

  putGlobalParameter(name: string, value: unknown): boolean {
    validateGlobalParameter(name, value);
    const isNew = !this.globalParameters.has(name);
    this.globalParameters.set(name, value);
    this.definitions.put("global_parameters", name, { name, value });
    return isNew;
  }

  deleteGlobalParameter(name: string): void {
    if (!this.globalParameters.delete(name)) throw new BrokerError("objectNotFound", "Not Found");
    this.definitions.delete("global_parameters", name);
  }

  /**
   * connection.open: the vhost must exist, the user must hold a permission in it, and the
   * vhost's max-connections limit, the node's limit (`nodeMaxConnections`, 0 = none) and the
   * user's max-connections limit must each allow one more (RabbitMQ's rabbit_reader texts).
   */
  admitConnection(permissions: PermissionChecker, vhostName: string, nodeMaxConnections = 0): VHost {
    const v = this.vhosts.get(vhostName);
    if (!v) throw new BrokerError("notAllowed", `vhost ${vhostName} not found`);
    permissions.checkVhost(vhostName);
    const user = permissions.user;
    const limit = vhostLimitsOf(v.parameters).maxConnections;
    if (limit >= 0 && this.connections.inVhost(vhostName).length >= limit) {
      throw new BrokerError("notAllowed", `access to vhost '${vhostName}' refused for user '${user.name}': connection limit (${limit}) is reached`);
    }
    if (nodeMaxConnections > 0 && this.connections.size >= nodeMaxConnections) {
      throw new BrokerError("notAllowed", `connection refused: node connection limit (${nodeMaxConnections}) is reached`);
    }
    const userMax = user.limits["max-connections"];
    if (userMax !== undefined && userMax >= 0 && this.connections.ofUser(user.name).length >= userMax) {
      throw new BrokerError("notAllowed", `Connection refused for user '${user.name}': user connection limit (${userMax}) is reached`);
    }
    return v;
  }

  // ---------------------------------------------------------------- exchanges

  /** exchange.declare / PUT /api/exchanges. Returns true when the exchange was created. */
  declareExchange(ctx: ClientContext, vhostName: string, spec: ExchangeSpec, passive: boolean): boolean {
    const v = this.vhost(vhostName);
    if (passive) {
      ctx.permissions.check(vhostName, "read", "exchange", spec.name);
      if (!v.exchanges.has(spec.name)) throw notFound("exchange", spec.name, vhostName);
      return false;
    }
    if (!EXCHANGE_TYPES.has(spec.type)) throw new BrokerError("commandInvalid", `invalid exchange type '${spec.type}'`);
    if (spec.name === "") throw new BrokerError("accessRefused", "operation not permitted on the default exchange");
    ctx.permissions.check(vhostName, "configure", "exchange", spec.name);
    const existing = v.exchanges.get(spec.name);
    if (existing) {
      assertExchangeEquivalent(existing, spec);
      return false;
    }
    checkNotReserved("exchange", spec.name);
    const ae = spec.arguments["alternate-exchange"];
    if (ae !== undefined) {
      if (typeof ae !== "string") {
        throw new BrokerError("preconditionFailed", `invalid type for arg 'alternate-exchange' for exchange '${spec.name}' in vhost '${vhostName}'`);
      }
      // RabbitMQ: declaring with an alternate exchange needs read on the exchange and write on the AE.
      ctx.permissions.check(vhostName, "read", "exchange", spec.name);
      ctx.permissions.check(vhostName, "write", "exchange", ae);
    }
    const x = createExchange(vhostName, spec)!;
    v.addExchange(x);
    x.applyPolicy(this.policyOf(x).definition);
    if (x.durable) this.definitions.put("exchanges", `${vhostName}\u0000${x.name}`, exchangeDefinition(x));
    return true;
  }

  /** exchange.delete. `mustExist` makes a missing exchange an error (HTTP); AMQP deletes idempotently. */
  deleteExchange(ctx: ClientContext, vhostName: string, name: string, ifUnused: boolean, mustExist = false): void {
    const v = this.vhost(vhostName);
    if (name === "") throw new BrokerError("accessRefused", "operation not permitted on the default exchange");
    ctx.permissions.check(vhostName, "configure", "exchange", name);
    const x = v.exchanges.get(name);
    if (!x) {
      if (mustExist) throw notFound("exchange", name, vhostName);
      return;
    }
    if (name.startsWith("amq.")) {
      throw new BrokerError("accessRefused", `deletion of system exchange '${name}' in vhost '${vhostName}' not allowed`);
    }
    if (ifUnused && (x.bindings.size > 0 || x.boundFrom.size > 0)) {
      throw new BrokerError("preconditionFailed", `exchange '${name}' in vhost '${vhostName}' in use`);
    }
    this.removeExchange(v, x);
  }

  /** Looks up an exchange for basic.publish: write permission, existence, not internal, topic authorisation. */
  exchangeForPublish(ctx: ClientContext, v: VHost, name: string, routingKey: string): Exchange {
    ctx.permissions.check(v.name, "write", "exchange", name);
    const x = v.exchanges.get(name);
    if (!x) throw notFound("exchange", name, v.name);
    if (x.internal) throw new BrokerError("accessRefused", `cannot publish to internal exchange '${name}' in vhost '${v.name}'`);
    if (x.type === "topic") ctx.permissions.checkTopic(v.name, name, "write", routingKey);
    return x;
  }

  // ---------------------------------------------------------------- queues

  /** queue.declare / PUT /api/queues. A passive declare only queries (read permission). */
  declareQueue(ctx: ClientContext, vhostName: string, spec: QueueSpec, passive: boolean): QueueDeclareResult {
    const v = this.vhost(vhostName);
    if (passive) {
      ctx.permissions.check(vhostName, "read", "queue", spec.name);
      const q = v.queues.get(spec.name);
      if (!q) throw notFound("queue", spec.name, vhostName);
      q.checkExclusiveAccess(ctx.owner);
      return { queue: q, created: false };
    }
    const name = spec.name === "" ? generateQueueName() : spec.name;
    ctx.permissions.check(vhostName, "configure", "queue", name);
    const existing = v.queues.get(name);
    if (existing) {
      // RabbitMQ's strict check: a redeclare must come from the owner with the same exclusivity.
      existing.checkExclusiveAccess(spec.exclusiveOwner, true);
      assertQueueEquivalent(existing, spec);
      existing.touch();
      return { queue: existing, created: false };
    }
    if (spec.name !== "") checkNotReserved("queue", name);
    validateQueueArguments(spec.arguments, name, vhostName);
    const maxQueues = vhostLimitsOf(v.parameters).maxQueues;
    if (maxQueues >= 0 && v.queues.size >= maxQueues) {
      throw new BrokerError("preconditionFailed", `cannot declare queue '${name}': queue limit in vhost '${vhostName}' (${maxQueues}) is reached`);
    }
    const dlx = spec.arguments["x-dead-letter-exchange"];
    if (typeof dlx === "string") {
      // RabbitMQ: a dead-letter exchange needs write on it and read on the queue.
      ctx.permissions.check(vhostName, "write", "exchange", dlx);
      ctx.permissions.check(vhostName, "read", "queue", name);
    }
    checkQueueType({ ...spec, name }, vhostName);
    const q = v.addQueue({ ...spec, name });
    q.applyPolicy(this.policyOf(q).definition);
    if (q.durable && q.exclusiveOwner === null) this.definitions.put("queues", `${vhostName}\u0000${name}`, queueDefinition(q));
    this.stats.queueCreated++;
    return { queue: q, created: true };
  }

  /** queue.delete; returns the number of ready messages deleted. */
  deleteQueue(ctx: ClientContext, vhostName: string, name: string, opts: { ifUnused: boolean; ifEmpty: boolean; mustExist?: boolean }): number {
    const v = this.vhost(vhostName);
    ctx.permissions.check(vhostName, "configure", "queue", name);
    const q = v.queues.get(name);
    if (!q) {
      if (opts.mustExist) throw notFound("queue", name, vhostName);
      return 0;
    }
    q.checkExclusiveAccess(ctx.owner);
    if (opts.ifUnused && q.consumerCount > 0) throw new BrokerError("preconditionFailed", `queue '${name}' in vhost '${vhostName}' in use`);
    if (opts.ifEmpty && q.messageCount > 0) throw new BrokerError("preconditionFailed", `queue '${name}' in vhost '${vhostName}' not empty`);
    return this.removeQueue(v, q);
  }

  /** queue.purge: read permission; returns the number of messages removed. */
  purgeQueue(ctx: ClientContext, vhostName: string, name: string): number {
    return this.queueForRead(ctx, vhostName, name).purge();
  }

  /** A queue looked up for consume, get or purge: read permission, existence, exclusive access. */
  queueForRead(ctx: ClientContext, vhostName: string, name: string): Queue {
    const v = this.vhost(vhostName);
    ctx.permissions.check(vhostName, "read", "queue", name);
    const q = v.queues.get(name);
    if (!q) throw notFound("queue", name, vhostName);
    q.checkExclusiveAccess(ctx.owner);
    return q;
  }

  // ---------------------------------------------------------------- bindings

  /** queue.bind: write on the queue, read on the exchange. Idempotent. Returns true when created. */
  bindQueue(ctx: ClientContext, vhostName: string, queue: string, exchange: string, routingKey: string, args: FieldTable): boolean {
    const { v, source, destination } = this.bindingEnds(ctx, vhostName, exchange, "queue", queue, routingKey);
    return this.addBinding(v, new Binding(source, destination, routingKey, args));
  }

  /** queue.unbind: idempotent for a missing binding, 404 for a missing queue or exchange. */
  unbindQueue(ctx: ClientContext, vhostName: string, queue: string, exchange: string, routingKey: string, args: FieldTable): boolean {
    const { v, source, destination } = this.bindingEnds(ctx, vhostName, exchange, "queue", queue, routingKey);
    return this.removeBinding(v, source, destination, routingKey, args);
  }

  /** exchange.bind: write on the destination, read on the source. */
  bindExchange(ctx: ClientContext, vhostName: string, destination: string, source: string, routingKey: string, args: FieldTable): boolean {
    const ends = this.bindingEnds(ctx, vhostName, source, "exchange", destination, routingKey);
    return this.addBinding(ends.v, new Binding(ends.source, ends.destination, routingKey, args));
  }

  unbindExchange(ctx: ClientContext, vhostName: string, destination: string, source: string, routingKey: string, args: FieldTable): boolean {
    const ends = this.bindingEnds(ctx, vhostName, source, "exchange", destination, routingKey);
    return this.removeBinding(ends.v, ends.source, ends.destination, routingKey, args);
  }

  /** Both ends of a (un)binding, with the permission checks; from a topic exchange also topic read on the key. */
  private bindingEnds(ctx: ClientContext, vhostName: string, source: string, destKind: "queue" | "exchange", destination: string, routingKey: string) {
    const v = this.vhost(vhostName);
    if (source === "" || (destKind === "exchange" && destination === "")) {
      throw new BrokerError("accessRefused", "operation not permitted on the default exchange");
    }
    ctx.permissions.check(vhostName, "write", destKind, destination);
    ctx.permissions.check(vhostName, "read", "exchange", source);
    const x = v.exchanges.get(source);
    if (!x) throw notFound("exchange", source, vhostName);
    const d: Destination | undefined = destKind === "queue" ? v.queues.get(destination) : v.exchanges.get(destination);
    if (!d) throw notFound(destKind, destination, vhostName);
    if (d.kind === "queue") d.checkExclusiveAccess(ctx.owner);
    if (x.type === "topic") ctx.permissions.checkTopic(vhostName, source, "read", routingKey);
    return { v, source: x, destination: d };
  }

  private addBinding(v: VHost, b: ExchangeBinding): boolean {
    if (b.source.type === "headers" && !isValidMatchMode(b.args["x-match"])) {
      throw new BrokerError("preconditionFailed", `Invalid x-match field value ${JSON.stringify(b.args["x-match"])}; expected all, any, all-with-x, or any-with-x`);
    }
    if (!v.attach(b)) return false;
    if (isDurableBinding(b)) this.definitions.put("bindings", bindingKey(v.name, b), bindingDefinition(b));
    return true;
  }

  private removeBinding(v: VHost, source: Exchange, destination: Destination, routingKey: string, args: FieldTable): boolean {
    const b = v.findBinding(source, destination, routingKey, args);
    if (!b) return false;
    v.detach(b);
    this.definitions.delete("bindings", bindingKey(v.name, b));
    this.autoDeleteIfUnused(v, source);
    return true;
  }

  // ---------------------------------------------------------------- publishing

  /**
   * Routes a message from `x` and enqueues it in every matching queue (following exchange-to-
   * exchange bindings and alternate exchanges). `out` is a caller-owned scratch array, cleared
   * here, that receives the queues; returns how many queues got the message.
   */
  route(v: VHost, x: Exchange, message: Message, out: Queue[]): number {
    out.length = 0;
    v.route(x, message.routingKey, message.properties.headers, out);
    x.stats.publishIn++;
    if (out.length > 0) x.stats.publishOut++;
    return out.length;
  }

  /**
   * Publishes a routed message: every queue found by route() takes it. Returns how many queues
   * did; `out` is the caller's scratch array (see route()).
   */
  publish(v: VHost, x: Exchange, message: Message, out: Queue[]): number {
    const n = this.route(v, x, message, out);
    this.stats.publish++;
    v.stats.publish++;
    if (n === 0) return PUBLISH_UNROUTED;
    this.stats.routed++;
    let result = PUBLISH_ROUTED;
    for (let i = 0; i < n; i++) if (!out[i]!.enqueue(message)) result = PUBLISH_REFUSED;
    return result;
  }

  /**
   * Republishes a message that died in `q` to its dead-letter exchange (rabbit_dead_letter):
   * dropped when that exchange does not exist, and not delivered to a queue where it would
   * cycle without a rejection (isDeadLetterCycle).
   */
  private deadLetter(q: Queue, message: Message, reason: DeathReason): void {
    const exchange = q.settings.deadLetterExchange;
    this.stats.deadLettered.add(q.type, exchange !== null, reason);
    if (exchange === null) return;
    const v = this.vhosts.get(q.vhost);
    const x = exchange === null ? undefined : v?.exchanges.get(exchange);
    if (!v || !x) return;
    const dead = deadLetteredMessage(message, q.name, reason, this.now(), { exchange: x.name, routingKey: q.settings.deadLetterRoutingKey });
    // Its own array: dead-lettering can nest (a target queue may overflow and dead-letter too).
    const targets: Queue[] = [];
    v.route(x, dead.routingKey, dead.properties.headers, targets);
    for (const t of targets) if (!isDeadLetterCycle(dead, t.name, reason)) t.enqueue(dead);
  }

  /**
   * The message store could not write some records (a full disk with the disk alarm off or
   * outrun): their publishers are nacked, and a broker nack means the message was taken nowhere
   * (as with overflow reject-publish). So every ready entry of those messages goes, in the
   * durable queue whose record was lost and in every other queue the same publish reached;
   * entries already handed to a consumer are dropped rather than requeued (QueueHost.unstored).
   * Failure path only: it scans every queue.
   */
  private dropUnstored(isLost: (ref: number) => boolean, lost: Set<Message>): void {
    for (const v of this.vhosts.values()) for (const q of v.queues.values()) q.collectUnstored(isLost, lost);
    if (lost.size === 0) return;
    for (const v of this.vhosts.values()) for (const q of v.queues.values()) q.dropMessages(lost);
    const unstored = (this.queueHost.unstored ??= new WeakSet());
    for (const m of lost) unstored.add(m);
  }

  // ---------------------------------------------------------------- connections

  /** A connection went away: its exclusive queues go with it (AMQP 0-9-1 queue.declare "exclusive"). */
  ownerClosed(owner: object): void {
    for (const v of this.vhosts.values()) {
      for (const q of [...v.queues.values()]) if (q.exclusiveOwner === owner) this.removeQueue(v, q);
    }
  }

  // ---------------------------------------------------------------- internals

  /** Deletes a queue: consumers are cancelled, bindings removed, auto-delete exchanges cascade. */
  private removeQueue(v: VHost, q: Queue): number {
    if (q.isDeleted) return 0;
    const count = q.markDeleted();
    this.stats.queueDeleted++;
    const removed = v.removeQueue(q);
    if (q.durable) this.definitions.delete("queues", `${v.name}\u0000${q.name}`);
    for (const b of removed) {
      this.definitions.delete("bindings", bindingKey(v.name, b));
      this.autoDeleteIfUnused(v, b.source);
    }
    return count;
  }

  private removeExchange(v: VHost, x: Exchange): void {
    const removed = v.removeExchange(x);
    if (x.durable) this.definitions.delete("exchanges", `${v.name}\u0000${x.name}`);
    for (const b of removed) {
      this.definitions.delete("bindings", bindingKey(v.name, b));
      if (b.source !== x) this.autoDeleteIfUnused(v, b.source);
    }
  }

  /** RabbitMQ: an auto-delete exchange goes when its last binding (as a source) is removed. */
  private autoDeleteIfUnused(v: VHost, x: Exchange): void {
    if (x.autoDelete && x.bindings.size === 0 && v.exchanges.get(x.name) === x) this.removeExchange(v, x);
  }
}

function isDurableBinding(b: ExchangeBinding): boolean {
  return b.source.durable && b.destination.durable && !(b.destination.kind === "queue" && b.destination.exclusiveOwner !== null);
}

function bindingKey(vhost: string, b: ExchangeBinding): string {
  return `${vhost}\u0000${b.source.name}\u0000${b.key}`;
}
