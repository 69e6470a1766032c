/**
 * The stream protocol's management commands: Create and Delete (configure permission, through
 * the same broker methods as an AMQP `x-queue-type: stream` declare), Metadata (with the
 * advertised host and port), StreamStats, StoreOffset / QueryOffset (kept in the stream's
 * tracking, durably), ExchangeCommandVersions.
 */
import type { FieldTable } from "../broker/values/field-value.js";
import { CMD, RC, RESPONSE, SERVER_VERSIONS } from "./protocol.js";
import type { StreamContext } from "./stream-context.js";
import { codeOf, remoteStream, streamFor } from "./stream-lookup.js";
import { definitionsAnswered, definitionsFollowed, deleteQueueOnLeader } from "../broker/index.js";
import { BrokerError } from "../errors/broker-error.js";
import { workerMetadata } from "./stream-worker-metadata.js";
import { readableRemote, remoteQueryOffset, remoteStoreOffset, remoteStreamStats } from "./stream-remote-queries.js";
import { FrameWriter, response, type FrameCursor } from "./wire.js";

/** Create's arguments (strings) → the queue arguments RabbitMQ turns them into. */
const NUMERIC_ARGUMENTS: Record<string, string> = {
  "max-length-bytes": "x-max-length-bytes",
  "stream-max-segment-size-bytes": "x-stream-max-segment-size-bytes",
  "stream-filter-size-bytes": "x-stream-filter-size-bytes",
  // Kept as the queue's argument as RabbitMQ keeps it (a single node has one member whatever it says).
  "initial-cluster-size": "x-initial-cluster-size",
};
const TEXT_ARGUMENTS: Record<string, string> = { "max-age": "x-max-age", "queue-leader-locator": "x-queue-leader-locator" };

/**
 * Create's (and CreateSuperStream's) arguments as the stream queue's; null when one is not valid.
 * Keys RabbitMQ does not know are left out, as its stream manager leaves them out.
 */
export function streamArguments(args: Map<string, string>): FieldTable | null {
  const table: FieldTable = { "x-queue-type": "stream" };
  for (const [k, v] of args) {
    if (NUMERIC_ARGUMENTS[k] !== undefined) {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || (k === "initial-cluster-size" && n === 0)) return null;
      table[NUMERIC_ARGUMENTS[k]!] = n;
    } else if (TEXT_ARGUMENTS[k] !== undefined) table[TEXT_ARGUMENTS[k]!] = v;
  }
  return table;
}

function reply(c: StreamContext, key: number, corr: number, code: number): void {
  if (code !== RC.ok) c.node.countError(code);
  c.send(response(key, corr, code).frame());
}

export function create(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const name = body.str() ?? "";
  const args = body.map();
  if (name === "" || name.length > 255) return reply(c, CMD.create, corr, RC.preconditionFailed);
  if (!c.permissions.allows(c.openVhost.name, "configure", name)) return reply(c, CMD.create, corr, RC.accessRefused);
  if (c.openVhost.queues.has(name)) return reply(c, CMD.create, corr, RC.streamAlreadyExists);
  const table = streamArguments(args);
  if (table === null) return reply(c, CMD.create, corr, RC.preconditionFailed);
  try {
    c.node.broker.declareQueue(c.ctx, c.openVhost.name, { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: table }, false);
  } catch (err) {
    return reply(c, CMD.create, corr, codeOf(err));
  }
  // On a node others follow (workers, a spread cluster): answered once every node applied the
  // declare (the mirror's barrier), so the client's next connection — to the leader's port that
  // Metadata names, or to any other node — finds it. A round trip on the link would not do: it
  // never declares (a queue just deleted must not come back).
  // A spread cluster refuses a Create that lost to the same name created first with other arguments
  // on another node (TopologyMirror.verdict): the stream existed first, RabbitMQ's stream_already_exists.
  answerCreated(c, CMD.create, corr);
}

/** Create's (and CreateSuperStream's) OK once the other nodes followed (definitionsAnswered); a lost race is stream_already_exists. */
export function answerCreated(c: StreamContext, key: number, corr: number): void {
  const followed = definitionsAnswered(c.node.broker);
  if (followed === null) return reply(c, key, corr, RC.ok);
  followed.then(
    () => reply(c, key, corr, RC.ok),
    (err: unknown) => reply(c, key, corr, err instanceof BrokerError && err.kind === "preconditionFailed" ? RC.streamAlreadyExists : codeOf(err)),
  );
}

export function remove(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const name = body.str();
  const remote = remoteStream(c, name);
  const q = remote ?? streamFor(c, name, "configure");
  if (typeof q === "number") return reply(c, CMD.delete, corr, q);
  const broker = c.node.broker;
  let deleting: Promise<number>;
  try {
    // A stream another node leads is deleted on its leader (the permission checked here), then forgotten here.
    deleting = deleteQueueOnLeader(broker, c.ctx, c.openVhost.name, q.name, { ifUnused: false, ifEmpty: false }) ?? Promise.resolve(broker.deleteQueue(c.ctx, c.openVhost.name, q.name, { ifUnused: false, ifEmpty: false }));
  } catch (err) {
    return reply(c, CMD.delete, corr, codeOf(err));
  }
  // As Create: answered once every other node followed, so the client's next Create or Metadata,
  // on whichever node it lands, no longer finds the stream (RabbitMQ answers after its transaction).
  deleting.then(() => definitionsFollowed(broker)).then(
    () => reply(c, CMD.delete, corr, RC.ok),
    (err: unknown) => reply(c, CMD.delete, corr, codeOf(err)),
  );
}

export function metadata(c: StreamContext, body: FrameCursor, advertised: { host: string; port: number; tls: boolean }): void {
  const corr = body.u32();
  const n = body.count(2);
  const names: string[] = [];
  for (let i = 0; i < n; i++) names.push(body.str() ?? "");
  if (c.node.workers !== null && !advertised.tls) return workerMetadata(c, corr, names, advertised, c.node.workers);
  const found = names.map((name) => ({ name, code: typeof streamFor(c, name, null) === "number" ? RC.streamDoesNotExist : RC.ok }));
  // In a cluster every stream has a copy on each in-sync follower, which serves its consumers
  // (docs/STREAMS.md, "Followers serve the stream port"): they are the replicas, brokers 1…n.
  // A client on the TLS listener is sent the replicas' TLS ports (those without one are left out).
  const replicas: Array<{ host: string; port: number }> = [];
  for (const m of c.node.cluster?.members() ?? []) {
    if (m.leader || !m.running || !m.inSync || m.stream === null) continue;
    const port = advertised.tls ? m.stream.tlsPort : m.stream.port;
    if (port !== null) replicas.push({ host: m.stream.host, port });
  }
  // A Metadata response has no response code of its own: each stream has one.
  const f = new FrameWriter(CMD.metadata | RESPONSE, 1, 128).u32(corr);
  const anyFound = found.some((s) => s.code === RC.ok);
  if (anyFound) {
    f.i32(1 + replicas.length).u16(0).str(advertised.host).u32(advertised.port);
    replicas.forEach((r, i) => f.u16(i + 1).str(r.host).u32(r.port));
  } else f.i32(0);
  f.i32(found.length);
  for (const s of found) {
    f.str(s.name).u16(s.code);
    if (s.code === RC.ok) {
      f.u16(0).i32(replicas.length);
      replicas.forEach((_, i) => f.u16(i + 1));
    } else f.u16(0xffff).i32(0);
  }
  c.send(f.frame());
}

export function streamStats(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const name = body.str();
  const remote = readableRemote(c, name);
  if (remote !== null) return remoteStreamStats(c, corr, remote);
  const q = streamFor(c, name, "read");
  if (typeof q === "number") {
    c.node.countError(q);
    return void c.send(response(CMD.streamStats, corr, q).i32(0).frame());
  }
  const log = q.stream;
  const empty = log.nextOffset === log.firstOffset;
  const stats: [string, number][] = [
    ["first_chunk_id", empty ? -1 : log.firstOffset],
    ["committed_chunk_id", empty ? -1 : log.lastChunkOffset],
    ["last_chunk_id", empty ? -1 : log.lastChunkOffset],
  ];
  const w = response(CMD.streamStats, corr, RC.ok, 128).i32(stats.length);
  for (const [k, v] of stats) w.str(k).i64(v);
  c.send(w.frame());
}

/** StoreOffset has no response: a refused one is only logged (as RabbitMQ does). */
export function storeOffset(c: StreamContext, body: FrameCursor): void {
  const reference = body.str() ?? "";
  const name = body.str();
  const offset = body.u64();
  const remote = readableRemote(c, name);
  if (remote !== null) return remoteStoreOffset(c, remote, reference, offset);
  const q = streamFor(c, name, "read");
  if (typeof q === "number" || reference === "" || reference.length > 256) {
    c.node.log.warn("stream offset not stored", { stream: name, reference, code: q });
    return;
  }
  q.stream.storeOffset(reference, offset);
}

export function queryOffset(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const reference = body.str() ?? "";
  const name = body.str();
  const remote = readableRemote(c, name);
  if (remote !== null) return remoteQueryOffset(c, corr, remote, reference);
  const q = streamFor(c, name, "read");
  if (typeof q === "number") {
    c.node.countError(q);
    return void c.send(response(CMD.queryOffset, corr, q).u64(0).frame());
  }
  const offset = q.stream.queryOffset(reference);
  if (offset === undefined) c.node.countError(RC.noOffset);
  c.send(response(CMD.queryOffset, corr, offset === undefined ? RC.noOffset : RC.ok).u64(offset ?? 0).frame());
}

export function exchangeCommandVersions(c: StreamContext, body: FrameCursor): void {
  const corr = body.u32();
  const n = body.count(6);
  for (let i = 0; i < n; i++) {
    const key = body.u16();
    body.u16();
    const max = body.u16();
    if (key === CMD.deliver && max >= 2) c.deliverVersion = 2;
  }
  const w = response(CMD.exchangeCommandVersions, corr, RC.ok, 256).i32(SERVER_VERSIONS.length);
  for (const [key, min, max] of SERVER_VERSIONS) w.u16(key).u16(min).u16(max);
  c.send(w.frame());
}
