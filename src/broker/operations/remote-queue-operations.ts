/**
 * Queues led by other nodes (docs/CLUSTERING.md, "A delivery that crosses nodes", step 7): placing
 * a RemoteQueue in a vhost, and the operations that are round trips to the leader — delete,
 * purge, basic.get and a passive declare's counts. Each checks permissions and exclusivity exactly
 * as its local counterpart (queue-operations.ts) and then waits for the leader's answer; each
 * returns null when the queue is local, so a caller takes its ordinary synchronous path.
 */
import { BrokerError } from "../../errors/broker-error.js";
import { actorOf, type ClientContext } from "../client-context.js";
import type { ForwardedPublishes } from "../queue/forwarded-publishes.js";
import type { QueueLeaderPort, RemoteGot } from "../queue/queue-leader-port.js";
import type { QueueEntry } from "../queue/queue-entry.js";
import type { QueueSpec } from "../queue/queue-spec.js";
import type { Queue } from "../queue/queue-type.js";
import { RemoteQueue } from "../queue/remote-queue.js";
import type { BrokerState } from "./broker-state.js";
import { checkDeleteFlags, queueForRead, type QueueDeleteOptions } from "./queue-operations.js";
import { policyOf } from "./policy-operations.js";
import { removeQueue } from "./topology-removal.js";

export type LeaderPort = QueueLeaderPort;

/**
 * Broker.leadQueueElsewhere, the seam for placing queues on nodes (docs/CLUSTERING.md, "A publish
 * that crosses nodes"): queue `spec.name` of `vhostName` is led by the node behind `leader`, so
 * this node holds a RemoteQueue for it — routed to, consumed from and managed like any queue.
 * Replaces an earlier RemoteQueue of that name (its bindings carried over); refuses a local queue,
 * an exclusive queue (it stays on its connection's node) and a stream (not supported yet).
 */
export function leadQueueElsewhere(b: BrokerState, vhostName: string, spec: QueueSpec, leader: QueueLeaderPort, forwards: ForwardedPublishes): Queue {
  const v = b.vhost(vhostName);
  if (spec.arguments["x-queue-type"] === "stream") throw new BrokerError("notImplemented", `a stream led by another node is not supported yet ('${spec.name}')`);
  if (spec.exclusiveOwner !== null) throw new BrokerError("preconditionFailed", `exclusive queue '${spec.name}' stays on its connection's node`);
  const existing = v.queues.get(spec.name);
  if (existing !== undefined && !(existing instanceof RemoteQueue)) {
    throw new BrokerError("preconditionFailed", `queue '${spec.name}' in vhost '${vhostName}' is led by this node`);
  }
  const q = v.addRemoteQueue(spec, leader, forwards, existing ?? null);
  q.applyPolicy(policyOf(b, q).definition);
  return q;
}

/** The RemoteQueue behind `q`, or null for a local queue. */
export function leaderOf(q: Queue): RemoteQueue | null {
  return q.leadsElsewhere && q instanceof RemoteQueue ? q : null;
}

/** queue.delete of a queue led elsewhere: deleted on the leader, then forgotten here; null when local. */
export function deleteQueueOnLeader(b: BrokerState, ctx: ClientContext, vhostName: string, name: string, opts: QueueDeleteOptions): Promise<number> | null {
  const v = b.vhost(vhostName);
  ctx.permissions.check(vhostName, "configure", "queue", name);
  const q = v.queues.get(name);
  const remote = q === undefined ? null : leaderOf(q);
  if (remote === null) return null;
  remote.checkExclusiveAccess(ctx.owner);
  return (async () => {
    if (opts.ifUnused || opts.ifEmpty) {
      await remote.freshInfo();
      checkDeleteFlags(remote, opts);
    }
    const count = await remote.deleteOnLeader();
    removeQueue(b, v, remote, actorOf(ctx));
    return count;
  })();
}

/**
 * Another node deleted a queue this node holds as a RemoteQueue (a followed definitions change,
 * topology-apply.ts): it is gone on its leader already, so it is only forgotten here, with its
 * bindings. Returns false when the queue here is local (the caller deletes it as usual).
 */
export function forgetQueueLedElsewhere(b: BrokerState, vhostName: string, name: string): boolean {
  const v = b.vhost(vhostName);
  const q = v.queues.get(name);
  if (q === undefined || leaderOf(q) === null) return false;
  removeQueue(b, v, q);
  return true;
}

/** queue.purge of a queue led elsewhere; null when local. */
export function purgeQueueOnLeader(b: BrokerState, ctx: ClientContext, vhostName: string, name: string): Promise<number> | null {
  const remote = leaderOf(queueForRead(b, ctx, vhostName, name));
  return remote === null ? null : remote.purgeOnLeader();
}

/** A basic.get's answer from a leader: the entry to hold (settled like a delivery) and the ready count left. */
export interface LeaderGet {
  readonly entry: QueueEntry;
  readonly remaining: number;
}

/** basic.get of a queue led elsewhere (`q` from queueForRead); null when local. */
export function getFromLeader(q: Queue, noAck: boolean): Promise<LeaderGet | null> | null {
  const remote = leaderOf(q);
  if (remote === null) return null;
  return remote.getFromLeader(noAck).then((got: RemoteGot | null) => (got === null ? null : { entry: remote.entryOf(got), remaining: got.remaining }));
}

/** A passive declare's counts from the leader (`q` from queueForRead); null when local. */
export function countsFromLeader(q: Queue): Promise<{ messages: number; consumers: number }> | null {
  const remote = leaderOf(q);
  return remote === null ? null : remote.freshInfo();
}

