/**
 * A queue's leadership moving between nodes with its group (docs/CLUSTERING.md, "Built: group
 * stores under the workers"): the node giving the group up holds each of its queues as a
 * RemoteQueue to the new leader from now on, and the node taking it holds each as a local queue
 * again, whose messages its group's store then recovers. Neither is a declare or a delete: the
 * definitions, the mirror and the event exchange are not told (nothing about the queue changed),
 * and the bindings stay, carried over to the new object so routing finds it at once.
 */
import type { ExchangeBinding } from "../exchange/exchange.js";
import { Binding } from "../binding.js";
import type { ForwardedPublishes } from "../queue/forwarded-publishes.js";
import type { QueueLeaderPort } from "../queue/queue-leader-port.js";
import type { QueueSpec } from "../queue/queue-spec.js";
import type { Queue } from "../queue/queue-type.js";
import { RemoteQueue } from "../queue/remote-queue.js";
import type { BrokerState } from "./broker-state.js";
import { policyOf } from "./policy-operations.js";

function specOf(q: Queue): QueueSpec {
  return { name: q.name, durable: q.durable, autoDelete: q.autoDelete, exclusiveOwner: q.exclusiveOwner, arguments: q.arguments, group: null };
}

/**
 * This node gave `q`'s group up: `q` is handed over (its consumers here get `basic.cancel`, its
 * messages stay in the group's store) and a RemoteQueue to `leader` takes its place. The caller
 * closes the group's store afterwards; until then nothing new reaches `q`.
 */
export function handQueueOver(b: BrokerState, forwards: ForwardedPublishes, vhostName: string, q: Queue, leader: QueueLeaderPort): Queue {
  const v = b.vhost(vhostName);
  q.handOver();
  const remote = v.addRemoteQueue({ ...specOf(q), group: null }, leader, forwards, q);
  remote.applyPolicy(policyOf(b, remote).definition);
  return remote;
}

/**
 * This node took `q`'s group (its store is open here): the RemoteQueue is forgotten (its consumers
 * here are cancelled, as when a leader is lost) and a local queue of the same definition takes its
 * place, in the group the placement names. The caller recovers the group's store next.
 */
export function leadQueueHere(b: BrokerState, vhostName: string, q: Queue): Queue {
  const v = b.vhost(vhostName);
  q.handOver();
  const bindings = [...q.boundFrom] as ExchangeBinding[];
  v.removeQueue(q);
  const local = v.addQueue(specOf(q));
  if (local.leadsElsewhere) throw new Error(`queue '${q.name}' in vhost '${vhostName}' is not placed on this node`);
  for (const e of bindings) v.attach(new Binding(e.source, local, e.routingKey, e.args));
  local.applyPolicy(policyOf(b, local).definition);
  return local;
}

/** The port a RemoteQueue is held over; null for a local queue. */
export function leaderPortOf(q: Queue): QueueLeaderPort | null {
  return q instanceof RemoteQueue ? q.leader : null;
}
