/**
 * Super streams (RabbitMQ 3.11+): a direct exchange whose bindings to streams carry each
 * partition's order (`x-stream-partition-order`). CreateSuperStream and DeleteSuperStream build and
 * remove the exchange, the partition streams and the bindings through the broker's usual methods
 * (so the same permissions apply: configure on the exchange and the partitions); Route answers
 * the partitions a routing key reaches (write permission), Partitions lists them in order (read
 * or write permission on the exchange and on every partition).
 */
import { definitionsFollowed, deleteQueueAsync, type Queue } from "../broker/index.js";
import { answerCreated } from "./stream-admin.js";
import type { FieldTable } from "../broker/values/field-value.js";
import { CMD, RC } from "./protocol.js";
import type { StreamContext } from "./stream-context.js";
import { codeOf } from "./stream-lookup.js";
import { response, type FrameCursor } from "./wire.js";

const ORDER = "x-stream-partition-order";

function streamList(c: StreamContext, key: number, corr: number, code: number, streams: readonly string[]): void {
  if (code !== RC.ok) c.node.countError(code);
  const w = response(key, corr, code, 64).i32(streams.length);
  for (const s of streams) w.str(s);
  c.send(w.frame());
}

function reply(c: StreamContext, key: number, corr: number, code: number): void {
  if (code !== RC.ok) c.node.countError(code);
  c.send(response(key, corr, code).frame());
}

/**
 * The super stream's partitions in their order; null when no super stream has that name.
 * Bindings with `x-stream-partition-order` come first by that order; the others after them in
 * the order RabbitMQ lists a source's bindings (its route table is sorted by binding key, then
 * destination), never in the order they were made: a super stream built with concurrent binding
 * declarations (rabbitmq-stream-js-client's own tests) still gets partitions -0, -1, -2 in place.
 */
export function partitionsOf(c: StreamContext, name: string): string[] | null {
  const x = c.openVhost.exchanges.get(name);
  if (!x || x.type !== "direct") return null;
  const parts: [number, string, string][] = [];
  for (const b of x.bindings.values()) {
    if (b.destination.kind !== "queue") continue;
    parts.push([orderOf(b.args[ORDER]), b.routingKey, b.destination.name]);
  }
  return parts.sort((a, b) => a[0] - b[0] || byCodeUnit(a[1], b[1]) || byCodeUnit(a[2], b[2])).map(([, , n]) => n);
}

/** A binding's partition order: a number, or a string of one (RabbitMQ coerces it: the client's tests bind with "0", "1", …); none sorts last. */
function orderOf(order: unknown): number {
  if (typeof order === "number") return order;
  if (typeof order === "bigint") return Number(order);
  const n = typeof order === "string" && order.trim() !== "" ? Number(order) : NaN;
  return Number.isInteger(n) ? n : Number.MAX_SAFE_INTEGER;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function route(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const routingKey = body.str() ?? "";
  const name = body.str() ?? "";
  const v = c.openVhost;
  if (!c.permissions.allows(v.name, "write", name)) return streamList(c, CMD.route, corr, RC.accessRefused, []);
  const x = v.exchanges.get(name);
  if (!x) return streamList(c, CMD.route, corr, RC.streamDoesNotExist, []);
  const out: Queue[] = [];
  v.route(x, routingKey, {}, out);
  const names = out.map((q) => q.name);
  if (names.some((n) => !c.permissions.allows(v.name, "write", n))) return streamList(c, CMD.route, corr, RC.accessRefused, []);
  streamList(c, CMD.route, corr, RC.ok, names);
}

export function partitions(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const name = body.str() ?? "";
  const v = c.openVhost;
  const may = (n: string): boolean => c.permissions.allows(v.name, "read", n) || c.permissions.allows(v.name, "write", n);
  if (!may(name)) return streamList(c, CMD.partitions, corr, RC.accessRefused, []);
  const parts = partitionsOf(c, name);
  if (parts === null) return streamList(c, CMD.partitions, corr, RC.streamDoesNotExist, []);
  if (!parts.every(may)) return streamList(c, CMD.partitions, corr, RC.accessRefused, []);
  streamList(c, CMD.partitions, corr, RC.ok, parts);
}

export function createSuperStream(c: StreamContext, body: FrameCursor, streamArguments: (args: Map<string, string>) => FieldTable | null): void {
  const corr = body.u32();
  const name = body.str() ?? "";
  const nParts = body.count(2);
  const parts: string[] = [];
  for (let i = 0; i < nParts; i++) parts.push(body.str() ?? "");
  const nKeys = body.count(2);
  const keys: string[] = [];
  for (let i = 0; i < nKeys; i++) keys.push(body.str() ?? "");
  const args = streamArguments(body.map());
  const v = c.openVhost;
  if (name === "" || parts.length === 0 || parts.length !== keys.length || parts.some((p) => p === "") || new Set(parts).size !== parts.length || args === null) {
    return reply(c, CMD.createSuperStream, corr, RC.preconditionFailed);
  }
  const allowed = c.permissions.allows(v.name, "configure", name) && c.permissions.allows(v.name, "read", name) && parts.every((p) => c.permissions.allows(v.name, "configure", p) && c.permissions.allows(v.name, "write", p));
  if (!allowed) return reply(c, CMD.createSuperStream, corr, RC.accessRefused);
  if (v.exchanges.has(name) || parts.some((p) => v.queues.has(p))) return reply(c, CMD.createSuperStream, corr, RC.streamAlreadyExists);
  const broker = c.node.broker;
  try {
    broker.declareExchange(c.ctx, v.name, { name, type: "direct", durable: true, autoDelete: false, internal: false, arguments: { "x-super-stream": true } }, false);
    parts.forEach((p, i) => {
      broker.declareQueue(c.ctx, v.name, { name: p, durable: true, autoDelete: false, exclusiveOwner: null, arguments: args }, false);
      broker.bindQueue(c.ctx, v.name, p, name, keys[i]!, { [ORDER]: i });
    });
  } catch (err) {
    return reply(c, CMD.createSuperStream, corr, codeOf(err));
  }
  // As Create (stream-admin.ts): on a node others follow, answered once every node applied the
  // exchange, partitions and bindings, so the client's next step on any node (Metadata, Route, the
  // management API on another worker) finds them.
  // A spread cluster refuses a create that lost to the same names made first on another node: they existed first.
  answerCreated(c, CMD.createSuperStream, corr);
}

export function deleteSuperStream(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const name = body.str() ?? "";
  const v = c.openVhost;
  if (!c.permissions.allows(v.name, "configure", name)) return reply(c, CMD.deleteSuperStream, corr, RC.accessRefused);
  const parts = partitionsOf(c, name);
  if (parts === null) return reply(c, CMD.deleteSuperStream, corr, RC.streamDoesNotExist);
  if (!parts.every((p) => c.permissions.allows(v.name, "configure", p))) return reply(c, CMD.deleteSuperStream, corr, RC.accessRefused);
  const broker = c.node.broker;
  // A partition another node leads is deleted on its leader (deleteQueueAsync; RabbitMQ deletes
  // every member); the exchange goes once they are gone, the answer once every node followed.
  void (async () => {
    for (const p of parts) await deleteQueueAsync(broker, c.ctx, v.name, p, { ifUnused: false, ifEmpty: false });
    broker.deleteExchange(c.ctx, v.name, name, false);
    await definitionsFollowed(broker);
  })().then(
    () => reply(c, CMD.deleteSuperStream, corr, RC.ok),
    (err: unknown) => reply(c, CMD.deleteSuperStream, corr, codeOf(err)),
  );
}
