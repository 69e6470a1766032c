/**
 * Runtime parameters (RabbitMQ's rabbit_runtime_parameters): vhost-scoped values keyed by
 * component and name, and global values keyed by name. RabbitMQ accepts a vhost-scoped
 * parameter only for a component that some feature registered (parameter-components.ts); the
 * domain's own is `vhost-limits` (max-connections, max-queues), defined here and enforced by the
 * Broker. Features on the floors above register theirs (shovel, federation-upstream, …); a
 * component nobody registered is refused, as a RabbitMQ node without that plugin refuses it,
 * rather than stored with no effect.
 */
import { BrokerError } from "../errors/broker-error.js";
import { erlangTerm } from "../errors/erlang-term.js";
import { validationFailed, type ParameterComponent } from "./parameter-components.js";

export const VHOST_LIMITS_COMPONENT = "vhost-limits";
/** RabbitMQ stores a vhost's limits as the single parameter vhost-limits/limits. */
export const VHOST_LIMITS_NAME = "limits";

const LIMIT_KEYS = new Set(["max-connections", "max-queues"]);

export interface VHostLimits {
  /** Negative means no limit (RabbitMQ's convention); 0 refuses every connection. */
  readonly maxConnections: number;
  readonly maxQueues: number;
}

export const NO_VHOST_LIMITS: VHostLimits = { maxConnections: -1, maxQueues: -1 };

/** The vhost-limits component: RabbitMQ's texts, values rendered as Erlang terms. */
export const VHOST_LIMITS: ParameterComponent = {
  component: VHOST_LIMITS_COMPONENT,
  validate(_vhost, name, value) {
    if (name !== VHOST_LIMITS_NAME) return [`vhost limits must be set as parameter '${VHOST_LIMITS_NAME}', not '${name}'`];
    if (value === null || typeof value !== "object" || Array.isArray(value)) return ["limits must be a JSON object"];
    const unknown = Object.entries(value).filter(([k]) => !LIMIT_KEYS.has(k));
    if (unknown.length > 0) return [`Unrecognised terms ${erlangTerm(Object.fromEntries(unknown))} in limits`];
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== "number" || !Number.isInteger(v)) return [`${k} should be a number, actually was ${erlangTerm(v)}`];
    }
    return [];
  },
};

/** The limits in force for a vhost, read from its vhost-limits parameter. */
export function vhostLimitsOf(parameters: ReadonlyMap<string, ReadonlyMap<string, unknown>>): VHostLimits {
  const value = parameters.get(VHOST_LIMITS_COMPONENT)?.get(VHOST_LIMITS_NAME) as Record<string, number> | undefined;
  if (!value) return NO_VHOST_LIMITS;
  return { maxConnections: value["max-connections"] ?? -1, maxQueues: value["max-queues"] ?? -1 };
}

/** RabbitMQ keeps a renamed cluster's name in this global parameter (PUT /api/cluster-name sets it). */
export const CLUSTER_NAME_PARAMETER = "cluster_name";

/** The cluster name in force: the global parameter when set, else the name given at start. */
export function clusterNameOf(globals: ReadonlyMap<string, unknown>, configured: string): string {
  const v = globals.get(CLUSTER_NAME_PARAMETER);
  return typeof v === "string" ? v : configured;
}

/** Global parameters hold any JSON value (cluster_tags, …); cluster_name must be a non-empty string. */
export function validateGlobalParameter(name: string, value: unknown): void {
  if (name === "") throw validationFailed(["a global parameter needs a name"]);
  if (value === undefined) throw new BrokerError("badRequest", "[{key_missing,value}]");
  if (name === CLUSTER_NAME_PARAMETER && (typeof value !== "string" || value.trim() === "")) {
    throw new BrokerError("badRequest", "cluster_name must be a non-empty string");
  }
}
