/**
 * Policies and operator policies of a vhost (validation and matching rules: policies.ts). A
 * change takes effect at once: every queue and exchange of the vhost takes its new effective
 * definition (queues their limits and TTLs, exchanges their alternate exchange).
 */
import type { Exchange } from "../exchange/exchange.js";
import { appliedPolicy, validateOperatorPolicy, validatePolicy, type AppliedPolicy } from "../policies.js";
import type { Queue } from "../queue/queue-type.js";
import type { PolicyRecord, VHost } from "../vhost.js";
import type { Actor } from "../events/actor.js";
import { announce } from "../events/announce.js";
import { definitionKey, type BrokerState } from "./broker-state.js";
import { objectNotFound } from "../../errors/reasons.js";

type PolicyKind = "policies" | "operator_policies";

/** Creates or replaces a policy after validating it; returns true when it was created. */
export function putPolicy(b: BrokerState, p: PolicyRecord, actor: Actor): boolean {
  return storePolicy(b, "policies", p, validatePolicy, actor);
}

export function deletePolicy(b: BrokerState, vhost: string, name: string, actor: Actor): void {
  dropPolicy(b, "policies", vhost, name, actor);
}

/** Operator policies: only RabbitMQ's operator keys; merged with user policies (smaller limit wins). */
export function putOperatorPolicy(b: BrokerState, p: PolicyRecord, actor: Actor): boolean {
  return storePolicy(b, "operator_policies", p, validateOperatorPolicy, actor);
}

export function deleteOperatorPolicy(b: BrokerState, vhost: string, name: string, actor: Actor): void {
  dropPolicy(b, "operator_policies", vhost, name, actor);
}

/** The policy, operator policy and merged definition that apply to a queue or exchange. */
export function policyOf(b: BrokerState, r: Queue | Exchange): AppliedPolicy {
  const v = b.vhost(r.vhost);
  return appliedPolicy(v.policies.values(), v.operatorPolicies.values(), r.kind, r.name, r.kind === "queue" ? r.type : "classic");
}

/** The audit action of a policy change: policy.set, operator_policy.clear, … */
const actionOf = (kind: PolicyKind, verb: "set" | "clear"): string => `${kind === "policies" ? "policy" : "operator_policy"}.${verb}`;

function storePolicy(b: BrokerState, kind: PolicyKind, p: PolicyRecord, validate: (p: PolicyRecord) => void, actor: Actor): boolean {
  const v = b.vhost(p.vhost);
  validate(p);
  const map = kind === "policies" ? v.policies : v.operatorPolicies;
  const before = map.get(p.name) ?? null;
  map.set(p.name, p);
  b.definitions.put(kind, definitionKey(p.vhost, p.name), p);
  b.mirror?.put(kind, p as unknown as Record<string, unknown>);
  applyPolicies(b, v);
  // RabbitMQ announces both kinds as policy.set, with the policy's terms as properties.
  const props = { name: p.name, vhost: p.vhost, pattern: p.pattern, "apply-to": p.applyTo, definition: p.definition, priority: p.priority };
  announce(b, actor, "policy.set", props, { action: actionOf(kind, "set"), vhost: p.vhost, object: p.name, before, after: p });
  return before === null;
}

function dropPolicy(b: BrokerState, kind: PolicyKind, vhost: string, name: string, actor: Actor): void {
  const v = b.vhost(vhost);
  const map = kind === "policies" ? v.policies : v.operatorPolicies;
  const before = map.get(name);
  if (!before || !map.delete(name)) throw objectNotFound();
  b.definitions.delete(kind, definitionKey(vhost, name));
  b.mirror?.delete(kind, { vhost, name });
  applyPolicies(b, v);
  const change = { action: actionOf(kind, "clear"), vhost, object: name, before, after: null };
  announce(b, actor, kind === "policies" ? "policy.cleared" : "operator.policy.cleared", { name, vhost }, change);
}

/** A policy changed: every queue and exchange of the vhost takes its (new) effective definition now. */
function applyPolicies(b: BrokerState, v: VHost): void {
  for (const q of [...v.queues.values()]) q.applyPolicy(policyOf(b, q).definition);
  for (const x of v.exchanges.values()) x.applyPolicy(policyOf(b, x).definition);
}
