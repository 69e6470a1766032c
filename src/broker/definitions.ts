/**
 * RabbitMQ's definitions document (rabbitmqctl export_definitions, GET/POST /api/definitions,
 * load_definitions): export from live state and import into it. The same functions persist
 * the broker's durable definitions, so what survives a restart and what an export shows agree.
 *
 * Import merges, as RabbitMQ does: existing queues/exchanges/bindings are kept, users, vhosts,
 * permissions, policies and parameters are overwritten. The shape of every item is checked before anything
 * is applied; a semantic refusal while applying (e.g. a permission for an unknown user) stops
 * the import there, as RabbitMQ's importer does.
 */
import type { FieldTable } from "./values/field-value.js";
import { isHashingAlgorithm, type HashingAlgorithm } from "../auth/password.js";
import { PermissionChecker } from "../auth/permission-check.js";
import { parseTags } from "../auth/user.js";
import { BrokerError, badRequestTerm } from "../errors/broker-error.js";
import type { Broker } from "./broker.js";
import type { ClientContext } from "./client-context.js";
import { SYSTEM_ACTOR, type Actor } from "./events/actor.js";
import { announce, attempted } from "./events/announce.js";
import { bindingDefinition, exchangeDefinition, queueDefinition } from "./definition-records.js";
import type { PolicyRecord } from "./vhost.js";
import { userDefinition } from "./operations/user-operations.js";

const OPERATOR_POLICY_COMPONENT = "operator_policy";

export interface Definitions {
  rabbit_version?: string;
  rabbitmq_version?: string;
  product_name?: string;
  product_version?: string;
  users?: unknown[];
  vhosts?: unknown[];
  permissions?: unknown[];
  topic_permissions?: unknown[];
  parameters?: unknown[];
  global_parameters?: unknown[];
  policies?: unknown[];
  queues?: unknown[];
  exchanges?: unknown[];
  bindings?: unknown[];
}

export interface ExportOptions {
  /** Only what survives a restart: durable, non-exclusive queues and exchanges, bindings between them. */
  durableOnly?: boolean;
  version: string;
  /**
   * Each queue's `group` (queue-groups.ts) in its record: the node's own definitions file keeps
   * it, so a queue comes back to the store that holds its messages. Not in RabbitMQ's export format.
   */
  withGroups?: boolean;
}

const isSystemExchange = (name: string): boolean => name === "" || name.startsWith("amq.");

export function exportDefinitions(broker: Broker, opts: ExportOptions): Definitions {
  const vhosts = [...broker.vhosts.values()];
  return {
    rabbit_version: opts.version,
    rabbitmq_version: opts.version,
    product_name: "Coney",
    product_version: opts.version,
    users: broker.users.list().filter((u) => u.isInternal).map(userDefinition),
    vhosts: vhosts.map((v) => ({
      name: v.name,
      description: v.metadata.description,
      tags: v.metadata.tags,
      default_queue_type: v.metadata.defaultQueueType,
      metadata: { description: v.metadata.description, tags: v.metadata.tags, default_queue_type: v.metadata.defaultQueueType },
      limits: [],
    })),
    permissions: broker.users.allPermissions().map((p) => p.toJSON()),
    topic_permissions: broker.users.allTopicPermissions().map((p) => p.toJSON()),
    parameters: vhosts.flatMap((v) => [
      ...[...v.parameters].flatMap(([component, byName]) => [...byName].map(([name, value]) => ({ vhost: v.name, component, name, value }))),
      // The definitions format has no operator-policies key; RabbitMQ keeps them as runtime
      // parameters of component "operator_policy", and so does this file.
      ...[...v.operatorPolicies.values()].map((p) => ({
        vhost: p.vhost,
        component: OPERATOR_POLICY_COMPONENT,
        name: p.name,
        value: { pattern: p.pattern, "apply-to": p.applyTo, definition: p.definition, priority: p.priority },
      })),
    ]),
    global_parameters: [...broker.globalParameters].map(([name, value]) => ({ name, value })),
    policies: vhosts.flatMap((v) =>
      [...v.policies.values()].map((p) => ({ vhost: p.vhost, name: p.name, pattern: p.pattern, "apply-to": p.applyTo, definition: p.definition, priority: p.priority })),
    ),
    queues: vhosts.flatMap((v) =>
      [...v.queues.values()].filter((q) => q.exclusiveOwner === null && (!opts.durableOnly || q.durable)).map((q) => (opts.withGroups ? { ...queueDefinition(q), group: q.group } : queueDefinition(q))),
    ),
    exchanges: vhosts.flatMap((v) =>
      [...v.exchanges.values()].filter((x) => !isSystemExchange(x.name) && (!opts.durableOnly || x.durable)).map(exchangeDefinition),
    ),
    bindings: vhosts.flatMap((v) =>
      [...v.bindings()]
        .filter((b) => b.destination.kind !== "queue" || b.destination.exclusiveOwner === null)
        .filter((b) => !opts.durableOnly || (b.source.durable && b.destination.durable))
        .map(bindingDefinition),
    ),
  };
}

type Item = Record<string, unknown>;

function items(defs: Definitions, key: keyof Definitions): Item[] {
  const v = defs[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new BrokerError("badRequest", `'${key}' must be an array`);
  return v.map((i, n) => {
    if (i === null || typeof i !== "object" || Array.isArray(i)) throw new BrokerError("badRequest", `${key}[${n}] must be an object`);
    return i as Item;
  });
}

function str(i: Item, key: string, where: string, fallback?: string): string {
  const v = i[key] ?? fallback;
  if (typeof v !== "string") throw new BrokerError("badRequest", `${where}: '${key}' must be a string`);
  return v;
}

function bool(i: Item, key: string, fallback: boolean): boolean {
  const v = i[key];
  return v === undefined ? fallback : v === true || v === "true";
}

/**
 * Imports a definitions document. `vhostOverride` imports a single-vhost document into that
 * vhost. Runs with a full-permission context: this is an administrator's operation.
 */
export function importDefinitions(broker: Broker, defs: Definitions, vhostOverride?: string, actor: Actor = SYSTEM_ACTOR): void {
  const asked = (): Record<string, unknown> => countsOf(defs);
  attempted(broker, actor, () => ({ action: "definitions.import", vhost: vhostOverride ?? null, object: vhostOverride ?? "", after: asked() }), () => applyDefinitions(broker, defs, vhostOverride, actor));
  announce(broker, actor, null, {}, { action: "definitions.import", vhost: vhostOverride ?? null, object: vhostOverride ?? "", before: null, after: asked() });
}

/** How many items of each kind a document holds: what an import's audit record tells. */
function countsOf(defs: Definitions): Record<string, number> {
  const counts: Record<string, number> = {};
  if (defs === null || typeof defs !== "object") return counts;
  for (const [k, v] of Object.entries(defs as Record<string, unknown>)) if (Array.isArray(v)) counts[k] = v.length;
  return counts;
}

function applyDefinitions(broker: Broker, defs: Definitions, vhostOverride: string | undefined, actor: Actor): void {
  if (defs === null || typeof defs !== "object" || Array.isArray(defs)) throw new BrokerError("badRequest", "definitions must be a JSON object");
  const vhostOf = (i: Item, where: string): string => vhostOverride ?? str(i, "vhost", where);
  // Shapes first: a malformed document changes nothing.
  const users = items(defs, "users").map((u, n) => {
    const where = `users[${n}]`;
    // RabbitMQ refuses a user without tags (its import is all-or-nothing for that).
    if (u["tags"] === undefined) throw new BrokerError("badRequest", "tags_not_present");
    const tags = parseTags(u["tags"]);
    if (tags === null) throw new BrokerError("badRequest", `${where}: invalid tags`);
    const algorithm = str(u, "hashing_algorithm", where, "rabbit_password_hashing_sha256");
    if (!isHashingAlgorithm(algorithm)) throw new BrokerError("badRequest", `${where}: unknown hashing_algorithm '${algorithm}'`);
    return { name: str(u, "name", where), passwordHash: str(u, "password_hash", where, ""), algorithm: algorithm as HashingAlgorithm, tags };
  });
  const vhosts = vhostOverride ? [] : items(defs, "vhosts").map((v, n) => ({ name: str(v, "name", `vhosts[${n}]`), description: typeof v["description"] === "string" ? v["description"] : undefined }));
  const permissions = items(defs, "permissions").map((p, n) => {
    const where = `permissions[${n}]`;
    return { user: str(p, "user", where), vhost: vhostOf(p, where), configure: str(p, "configure", where), write: str(p, "write", where), read: str(p, "read", where) };
  });
  const exchanges = items(defs, "exchanges").map((x, n) => ({ vhost: vhostOf(x, `exchanges[${n}]`), item: x, where: `exchanges[${n}]` }));
  const queues = items(defs, "queues").map((q, n) => ({ vhost: vhostOf(q, `queues[${n}]`), item: q, where: `queues[${n}]` }));
  const bindings = items(defs, "bindings").map((b, n) => ({ vhost: vhostOf(b, `bindings[${n}]`), item: b, where: `bindings[${n}]` }));
  const policies = items(defs, "policies").map((p, n) => ({ vhost: vhostOf(p, `policies[${n}]`), item: p, where: `policies[${n}]` }));
  const allParameters = items(defs, "parameters").map((p, n) => ({ item: p, where: `parameters[${n}]` }));
  const operatorPolicies = allParameters
    .filter(({ item }) => item["component"] === OPERATOR_POLICY_COMPONENT)
    .map(({ item, where }) => {
      const value = item["value"];
      if (value === null || typeof value !== "object" || Array.isArray(value)) throw new BrokerError("badRequest", `${where}: invalid value`);
      return { vhost: vhostOf(item, where), name: str(item, "name", where), value: value as Record<string, unknown>, where };
    });
  const parameters = allParameters
    .filter(({ item }) => item["component"] !== OPERATOR_POLICY_COMPONENT)
    .map(({ item: p, where }) => {
      const param = { vhost: vhostOf(p, where), component: str(p, "component", where), name: str(p, "name", where), value: p["value"] };
      broker.parameterComponents.validate(param.component, param.vhost, param.name, param.value, actor.authMethod === "internal" ? null : actor.user);
      return param;
    });
  const topicPermissions = items(defs, "topic_permissions").map((p, n) => {
    const where = `topic_permissions[${n}]`;
    return { user: str(p, "user", where), vhost: vhostOf(p, where), exchange: str(p, "exchange", where), write: str(p, "write", where), read: str(p, "read", where) };
  });
  // Every vhost named must exist or be created by this document: RabbitMQ refuses the import
  // (400 {no_such_vhost, V}) and so nothing is applied.
  const known = new Set([...broker.vhosts.keys(), ...vhosts.map((v) => v.name)]);
  for (const { vhost } of [...permissions, ...topicPermissions, ...exchanges, ...queues, ...bindings, ...policies, ...operatorPolicies, ...parameters]) {
    if (!known.has(vhost)) throw badRequestTerm("no_such_vhost", vhost);
  }
  const globalParameters = vhostOverride ? [] : items(defs, "global_parameters").map((p, n) => ({ name: str(p, "name", `global_parameters[${n}]`), value: p["value"] }));

  for (const u of users) broker.putUser(u.name, { passwordHash: u.passwordHash, hashingAlgorithm: u.algorithm, tags: u.tags }, actor);
  for (const v of vhosts) broker.putVhost(v.name, v.description === undefined ? {} : { description: v.description }, actor);
  for (const p of permissions) broker.setPermission(p.user, p.vhost, p, actor);
  for (const p of topicPermissions) broker.setTopicPermission(p.user, p.vhost, p, actor);
  const ctx = adminContext(broker, actor);
  for (const { vhost, item, where } of exchanges) {
    const name = str(item, "name", where);
    if (isSystemExchange(name) || broker.vhost(vhost).exchanges.has(name)) continue;
    broker.declareExchange(ctx, vhost, { name, type: str(item, "type", where, "direct"), durable: bool(item, "durable", true), autoDelete: bool(item, "auto_delete", false), internal: bool(item, "internal", false), arguments: (item["arguments"] ?? {}) as FieldTable }, false);
  }
  for (const { vhost, item, where } of queues) {
    const name = str(item, "name", where);
    if (broker.vhost(vhost).queues.has(name)) continue;
    // A recorded group (the node's own definitions file) is kept when this node has it (queue-groups.ts).
    const group = typeof item["group"] === "number" ? item["group"] : null;
    broker.declareQueue(ctx, vhost, { name, durable: bool(item, "durable", true), autoDelete: bool(item, "auto_delete", false), exclusiveOwner: null, arguments: (item["arguments"] ?? {}) as FieldTable, group }, false);
  }
  for (const { vhost, item, where } of bindings) {
    const source = str(item, "source", where);
    const dest = str(item, "destination", where);
    const key = str(item, "routing_key", where, "");
    const args = (item["arguments"] ?? {}) as FieldTable;
    if (str(item, "destination_type", where, "queue") === "queue") broker.bindQueue(ctx, vhost, dest, source, key, args);
    else broker.bindExchange(ctx, vhost, dest, source, key, args);
  }
  for (const { vhost, item, where } of policies) broker.putPolicy(policyRecord(vhost, str(item, "name", where), item, where), actor);
  for (const { vhost, name, value, where } of operatorPolicies) broker.putOperatorPolicy(policyRecord(vhost, name, value, where), actor);
  for (const p of parameters) broker.putParameter(p.component, p.vhost, p.name, p.value, actor);
  // RabbitMQ's exports carry its internal_cluster_id; it names nothing in Coney.
  for (const g of globalParameters) if (g.name !== "internal_cluster_id") broker.putGlobalParameter(g.name, g.value, actor);
}

function policyRecord(vhost: string, name: string, item: Record<string, unknown>, where: string): PolicyRecord {
  return {
    vhost,
    name,
    pattern: str(item, "pattern", where),
    applyTo: str(item, "apply-to", where, "all"),
    definition: (item["definition"] ?? {}) as Record<string, unknown>,
    priority: typeof item["priority"] === "number" ? item["priority"] : 0,
  };
}

/** Imports (and changes followed from another node) run as the system: every pattern matches. */
export function adminContext(broker: Broker, actor: Actor): ClientContext {
  const system = { name: "rmq-internal", passwordHash: "", hashingAlgorithm: "rabbit_password_hashing_sha256" as const, tags: ["administrator"], limits: {}, isInternal: false };
  const grants = { hasVhostAccess: () => true, grantFor: () => "definitions import (runs as the system)" };
  return { permissions: new PermissionChecker(broker.users, system, grants), owner: null, actor };
}
