/**
 * The broker's state and its administration: the part of the domain core that says who may do
 * what and under which rules — access (logins, connection and channel admission), vhosts, users
 * and permissions, policies and runtime parameters. It holds the state every operation reads
 * (BrokerState: vhosts, users, connections, stats, events, the definitions sink); Broker
 * (broker.ts) extends it with the topology (exchanges, bindings, queues) and publishing, so a
 * transport still sees one object with one method per operation.
 *
 * Each method hands over to one module of operations/ (admission, vhost-, user-, policy- and
 * parameter-operations); a configuration change takes who acts (`actor`) for the events it
 * announces, and `attempted` announces a refusal too, with what was asked.
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
import { ConnectionRegistry, type ChannelSource } from "./connection-registry.js";
import { NO_PERSISTENCE, type DefinitionsSink } from "./definitions-sink.js";
import type { TopologyMirror } from "./topology-mirror.js";
import { DirectReplyRegistry } from "./direct-reply.js";
import { FeatureFlags } from "./feature-flags.js";
import type { Exchange } from "./exchange/exchange.js";
import { SYSTEM_ACTOR, type Actor } from "./events/actor.js";
import { attempted } from "./events/announce.js";
import { userChangeRecord } from "./events/change-records.js";
import { DomainEvents } from "./events/domain-events.js";
import { announceConnection } from "./events/runtime-events.js";
import * as admission from "./operations/admission.js";
import type { BrokerState } from "./operations/broker-state.js";
import * as parameterOps from "./operations/parameter-operations.js";
import * as policyOps from "./operations/policy-operations.js";
import { BrokerQueueHost } from "./operations/queue-host.js";
import * as userOps from "./operations/user-operations.js";
import * as vhostOps from "./operations/vhost-operations.js";
import { ParameterComponents } from "./parameter-components.js";
import type { AppliedPolicy } from "./policies.js";
import type { Queue } from "./queue/queue-type.js";
import type { QueueJournal } from "./queue/queue-journal.js";
import { ForwardedPublishes } from "./queue/forwarded-publishes.js";
import { VHOST_LIMITS } from "./runtime-parameters.js";
import type { PolicyRecord, VHost, VHostMetadata } from "./vhost.js";

export interface BrokerOptions {
  definitions?: DefinitionsSink;
  now?: () => number;
  /** Stores persistent messages of durable queues (src/store/message-store.ts). */
  journal?: QueueJournal;
  /** Queue groups of a broker without a journal (queue-groups.ts); with one, the journal's `groups`. Default 1. */
  queueGroups?: number;
}

export abstract class BrokerAdministration implements BrokerState {
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
  /** Confirms of messages forwarded to queues led elsewhere: Broker.publish returns STORED, whenStored waits for them. */
  readonly forwards = new ForwardedPublishes();
  /** What queues ask of the broker (operations/queue-host.ts); placement is set on it by Broker.placeQueuesWith. */
  protected readonly queueHost: BrokerQueueHost;

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
}
