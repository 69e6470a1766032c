/**
 * Virtual hosts: create or update one (its metadata; a new vhost comes with RabbitMQ's
 * predeclared exchanges), and delete one with everything in it: its connections are closed,
 * its queues and exchanges removed, and the permissions, policies and parameters that name it
 * dropped from the definitions.
 */
import type { QueueHost } from "../queue/queue-type.js";
import { VHost, type VHostMetadata } from "../vhost.js";
import type { Actor } from "../events/actor.js";
import { announce } from "../events/announce.js";
import { definitionKey, type BrokerState } from "./broker-state.js";
import { dropWithVhost, removeExchange, removeQueue } from "./topology-removal.js";

/** Creates or updates a vhost; returns true when it was created. Its queues will ask `queueHost` for what they need. */
export function putVhost(b: BrokerState, queueHost: QueueHost, name: string, metadata: Partial<VHostMetadata>, actor: Actor): boolean {
  const existing = b.vhosts.get(name);
  const before = existing ? { ...existing.metadata } : null;
  const merged: VHostMetadata = {
    description: metadata.description ?? existing?.metadata.description ?? "",
    tags: metadata.tags ?? existing?.metadata.tags ?? [],
    defaultQueueType: metadata.defaultQueueType ?? existing?.metadata.defaultQueueType ?? "classic",
    tracing: metadata.tracing ?? existing?.metadata.tracing ?? false,
  };
  if (existing) existing.metadata = merged;
  else b.vhosts.set(name, new VHost(name, merged, queueHost));
  b.definitions.put("vhosts", name, { name, ...merged });
  b.mirror?.put("vhosts", { name, ...merged });
  const change = { action: "vhost.put", vhost: name, object: name, before, after: merged };
  announce(b, actor, existing ? "vhost.updated" : "vhost.created", { name, description: merged.description, tags: merged.tags, default_queue_type: merged.defaultQueueType }, change);
  return !existing;
}

/** Deletes a vhost with everything in it, and closes its connections. */
export function deleteVhost(b: BrokerState, name: string, actor: Actor): void {
  const v = b.vhost(name);
  const before = { ...v.metadata };
  for (const conn of b.connections.inVhost(name)) conn.forceClose(`vhost '${name}' is deleted`);
  if (b.events.detailWanted) {
    for (const q of [...v.queues.values()]) removeQueue(b, v, q, actor);
  } else {
    // Nobody listens to per-object events: each queue is only marked deleted (its consumers are
    // cancelled, its contents dropped) and its definitions removed; the vhost's maps and the
    // bindings in them go with the vhost instead of one by one (coney/testing's reset deletes
    // vhosts of thousands of queues). Bindings never cross vhosts, so nothing outside refers to them.
    for (const q of v.queues.values()) dropWithVhost(b, v.name, q);
  }
  for (const x of [...v.exchanges.values()]) if (x.name !== "" && !x.name.startsWith("amq.")) removeExchange(b, v, x, actor);
  for (const p of b.users.permissionsOfVhost(name)) b.definitions.delete("permissions", definitionKey(name, p.user));
  b.users.clearVhost(name);
  for (const policy of v.policies.keys()) b.definitions.delete("policies", definitionKey(name, policy));
  for (const policy of v.operatorPolicies.keys()) b.definitions.delete("operator_policies", definitionKey(name, policy));
  for (const [component, byName] of v.parameters) {
    for (const param of byName.keys()) b.definitions.delete("parameters", definitionKey(name, component, param));
  }
  b.vhosts.delete(name);
  b.definitions.delete("vhosts", name);
  b.mirror?.delete("vhosts", { name });
  // The vhost's features stop (a shovel, a federation link) once it is gone.
  for (const [component, byName] of v.parameters) for (const param of byName.keys()) b.parameterComponents.notifyCleared(component, name, param);
  announce(b, actor, "vhost.deleted", { name }, { action: "vhost.delete", vhost: name, object: name, before, after: null });
}
