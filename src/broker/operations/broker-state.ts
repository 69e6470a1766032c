/**
 * The state every broker operation reads and changes. The Broker (broker.ts) is the one object
 * that has it; the operation modules beside this file are functions over it, one module per
 * concept (vhosts, users and permissions, admission, policies, parameters, exchanges, bindings,
 * queues, the removal cascade, what queues ask of the broker). Each takes the state as its first
 * argument, so a module shows by its imports which others it relies on, and none of them imports
 * broker.ts.
 *
 * Invariant shared by all operations: an operation either completes its change (in memory and
 * reported to `definitions`) or throws before changing anything.
 */
import type { AuthAttempts } from "../../auth/auth-attempts.js";
import type { UserRegistry } from "../../auth/user-registry.js";
import type { BrokerStats } from "../broker-stats.js";
import type { ConnectionRegistry } from "../connection-registry.js";
import type { DefinitionsSink } from "../definitions-sink.js";
import type { TopologyMirror } from "../topology-mirror.js";
import type { DomainEvents } from "../events/domain-events.js";
import type { ParameterComponents } from "../parameter-components.js";
import type { VHost } from "../vhost.js";
import type { ForwardedPublishes } from "../queue/forwarded-publishes.js";

export interface BrokerState {
  readonly vhosts: Map<string, VHost>;
  readonly users: UserRegistry;
  readonly connections: ConnectionRegistry;
  readonly stats: BrokerStats;
  /** Logins tried per protocol (/api/auth/attempts). */
  readonly authAttempts: AuthAttempts;
  /** Global runtime parameters (cluster_name, cluster_tags, …): name → JSON value. */
  readonly globalParameters: Map<string, unknown>;
  readonly now: () => number;
  /** Confirms of messages forwarded to queues led elsewhere (queue/forwarded-publishes.ts). */
  readonly forwards: ForwardedPublishes;
  /** Where durable changes are reported. Read at each change: startup replaces the sink after restoring. */
  readonly definitions: DefinitionsSink;
  /** Where every topology change is told for other nodes to follow (topology-mirror.ts); null on a single node. */
  readonly mirror: TopologyMirror | null;
  /** The runtime-parameter components features registered (parameter-components.ts). */
  readonly parameterComponents: ParameterComponents;
  /** Where operations announce their changes (events/domain-events.ts). */
  readonly events: DomainEvents;
  /** The vhost of that name; NOT_FOUND when there is none. */
  vhost(name: string): VHost;
}

/** The definitions-sink key of a record scoped to a vhost: its name parts joined by NUL. */
export function definitionKey(...parts: string[]): string {
  // Two parts (vhost, name) is by far the commonest: concatenated without join's intermediate work.
  return parts.length === 2 ? `${parts[0]}\u0000${parts[1]}` : parts.join("\u0000");
}
