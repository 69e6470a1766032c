/**
 * Policies: validation of their definitions (RabbitMQ's known keys, each with its type and
 * range, so an unknown key or a bad value is refused before anything is stored) and the rule
 * that picks the policy applying to a queue or exchange: pattern match on the name, apply-to,
 * highest priority wins; and operator policies (a restricted key set) merged with the user
 * policy as RabbitMQ merges them (rabbit_policies:merge_policy_value: the smaller limit wins).
 */
import { BrokerError } from "../errors/broker-error.js";
import { erlangTerm } from "../errors/erlang-term.js";
import { compilePattern, InvalidPatternError } from "../auth/permission-pattern.js";
import { policyAppliesToType } from "./queue/queue-type-rules.js";
import type { PolicyRecord } from "./vhost.js";

type Check = (v: unknown) => string | null;

const nonNegInt: Check = (v) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? null : "must be a non-negative integer");
const posInt: Check = (v) => (typeof v === "number" && Number.isInteger(v) && v > 0 ? null : "must be a positive integer");
const str: Check = (v) => (typeof v === "string" ? null : "must be a string");
const oneOf = (...values: string[]): Check => (v) => (typeof v === "string" && values.includes(v) ? null : `must be one of ${values.join(", ")}`);

/** RabbitMQ's policy keys (rabbit_policies, rabbit_mirror_queue_misc, quorum and stream validators). */
const KEYS: ReadonlyMap<string, Check> = new Map([
  ["message-ttl", nonNegInt],
  ["expires", posInt],
  ["max-length", nonNegInt],
  ["max-length-bytes", nonNegInt],
  ["max-in-memory-length", nonNegInt],
  ["max-in-memory-bytes", nonNegInt],
  ["overflow", oneOf("drop-head", "reject-publish", "reject-publish-dlx")],
  ["dead-letter-exchange", str],
  ["dead-letter-routing-key", str],
  ["dead-letter-strategy", oneOf("at-most-once", "at-least-once")],
  ["delivery-limit", nonNegInt],
  ["queue-mode", oneOf("default", "lazy")],
  ["queue-version", oneOf("1", "2")],
  ["queue-master-locator", oneOf("client-local", "min-masters", "random")],
  ["queue-leader-locator", oneOf("client-local", "balanced", "random", "least-leaders")],
  ["alternate-exchange", str],
  // The federation keys are checked by validateFederationKeys (RabbitMQ's own texts).
  ["federation-upstream", () => null],
  ["federation-upstream-set", () => null],
  ["federation-upstream-pattern", () => null],
  ["max-age", str],
  ["stream-max-segment-size-bytes", posInt],
  ["consumer-timeout", posInt],
  // Classic mirroring: accepted and validated as RabbitMQ does; a single node has nothing to mirror.
  ["ha-mode", oneOf("all", "exactly", "nodes")],
  ["ha-params", () => null],
  ["ha-sync-mode", oneOf("manual", "automatic")],
  ["ha-sync-batch-size", posInt],
  ["ha-promote-on-shutdown", oneOf("when-synced", "always")],
  ["ha-promote-on-failure", oneOf("when-synced", "always")],
]);

export const APPLY_TO = ["all", "queues", "exchanges", "classic_queues", "quorum_queues", "streams"] as const;

/** RabbitMQ's operator_policy_validator keys; each merges with the user policy by min(). */
const OPERATOR_KEYS: ReadonlySet<string> = new Set([
  "expires",
  "message-ttl",
  "max-length",
  "max-length-bytes",
  "max-in-memory-length",
  "max-in-memory-bytes",
  "delivery-limit",
]);

export function validateOperatorPolicy(p: PolicyRecord): void {
  for (const key of Object.keys(p.definition)) {
    if (!OPERATOR_KEYS.has(key)) {
      throw new BrokerError("badRequest", `Validation failed\n\n[{<<"${key}">>,${erlangTerm(p.definition[key])}}] are not recognised policy settings\n`);
    }
  }
  validatePolicy(p);
}

/** What applies to one queue or exchange: the user policy, the operator policy, and their merge. */
export interface AppliedPolicy {
  readonly policy: PolicyRecord | null;
  readonly operatorPolicy: PolicyRecord | null;
  readonly definition: Readonly<Record<string, unknown>>;
}

export const NO_POLICY: AppliedPolicy = { policy: null, operatorPolicy: null, definition: {} };

/** rabbit_policy:merge_operator_definitions: operator keys win, or the smaller value when both set one. */
export function mergeOperatorDefinition(user: Readonly<Record<string, unknown>>, operator: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...user };
  for (const [key, value] of Object.entries(operator)) {
    const mine = out[key];
    out[key] = typeof mine === "number" && typeof value === "number" ? Math.min(mine, value) : value;
  }
  return out;
}

export function appliedPolicy(
  policies: Iterable<PolicyRecord>,
  operatorPolicies: Iterable<PolicyRecord>,
  kind: "queue" | "exchange",
  name: string,
  queueType = "classic",
): AppliedPolicy {
  const policy = effectivePolicy(policies, kind, name, queueType);
  const operatorPolicy = effectivePolicy(operatorPolicies, kind, name, queueType);
  if (!policy && !operatorPolicy) return NO_POLICY;
  return { policy, operatorPolicy, definition: mergeOperatorDefinition(policy?.definition ?? {}, operatorPolicy?.definition ?? {}) };
}

export function validatePolicy(p: PolicyRecord): void {
  try {
    compilePattern(p.pattern);
  } catch (err) {
    if (err instanceof InvalidPatternError) throw new BrokerError("badRequest", err.message);
    throw err;
  }
  // RabbitMQ 3.10's texts (its list names the three values 3.10 knows; Coney also takes the newer ones).
  if (!(APPLY_TO as readonly string[]).includes(p.applyTo)) {
    throw new BrokerError("badRequest", `Validation failed\n\napply-to '${p.applyTo}' unrecognised; should be 'queues', 'exchanges' or 'all'\n`);
  }
  if (!Number.isInteger(p.priority)) throw new BrokerError("badRequest", `Validation failed\n\npriority should be a number, actually was ${erlangTerm(p.priority)}\n`);
  const keys = Object.keys(p.definition);
  if (keys.length === 0) throw new BrokerError("badRequest", "Validation failed\n\nno policy keys given\n");
  for (const key of keys) {
    const check = KEYS.get(key);
    if (!check) throw new BrokerError("badRequest", `Validation failed\n\n[{<<"${key}">>,${erlangTerm(p.definition[key])}}] are not recognised policy settings\n`);
    const problem = check(p.definition[key]);
    if (problem) throw new BrokerError("badRequest", `Validation failed\n\n${key} ${problem}, got ${JSON.stringify(p.definition[key])}\n`);
  }
  validateFederationKeys(p.definition);
  const mode = p.definition["ha-mode"];
  const params = p.definition["ha-params"];
  if (mode === "exactly" && !(typeof params === "number" && Number.isInteger(params) && params > 0)) {
    throw new BrokerError("badRequest", `Validation failed\n\nha-params ${JSON.stringify(params)} must be a positive integer for ha-mode exactly\n`);
  }
  if (mode === "nodes" && !(Array.isArray(params) && params.length > 0 && params.every((n) => typeof n === "string"))) {
    throw new BrokerError("badRequest", `Validation failed\n\nha-params ${JSON.stringify(params)} must be a non-empty list of node names for ha-mode nodes\n`);
  }
  if (mode === "all" && params !== undefined) throw new BrokerError("badRequest", "Validation failed\n\nha-params must not be set for ha-mode all\n");
  if (params !== undefined && mode === undefined) throw new BrokerError("badRequest", "Validation failed\n\nha-params requires ha-mode\n");
}

const FEDERATION_KEYS = ["federation-upstream", "federation-upstream-set", "federation-upstream-pattern"] as const;

/** rabbit_federation_parameters:validate_policy: one of the three keys, a string, a pattern that compiles. */
function validateFederationKeys(definition: Readonly<Record<string, unknown>>): void {
  const given = FEDERATION_KEYS.filter((k) => k in definition);
  if (given.length === 0) return;
  const fail = (text: string): never => {
    throw new BrokerError("badRequest", `Validation failed\n\n${text}\n`);
  };
  if (given.length > 1) fail("cannot specify federation-upstream, federation-upstream-set or federation-upstream-pattern together");
  const key = given[0]!;
  const value = definition[key];
  const what = key === "federation-upstream" ? "upstream" : key === "federation-upstream-set" ? "upstream set" : "upstream pattern";
  if (typeof value !== "string") fail(`${erlangTerm(value)} is not a valid federation ${what} name`);
  if (key === "federation-upstream-pattern") {
    try {
      new RegExp(value as string, "u");
    } catch (err) {
      fail(`could not compile pattern ${value as string} to a regular expression. Error: ${(err as Error).message}`);
    }
  }
}

/** The policy that applies to a resource: matching pattern and apply-to, fit for the queue's type (queue-type-rules.ts), highest priority. */
export function effectivePolicy(policies: Iterable<PolicyRecord>, kind: "queue" | "exchange", name: string, queueType = "classic"): PolicyRecord | null {
  let best: PolicyRecord | null = null;
  for (const p of policies) {
    const applies =
      p.applyTo === "all" ||
      (kind === "exchange" && p.applyTo === "exchanges") ||
      (kind === "queue" && (p.applyTo === "queues" || p.applyTo === `${queueType}_queues`));
    if (!applies || (kind === "queue" && !policyAppliesToType(queueType, p.definition)) || !compilePattern(p.pattern).matches(name)) continue;
    if (!best || p.priority > best.priority) best = p;
  }
  return best;
}
