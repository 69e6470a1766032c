/**
 * What the `/management` node does for each HTTP-style request (RabbitMQ 4's
 * rabbit_amqp_management): declare, inspect, delete and purge queues, declare and delete
 * exchanges, bind, unbind and list bindings — each through the same Broker methods as AMQP 0-9-1's
 * queue.declare, exchange.declare, queue.bind … and the HTTP API, so the domain's rules
 * (equivalence, exclusivity, argument validation, limits) and its permission checks apply once.
 *
 * Status codes as RabbitMQ 4 answers: 200 (queue info, counts, binding list), 201 (queue
 * created), 204 (exchange and binding operations), 400 (a bad request, or the domain refused),
 * 403 (the default exchange, a reserved "amq." name, the vhost's queue limit), 404 (no such queue), 409 (an existing
 * queue or exchange declared differently). A missing permission is not a status: like RabbitMQ 4
 * the session ends with amqp:unauthorized-access (the checks below come first, in its order).
 */
import { BrokerError } from "../errors/broker-error.js";
import { countsFromLeader, deleteQueueOnLeader, purgeQueueOnLeader, type ExchangeBinding, type Queue, type VHost } from "../broker/index.js";
import { QueueLimitReached } from "../errors/broker-error.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { NULL } from "../amqp10/amqp10-value.js";
import { Amqp1Error, CONDITION } from "./amqp1-errors.js";
import type { SessionConnection } from "./link-host.js";
import { argumentsHash, badRequest, decodeBinding, decodeExchange, decodeQueue, decodeSegment, encodeBindings, encodeQueue, ManagementError, messageCountBody, parseBindingSegment, type BindingBody } from "./management-bodies.js";

export interface ManagementResponse {
  readonly status: string;
  readonly body: Amqp10Value;
}

/**
 * An answer now, or later for a queue another worker leads (docs/CLUSTERING.md: the round trip
 * every surface takes, remote-queue-operations.ts). Only those operations return a promise; every
 * local one stays synchronous, so a single node's path is unchanged.
 */
export type ManagementAnswer = ManagementResponse | Promise<ManagementResponse>;

type PermissionKind = "configure" | "write" | "read";

/** A refused permission ends the session (RabbitMQ 4), so it is checked before anything is done. */
function permit(conn: SessionConnection, kind: PermissionKind, resource: "queue" | "exchange", name: string): void {
  try {
    conn.permissions!.check(conn.vhost, kind, resource, name);
  } catch (err) {
    if (err instanceof BrokerError && err.kind === "accessRefused") throw new Amqp1Error(CONDITION.unauthorizedAccess, err.reason, "session");
    throw err;
  }
}

/** A domain refusal as the status RabbitMQ 4 gives it; `notFound` is 404 only where it says so. */
function refused(err: unknown, statuses: { notFound?: string; preconditionFailed?: string; accessRefused?: string }): never {
  if (!(err instanceof BrokerError)) throw err;
  // rabbit_amqp_management answers queue_limit_exceeded with 403, not a precondition's 409.
  if (err instanceof QueueLimitReached) throw new ManagementError("403", err.reason);
  const status = (err.kind === "notFound" || err.kind === "preconditionFailed" || err.kind === "accessRefused" ? statuses[err.kind] : undefined) ?? "400";
  throw new ManagementError(status, err.reason);
}

function prohibitCrLf(name: string): void {
  if (name.includes("\n") || name.includes("\r")) throw badRequest(`Bad name '${name}': line feed and carriage return characters not allowed`);
}

function prohibitReserved(kind: "queue" | "exchange", name: string, vhost: string): void {
  if (name.startsWith("amq.")) throw new ManagementError("403", `${kind} '${name}' in vhost '${vhost}' starts with reserved prefix 'amq.'`);
}

const defaultExchangeRefused = (): ManagementError => new ManagementError("403", "operation not permitted on the default exchange");

export function getQueue(conn: SessionConnection, quoted: string): ManagementAnswer {
  const name = decodeSegment(quoted);
  // As a passive queue.declare in RabbitMQ 4: any one of the three permissions will do.
  const p = conn.permissions!;
  if (!p.allows(conn.vhost, "read", name) && !p.allows(conn.vhost, "write", name)) permit(conn, "configure", "queue", name);
  const q = conn.vhostRef!.queues.get(name);
  if (q === undefined) throw new ManagementError("404", `queue '${name}' in vhost '${conn.vhost}' not found`);
  return queueInfo(conn, q, "200");
}

/** The queue map with its counts: the leader's fresh ones (a round trip) for a queue another worker leads, as a passive queue.declare. */
function queueInfo(conn: SessionConnection, q: Queue, status: string): ManagementAnswer {
  const node = conn.broker.connections.node;
  const counts = countsFromLeader(q);
  if (counts === null) return { status, body: encodeQueue(q, node, q.messageCount, q.consumerCount) };
  return counts.then(
    (c) => ({ status, body: encodeQueue(q, node, c.messages, c.consumers) }),
    (err: unknown) => refused(err, { notFound: "404" }),
  );
}

export function putQueue(conn: SessionConnection, quoted: string, body: Amqp10Value): ManagementAnswer {
  const spec = decodeQueue(body);
  const name = decodeSegment(quoted);
  if (name === "") throw badRequest("declare queue with empty name not allowed");
  prohibitCrLf(name);
  prohibitReserved("queue", name, conn.vhost);
  permit(conn, "configure", "queue", name);
  try {
    const r = conn.broker.declareQueue(conn.ctx!, conn.vhost, { name, durable: spec.durable, autoDelete: spec.autoDelete, exclusiveOwner: spec.exclusive ? conn : null, arguments: spec.arguments }, false);
    const q = r.queue;
    if (!r.created) return queueInfo(conn, q, "200");
    const created = { status: "201", body: encodeQueue(q, conn.broker.connections.node, 0, 0) };
    // As 0-9-1's declare-ok (queue-methods.ts): answered once every worker holds the queue, so a
    // publish anywhere after the client heard 201 routes to it.
    const mirror = conn.broker.mirror;
    return mirror?.settled === undefined ? created : mirror.settled().then(() => created);
  } catch (err) {
    return refused(err, { preconditionFailed: "409", accessRefused: "403" });
  }
}

const countResponse = (n: number): ManagementResponse => ({ status: "200", body: messageCountBody(n) });

const NOT_IF = { ifUnused: false, ifEmpty: false } as const;

export function deleteQueue(conn: SessionConnection, quoted: string): ManagementAnswer {
  const name = decodeSegment(quoted);
  prohibitCrLf(name);
  permit(conn, "configure", "queue", name);
  try {
    const onLeader = deleteQueueOnLeader(conn.broker, conn.ctx!, conn.vhost, name, NOT_IF);
    if (onLeader !== null) return onLeader.then(countResponse, (err: unknown) => refused(err, {}));
    return countResponse(conn.broker.deleteQueue(conn.ctx!, conn.vhost, name, NOT_IF));
  } catch (err) {
    return refused(err, {});
  }
}

export function purgeQueue(conn: SessionConnection, quoted: string): ManagementAnswer {
  const name = decodeSegment(quoted);
  permit(conn, "read", "queue", name);
  try {
    const onLeader = purgeQueueOnLeader(conn.broker, conn.ctx!, conn.vhost, name);
    if (onLeader !== null) return onLeader.then(countResponse, (err: unknown) => refused(err, { notFound: "404" }));
    return countResponse(conn.broker.purgeQueue(conn.ctx!, conn.vhost, name));
  } catch (err) {
    return refused(err, { notFound: "404" });
  }
}

export function putExchange(conn: SessionConnection, quoted: string, body: Amqp10Value): ManagementResponse {
  const spec = decodeExchange(body);
  const name = decodeSegment(quoted);
  if (name === "") throw defaultExchangeRefused();
  permit(conn, "configure", "exchange", name);
  if (!conn.vhostRef!.exchanges.has(name)) {
    // Only a new exchange's name is checked: redeclaring amq.direct as it is succeeds (RabbitMQ 4).
    prohibitCrLf(name);
    prohibitReserved("exchange", name, conn.vhost);
  }
  try {
    conn.broker.declareExchange(conn.ctx!, conn.vhost, { name, ...spec }, false);
  } catch (err) {
    return refused(err, { preconditionFailed: "409", accessRefused: "403" });
  }
  return { status: "204", body: NULL };
}

export function deleteExchange(conn: SessionConnection, quoted: string): ManagementResponse {
  const name = decodeSegment(quoted);
  prohibitCrLf(name);
  if (name === "") throw defaultExchangeRefused();
  prohibitReserved("exchange", name, conn.vhost);
  permit(conn, "configure", "exchange", name);
  try {
    conn.broker.deleteExchange(conn.ctx!, conn.vhost, name, false);
  } catch (err) {
    return refused(err, {});
  }
  return { status: "204", body: NULL };
}

/** RabbitMQ 4's binding_checks: no default exchange, no CR/LF, write on the destination, read on the source (and its topic key). */
function bindingChecks(conn: SessionConnection, source: string, kind: "queue" | "exchange", destination: string, key: string): void {
  for (const name of [source, destination]) if (name === "") throw defaultExchangeRefused();
  prohibitCrLf(source);
  prohibitCrLf(destination);
  permit(conn, "write", kind, destination);
  permit(conn, "read", "exchange", source);
  if (conn.vhostRef!.exchanges.get(source)?.type === "topic") {
    try {
      conn.permissions!.checkTopic(conn.vhost, source, "read", key);
    } catch (err) {
      if (err instanceof BrokerError) throw new Amqp1Error(CONDITION.unauthorizedAccess, err.reason, "session");
      throw err;
    }
  }
}

export function postBinding(conn: SessionConnection, body: Amqp10Value): ManagementResponse {
  const b: BindingBody = decodeBinding(body);
  bindingChecks(conn, b.source, b.destinationKind, b.destination, b.bindingKey);
  try {
    if (b.destinationKind === "queue") conn.broker.bindQueue(conn.ctx!, conn.vhost, b.destination, b.source, b.bindingKey, b.arguments);
    else conn.broker.bindExchange(conn.ctx!, conn.vhost, b.destination, b.source, b.bindingKey, b.arguments);
  } catch (err) {
    return refused(err, {});
  }
  return { status: "204", body: NULL };
}

/** The bindings from `source` to the destination (with `key`, when given). */
function bindingsBetween(v: VHost, source: string, kind: "queue" | "exchange", destination: string, key: string | null): ExchangeBinding[] {
  const x = v.exchanges.get(source);
  if (x === undefined) return [];
  const out: ExchangeBinding[] = [];
  for (const b of x.bindings.values()) {
    if (b.destination.kind === kind && b.destination.name === destination && (key === null || b.routingKey === key)) out.push(b);
  }
  return out;
}

export function deleteBinding(conn: SessionConnection, segment: string): ManagementResponse {
  const s = parseBindingSegment(segment);
  bindingChecks(conn, s.source, s.destinationKind, s.destination, s.key);
  const found = bindingsBetween(conn.vhostRef!, s.source, s.destinationKind, s.destination, s.key).find((b) => argumentsHash(b.args) === s.argsHash);
  // A binding that is not there is already unbound: 204 as well (RabbitMQ 4).
  if (found === undefined) return { status: "204", body: NULL };
  try {
    if (s.destinationKind === "queue") conn.broker.unbindQueue(conn.ctx!, conn.vhost, s.destination, s.source, s.key, found.args);
    else conn.broker.unbindExchange(conn.ctx!, conn.vhost, s.destination, s.source, s.key, found.args);
  } catch (err) {
    return refused(err, {});
  }
  return { status: "204", body: NULL };
}

export function listBindings(conn: SessionConnection, query: URLSearchParams): ManagementResponse {
  const source = query.get("src");
  const key = query.get("key");
  const dstq = query.get("dstq");
  const dste = query.get("dste");
  if (source === null || key === null) throw badRequest("the query needs 'src' and 'key'");
  const [kind, destination] = dste !== null ? (["exchange", dste] as const) : dstq !== null ? (["queue", dstq] as const) : [null, null];
  if (kind === null) throw badRequest(`missing 'dste' or 'dstq' in query: ${query.toString()}`);
  bindingChecks(conn, source, kind, destination, key);
  return { status: "200", body: encodeBindings(bindingsBetween(conn.vhostRef!, source, kind, destination, key)) };
}
