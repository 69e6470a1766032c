/**
 * Runtime parameters (validation: runtime-parameters.ts): vhost-scoped ones, kept by the vhost
 * by component and name, and global ones kept by the broker by name.
 */
import type { Actor } from "../events/actor.js";
import { announce } from "../events/announce.js";
import { canonicalJson } from "../canonical-json.js";
import { VHOST_LIMITS_COMPONENT, validateGlobalParameter } from "../runtime-parameters.js";
import { definitionKey, type BrokerState } from "./broker-state.js";
import { objectNotFound } from "../../errors/reasons.js";

/** PUT /api/parameters/{component}/{vhost}/{name}: validated first; returns true when created. */
export function putParameter(b: BrokerState, component: string, vhostName: string, name: string, value: unknown, actor: Actor): boolean {
  const v = b.vhost(vhostName);
  b.parameterComponents.validate(component, vhostName, name, value, actor.authMethod === "internal" ? null : actor.user);
  let byName = v.parameters.get(component);
  if (!byName) v.parameters.set(component, (byName = new Map()));
  const isNew = !byName.has(name);
  const before = isNew ? null : byName.get(name);
  byName.set(name, value);
  b.definitions.put("parameters", definitionKey(vhostName, component, name), { vhost: vhostName, component, name, value });
  b.mirror?.put("parameters", { vhost: vhostName, component, name, value });
  const change = { action: "parameter.set", vhost: vhostName, object: `${component}/${name}`, before, after: value };
  announce(b, actor, "parameter.set", { component, name, vhost: vhostName, value }, change);
  if (component === VHOST_LIMITS_COMPONENT) announce(b, actor, "vhost.limits.set", { name: vhostName, definition: value });
  // As RabbitMQ: the feature hears a value only when it changed (an identical PUT restarts no shovel).
  if (isNew || canonicalJson(before) !== canonicalJson(value)) b.parameterComponents.notifySet(component, vhostName, name, value);
  return isNew;
}

export function deleteParameter(b: BrokerState, component: string, vhostName: string, name: string, actor: Actor): void {
  const byName = b.vhost(vhostName).parameters.get(component);
  const before = byName?.get(name);
  if (!byName?.delete(name)) throw objectNotFound();
  b.definitions.delete("parameters", definitionKey(vhostName, component, name));
  b.mirror?.delete("parameters", { vhost: vhostName, component, name });
  announce(b, actor, "parameter.cleared", { component, name, vhost: vhostName }, { action: "parameter.clear", vhost: vhostName, object: `${component}/${name}`, before, after: null });
  if (component === VHOST_LIMITS_COMPONENT) announce(b, actor, "vhost.limits.cleared", { name: vhostName });
  b.parameterComponents.notifyCleared(component, vhostName, name);
}

export function putGlobalParameter(b: BrokerState, name: string, value: unknown, actor: Actor): boolean {
  validateGlobalParameter(name, value);
  const isNew = !b.globalParameters.has(name);
  const before = isNew ? null : b.globalParameters.get(name);
  b.globalParameters.set(name, value);
  b.definitions.put("global_parameters", name, { name, value });
  b.mirror?.put("global_parameters", { name, value });
  announce(b, actor, "parameter.set", { component: "global", name, value }, { action: "global_parameter.set", vhost: null, object: name, before, after: value });
  return isNew;
}

export function deleteGlobalParameter(b: BrokerState, name: string, actor: Actor): void {
  const before = b.globalParameters.get(name);
  if (!b.globalParameters.delete(name)) throw objectNotFound();
  b.definitions.delete("global_parameters", name);
  b.mirror?.delete("global_parameters", { name });
  announce(b, actor, "parameter.cleared", { component: "global", name }, { action: "global_parameter.clear", vhost: null, object: name, before, after: null });
}
