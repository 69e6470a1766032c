/**
 * Policies and operator policies of a vhost (validation and matching rules: policies.ts). A
 * change takes effect at once: every queue and exchange of the vhost takes its new effective
 * definition (queues their limits and TTLs, exchanges their alternate exchange).
 */
import { BrokerError } from "../../errors/broker-error.js";
import type { Exchange } from "../exchange/exchange.js";
import { appliedPolicy, validateOperatorPolicy, validatePolicy, type AppliedPolicy } from "../policies.js";
import type { Queue } from "../queue/queue.js";
import type { PolicyRecord, VHost } from "../vhost.js";
import { definitionKey, type BrokerState } from "./broker-state.js";

type PolicyKind = "policies" | "operator_policies";

/** Creates or replaces a policy after validating it; returns true when it was created. */
export function putPolicy(b: BrokerState, p: PolicyRecord): boolean {
  return storePolicy(b, "policies", p, validatePolicy);
}

export function deletePolicy(b: BrokerState, vhost: string, name: string): void {
  dropPolicy(b, "policies", vhost, name);
}

/** Operator policies: only RabbitMQ's operator keys; merged with user policies (smaller limit wins). */
export function putOperatorPolicy(b: BrokerState, p: PolicyRecord): boolean {
  return storePolicy(b, "operator_policies", p, validateOperatorPolicy);
}

export function deleteOperatorPolicy(b: BrokerState, vhost: string, name: string): void {
  dropPolicy(b, "operator_policies", vhost, name);
}

/** The policy, operator policy and merged definition that apply to a queue or exchange. */
export function policyOf(b: BrokerState, r: Queue | Exchange): AppliedPolicy {
  const v = b.vhost(r.vhost);
  return appliedPolicy(v.policies.values(), v.operatorPolicies.values(), r.kind, r.name, r.kind === "queue" ? r.type : "classic");
}

function storePolicy(b: BrokerState, kind: PolicyKind, p: PolicyRecord, validate: (p: PolicyRecord) => void): boolean {
  const v = b.vhost(p.vhost);
  validate(p);
  const map = kind === "policies" ? v.policies : v.operatorPolicies;
  const isNew = !map.has(p.name);
  map.set(p.name, p);
  b.definitions.put(kind, definitionKey(p.vhost, p.name), p);
  applyPolicies(b, v);
  return isNew;
}

function dropPolicy(b: BrokerState, kind: PolicyKind, vhost: string, name: string): void {
  const v = b.vhost(vhost);
  if (!(kind === "policies" ? v.policies : v.operatorPolicies).delete(name)) throw new BrokerError("objectNotFound", "Not Found");
  b.definitions.delete(kind, definitionKey(vhost, name));
  applyPolicies(b, v);
}

/** A policy changed: every queue and exchange of the vhost takes its (new) effective definition now. */
function applyPolicies(b: BrokerState, v: VHost): void {
  for (const q of [...v.queues.values()]) q.applyPolicy(policyOf(b, q).definition);
  for (const x of v.exchanges.values()) x.applyPolicy(policyOf(b, x).definition);
}
