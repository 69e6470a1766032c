/**
 * Runtime parameters (validation: runtime-parameters.ts): vhost-scoped ones, kept by the vhost
 * by component and name, and global ones kept by the broker by name.
 */
import { BrokerError } from "../../errors/broker-error.js";
import { validateGlobalParameter, validateParameter } from "../runtime-parameters.js";
import { definitionKey, type BrokerState } from "./broker-state.js";

/** PUT /api/parameters/{component}/{vhost}/{name}: validated first; returns true when created. */
export function putParameter(b: BrokerState, component: string, vhostName: string, name: string, value: unknown): boolean {
  const v = b.vhost(vhostName);
  validateParameter(component, name, value);
  let byName = v.parameters.get(component);
  if (!byName) v.parameters.set(component, (byName = new Map()));
  const isNew = !byName.has(name);
  byName.set(name, value);
  b.definitions.put("parameters", definitionKey(vhostName, component, name), { vhost: vhostName, component, name, value });
  return isNew;
}

export function deleteParameter(b: BrokerState, component: string, vhostName: string, name: string): void {
  const byName = b.vhost(vhostName).parameters.get(component);
  if (!byName?.delete(name)) throw new BrokerError("objectNotFound", "Not Found");
  b.definitions.delete("parameters", definitionKey(vhostName, component, name));
}

export function putGlobalParameter(b: BrokerState, name: string, value: unknown): boolean {
  validateGlobalParameter(name, value);
  const isNew = !b.globalParameters.has(name);
  b.globalParameters.set(name, value);
  b.definitions.put("global_parameters", name, { name, value });
  return isNew;
}

export function deleteGlobalParameter(b: BrokerState, name: string): void {
  if (!b.globalParameters.delete(name)) throw new BrokerError("objectNotFound", "Not Found");
  b.definitions.delete("global_parameters", name);
}
