/**
 * Queues: declare (server-named queues, RabbitMQ's redeclare and exclusivity rules, argument and
 * queue-type validation, the vhost's max-queues limit), delete, purge, the lookup for consume /
 * get / purge, and the end of an exclusive owner's queues when its connection closes.
 */
import { BrokerError, describeResource, notFound, QueueLimitReached } from "../../errors/broker-error.js";
import { actorOf, type ClientContext } from "../client-context.js";
import { announce } from "../events/announce.js";
import { queueEventProps } from "../events/topology-event-props.js";
import { queueDefinition } from "../definition-records.js";
import { assertQueueEquivalent } from "../equivalence.js";
import { checkNotReserved, generateQueueName } from "../names.js";
import { validateQueueArguments } from "../queue/queue-arguments.js";
import type { Queue } from "../queue/queue-type.js";
import type { QueueSpec } from "../queue/queue-spec.js";
import { ownerNodeElsewhere } from "../queue/owner-elsewhere.js";
import { checkQueueType, checkTypeArguments } from "../queue/queue-type-rules.js";
import { vhostLimitsOf } from "../runtime-parameters.js";
import type { MirroredRecord } from "../topology-mirror.js";
import { definitionKey, type BrokerState } from "./broker-state.js";
import { policyOf } from "./policy-operations.js";
import { removeQueue } from "./topology-removal.js";

export interface QueueDeclareResult {
  readonly queue: Queue;
  readonly created: boolean;
}

export interface QueueDeleteOptions {
  readonly ifUnused: boolean;
  readonly ifEmpty: boolean;
  /** A missing queue is NOT_FOUND (HTTP) rather than a no-op (AMQP). */
  readonly mustExist?: boolean;
}

/** queue.declare / PUT /api/queues. A passive declare only queries (read permission). */
export function declareQueue(b: BrokerState, ctx: ClientContext, vhostName: string, spec: QueueSpec, passive: boolean): QueueDeclareResult {
  const v = b.vhost(vhostName);
  if (passive) return { queue: queueForRead(b, ctx, vhostName, spec.name), created: false };
  const name = spec.name === "" ? generateQueueName() : spec.name;
  ctx.permissions.check(vhostName, "configure", "queue", name);
  const existing = v.queues.get(name);
  if (existing) {
    // RabbitMQ's strict check: a redeclare must come from the owner with the same exclusivity.
    existing.checkExclusiveAccess(spec.exclusiveOwner, true);
    assertQueueEquivalent(existing, spec);
    existing.touch();
    return { queue: existing, created: false };
  }
  // A followed server-named queue (amq.gen-…) was named by its own node's server.
  if (spec.name !== "" && ctx.followed !== true) checkNotReserved("queue", name);
  checkTypeArguments(spec.arguments, name, vhostName);
  validateQueueArguments(spec.arguments, name, vhostName);
  const maxQueues = vhostLimitsOf(v.parameters).maxQueues;
  if (maxQueues >= 0 && v.queues.size >= maxQueues) {
    throw new QueueLimitReached(`cannot declare queue '${name}': queue limit in vhost '${vhostName}' (${maxQueues}) is reached`);
  }
  const dlx = spec.arguments["x-dead-letter-exchange"];
  if (typeof dlx === "string") {
    // RabbitMQ: a dead-letter exchange needs write on it and read on the queue.
    ctx.permissions.check(vhostName, "write", "exchange", dlx);
    ctx.permissions.check(vhostName, "read", "queue", name);
  }
  checkQueueType({ ...spec, name }, vhostName);
  const q = v.addQueue({ ...spec, name });
  q.applyPolicy(policyOf(b, q).definition);
  if (q.durable && q.exclusiveOwner === null) b.definitions.put("queues", definitionKey(vhostName, name), queueDefinition(q));
  b.mirror?.put("queues", mirroredQueueRecord(b, q));
  b.stats.queueCreated++;
  if (b.events.detailWanted) announce(b, actorOf(ctx), "queue.created", queueEventProps(q));
  return { queue: q, created: true };
}

/**
 * Changes a queue's x-expires (configure permission, as a declare): the new value applies at once
 * and is saved with the queue's definition. RabbitMQ's MQTT plugin does this for a session queue
 * when an MQTT 5 client changes its session expiry in DISCONNECT.
 */
export function changeQueueExpires(b: BrokerState, ctx: ClientContext, vhostName: string, name: string, ms: number): void {
  const v = b.vhost(vhostName);
  ctx.permissions.check(vhostName, "configure", "queue", name);
  const q = v.queues.get(name);
  if (!q) throw notFound("queue", name, vhostName);
  q.checkExclusiveAccess(ctx.owner);
  validateQueueArguments({ ...q.arguments, "x-expires": ms }, name, vhostName);
  q.replaceExpires(ms, policyOf(b, q).definition);
  if (q.durable && q.exclusiveOwner === null) b.definitions.put("queues", definitionKey(vhostName, name), queueDefinition(q));
  b.mirror?.put("queues", mirroredQueueRecord(b, q));
}

/**
 * A queue as other nodes follow it (topology-mirror.ts): its definitions record, and for an
 * exclusive queue `exclusive` and `owner_node`, the node of its connection — the others hold it as
 * a RemoteQueue to that node (owner-elsewhere.ts), whatever its name's hash says.
 */
export function mirroredQueueRecord(b: BrokerState, q: Queue): MirroredRecord {
  const record = queueDefinition(q) as unknown as MirroredRecord;
  if (q.exclusiveOwner === null) return record;
  return { ...record, exclusive: true, owner_node: ownerNodeElsewhere(q) ?? b.connections.node };
}

/** queue.delete; returns the number of ready messages deleted. */
export function deleteQueue(b: BrokerState, ctx: ClientContext, vhostName: string, name: string, opts: QueueDeleteOptions): number {
  const v = b.vhost(vhostName);
  ctx.permissions.check(vhostName, "configure", "queue", name);
  const q = v.queues.get(name);
  if (!q) {
    if (opts.mustExist) throw notFound("queue", name, vhostName);
    return 0;
  }
  q.checkExclusiveAccess(ctx.owner);
  // Led by another node: only the round trip (remote-queue-operations.ts, deleteQueueAsync) deletes it there too; every caller takes it.
  if (q.leadsElsewhere) throw new BrokerError("internalError", `deleting ${describeResource("queue", name, vhostName)} led by another node needs a round trip to its leader`);
  checkDeleteFlags(q, opts);
  return removeQueue(b, v, q, actorOf(ctx));
}

/** A queue looked up for consume, get, purge or a passive declare: read permission, existence, exclusive access. */
export function queueForRead(b: BrokerState, ctx: ClientContext, vhostName: string, name: string): Queue {
  const v = b.vhost(vhostName);
  ctx.permissions.check(vhostName, "read", "queue", name);
  const q = v.queues.get(name);
  if (!q) throw notFound("queue", name, vhostName);
  q.checkExclusiveAccess(ctx.owner);
  return q;
}

/** A connection went away: its exclusive queues go with it (AMQP 0-9-1 queue.declare "exclusive"). */
export function ownerClosed(b: BrokerState, owner: object): void {
  for (const v of b.vhosts.values()) {
    for (const q of v.exclusiveQueuesOf(owner)) removeQueue(b, v, q);
  }
}

/**
 * queue.delete's if-unused and if-empty, per queue type as RabbitMQ 3.10 treats them: a classic
 * queue honours them; a quorum queue refuses either flag (NOT_IMPLEMENTED, if-unused named
 * first); a stream ignores both and is deleted.
 */
export function checkDeleteFlags(q: Queue, opts: QueueDeleteOptions): void {
  const resource = describeResource("queue", q.name, q.vhost);
  if (q.type === "quorum") {
    const flag = opts.ifUnused ? "if-unused" : opts.ifEmpty ? "if-empty" : null;
    if (flag !== null) throw new BrokerError("notImplemented", `cannot delete ${resource}. queue.delete operations with ${flag} flag set are not supported by quorum queues`);
    return;
  }
  if (q.type === "stream") return;
  if (opts.ifUnused && q.consumerCount > 0) throw new BrokerError("preconditionFailed", `${resource} in use`);
  if (opts.ifEmpty && q.messageCount > 0) throw new BrokerError("preconditionFailed", `${resource} not empty`);
}
