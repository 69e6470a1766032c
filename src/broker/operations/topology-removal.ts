/**
 * Removing queues and exchanges, and what follows from it (RabbitMQ's cascade): a removed
 * queue's consumers are cancelled and its bindings go; a removed exchange's bindings go, both
 * as source and as destination; and an auto-delete exchange goes when its last binding as a
 * source is removed, which may cascade further. Every removal is reported to the definitions
 * sink. Used by queue and exchange deletion, unbinding, vhost deletion, exclusive-owner close
 * and queue expiry alike, so the cascade is written once.
 */
import type { Exchange, ExchangeBinding } from "../exchange/exchange.js";
import type { Queue } from "../queue/queue-type.js";
import type { VHost } from "../vhost.js";
import { bindingEventProps } from "../events/topology-event-props.js";
import { SYSTEM_ACTOR, type Actor } from "../events/actor.js";
import { announce } from "../events/announce.js";
import { definitionKey, type BrokerState } from "./broker-state.js";

/** Deletes a queue: consumers are cancelled, bindings removed, auto-delete exchanges cascade. Returns its ready count. */
export function removeQueue(b: BrokerState, v: VHost, q: Queue, actor: Actor = SYSTEM_ACTOR): number {
  if (q.isDeleted) return 0;
  const count = q.markDeleted();
  b.stats.queueDeleted++;
  const removed = v.removeQueue(q);
  if (q.durable) b.definitions.delete("queues", definitionKey(v.name, q.name));
  // Its bindings and any auto-delete exchange go on the other nodes by the same cascade. Another
  // node's exclusive queue is told gone by its own node (its connection closed, or the node was lost).
  if (b.mirror !== null && !(q.exclusiveOwner !== null && q.leadsElsewhere)) b.mirror.delete("queues", { vhost: v.name, name: q.name });
  for (const binding of removed) {
    b.definitions.delete("bindings", bindingKey(v.name, binding));
    if (b.events.detailWanted) announce(b, actor, "binding.deleted", bindingEventProps(v.name, binding));
    autoDeleteIfUnused(b, v, binding.source, actor);
  }
  if (b.events.detailWanted) announce(b, actor, "queue.deleted", { name: q.name, vhost: v.name, type: q.type });
  return count;
}

/**
 * A queue of a vhost being deleted, while no per-object events are wanted: marked deleted, its
 * definitions and its bindings' removed, and nothing taken out of the vhost's maps (they go with
 * the vhost). Only deleteVhost calls it.
 */
export function dropWithVhost(b: BrokerState, vhost: string, q: Queue): void {
  if (q.isDeleted) return;
  q.markDeleted();
  b.stats.queueDeleted++;
  if (q.durable) b.definitions.delete("queues", definitionKey(vhost, q.name));
  for (const binding of q.boundFrom as Set<ExchangeBinding>) b.definitions.delete("bindings", bindingKey(vhost, binding));
}

export function removeExchange(b: BrokerState, v: VHost, x: Exchange, actor: Actor = SYSTEM_ACTOR): void {
  const removed = v.removeExchange(x);
  if (x.durable) b.definitions.delete("exchanges", definitionKey(v.name, x.name));
  b.mirror?.delete("exchanges", { vhost: v.name, name: x.name });
  for (const binding of removed) {
    b.definitions.delete("bindings", bindingKey(v.name, binding));
    if (b.events.detailWanted) announce(b, actor, "binding.deleted", bindingEventProps(v.name, binding));
    if (binding.source !== x) autoDeleteIfUnused(b, v, binding.source, actor);
  }
  if (b.events.detailWanted) announce(b, actor, "exchange.deleted", { name: x.name, vhost: v.name });
}

/** RabbitMQ: an auto-delete exchange goes when its last binding (as a source) is removed. */
export function autoDeleteIfUnused(b: BrokerState, v: VHost, x: Exchange, actor: Actor = SYSTEM_ACTOR): void {
  if (x.autoDelete && x.bindings.size === 0 && v.exchanges.get(x.name) === x) removeExchange(b, v, x, actor);
}

/** The definitions-sink key of a binding. */
export function bindingKey(vhost: string, binding: ExchangeBinding): string {
  return definitionKey(vhost, binding.source.name, binding.key);
}
