/**
 * Queues led by other nodes (docs/CLUSTERING.md, "A delivery that crosses nodes", step 7): placing
 * a RemoteQueue in a vhost, and the operations that are round trips to the leader — delete,
 * purge, basic.get and a passive declare's counts. Each checks permissions and exclusivity exactly
 * as its local counterpart (queue-operations.ts) and then waits for the leader's answer; each
 * returns null when the queue is local, so a caller takes its ordinary synchronous path.
 *
 * The `…Async` forms are for every caller that can wait — the management API, MQTT, STOMP, AMQP
 * 1.0, shovels and federation: one promise whatever leads the queue, the local operation when it
 * is this node's (the same checks, written once in queue-operations.ts). AMQP 0-9-1 keeps its
 * synchronous path and holds its reading only for a round trip (leader-round-trips.ts).
 */
import { BrokerError } from "../../errors/broker-error.js";
import { actorOf, type ClientContext } from "../client-context.js";
import type { ForwardedPublishes } from "../queue/forwarded-publishes.js";
import type { QueueLeaderPort, RemoteGot } from "../queue/queue-leader-port.js";
import type { QueueEntry } from "../queue/queue-entry.js";
import type { QueueSpec } from "../queue/queue-spec.js";
import type { Queue } from "../queue/queue-type.js";
import { RemoteQueue } from "../queue/remote-queue.js";
import { OwnerElsewhere } from "../queue/owner-elsewhere.js";
import type { BrokerState } from "./broker-state.js";
import { checkDeleteFlags, deleteQueue, queueForRead, type QueueDeleteOptions } from "./queue-operations.js";
import { policyOf } from "./policy-operations.js";
import { removeQueue } from "./topology-removal.js";

export type LeaderPort = QueueLeaderPort;

/**
 * Broker.leadQueueElsewhere, the seam for placing queues on nodes (docs/CLUSTERING.md, "A publish
 * that crosses nodes"): queue `spec.name` of `vhostName` is led by the node behind `leader`, so
 * this node holds a RemoteQueue for it — routed to, consumed from and managed like any queue.
 * Replaces an earlier RemoteQueue of that name (its bindings carried over); refuses a local queue,
 * an exclusive queue of a connection of this node (it stays here); a stream is held as a RemoteStreamQueue.
 */
export function leadQueueElsewhere(b: BrokerState, vhostName: string, spec: QueueSpec, leader: QueueLeaderPort, forwards: ForwardedPublishes): Queue {
  const v = b.vhost(vhostName);
  if (spec.exclusiveOwner !== null && !(spec.exclusiveOwner instanceof OwnerElsewhere)) throw new BrokerError("preconditionFailed", `exclusive queue '${spec.name}' stays on its connection's node`);
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
    remote.deletingOnLeader = true;
    let count: number;
    try {
      count = await remote.deleteOnLeader();
    } finally {
      remote.deletingOnLeader = false;
    }
    removeQueue(b, v, remote, actorOf(ctx));
    return count;
  })();
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


/** queue.delete for a caller that can wait: on the leader when it leads elsewhere, else here; rejects with the BrokerError either gives. */
export async function deleteQueueAsync(b: BrokerState, ctx: ClientContext, vhostName: string, name: string, opts: QueueDeleteOptions): Promise<number> {
  return deleteQueueOnLeader(b, ctx, vhostName, name, opts) ?? deleteQueue(b, ctx, vhostName, name, opts);
}

/** queue.purge for a caller that can wait (see deleteQueueAsync). */
export async function purgeQueueAsync(b: BrokerState, ctx: ClientContext, vhostName: string, name: string): Promise<number> {
  const q = queueForRead(b, ctx, vhostName, name);
  const remote = leaderOf(q);
  return remote === null ? q.purge() : remote.purgeOnLeader();
}

/** basic.get for a caller that can wait (`q` from queueForRead): the entry (held unless no-ack) and the ready count left. */
export async function getAsync(q: Queue, noAck: boolean): Promise<LeaderGet | null> {
  const onLeader = getFromLeader(q, noAck);
  if (onLeader !== null) return onLeader;
  const entry = q.get(noAck);
  return entry === null ? null : { entry, remaining: q.messageCount };
}

/**
 * A queue its leader deleted (the definitions relay says so): this node forgets its RemoteQueue
 * (its consumers here are cancelled) with no round trip; a local queue is deleted as a client's
 * delete would.
 */
export function forgetDeletedQueue(b: BrokerState, ctx: ClientContext, vhostName: string, name: string): void {
  const v = b.vhosts.get(vhostName);
  const q = v?.queues.get(name);
  if (v === undefined || q === undefined) return;
  if (leaderOf(q) !== null) removeQueue(b, v, q);
  else deleteQueue(b, ctx, vhostName, name, { ifUnused: false, ifEmpty: false });
}
