/**
 * Metadata under `coney --workers N` and in a spread cluster (docs/CLUSTERING.md, "Streams across
 * the workers", "Streams in a spread cluster"): each stream's leader is the node leading it, named
 * by its own stream port (stream-worker-ports.ts) on this node's advertised host (workers) or on
 * the host that node registered (spread); the brokers listed are the leaders of the streams asked
 * for. A stream has no replicas: the workers share one disk, and a spread node's copies of another
 * node's store serve no reader (they wait to be adopted). A stream whose leading node is down (its
 * link is not up) is `stream_not_available`, as RabbitMQ answers for a stream without an
 * available leader.
 */
import { RC, RESPONSE, CMD } from "./protocol.js";
import type { StreamContext } from "./stream-context.js";
import { remoteStream, streamFor } from "./stream-lookup.js";
import type { StreamWorkerPorts } from "./stream-worker-ports.js";
import { FrameWriter } from "./wire.js";

interface Found {
  readonly name: string;
  readonly code: number;
  /** Index of the leader in the brokers listed; -1: none. */
  readonly ref: number;
}

export function workerMetadata(c: StreamContext, corr: number, names: readonly string[], advertised: { readonly host: string; readonly port: number }, workers: StreamWorkerPorts): void {
  const brokers: Array<{ readonly host: string; readonly port: number }> = [];
  const refOf = (host: string, port: number): number => {
    const i = brokers.findIndex((b) => b.port === port && b.host === host);
    return i >= 0 ? i : brokers.push({ host, port }) - 1;
  };
  const found = names.map((name): Found => {
    if (typeof streamFor(c, name, null) !== "number") return { name, code: RC.ok, ref: refOf(advertised.host, workers.own ?? advertised.port) };
    const remote = remoteStream(c, name);
    if (remote === null) return { name, code: RC.streamDoesNotExist, ref: -1 };
    const port = remote.leader.up ? workers.portOf(remote.node) : null;
    return port === null ? { name, code: RC.streamNotAvailable, ref: -1 } : { name, code: RC.ok, ref: refOf(workers.hostOf?.(remote.node) ?? advertised.host, port) };
  });
  const f = new FrameWriter(CMD.metadata | RESPONSE, 1, 128).u32(corr).i32(brokers.length);
  brokers.forEach((b, i) => f.u16(i).str(b.host).u32(b.port));
  f.i32(found.length);
  for (const s of found) {
    f.str(s.name).u16(s.code);
    if (s.ref >= 0) f.u16(s.ref).i32(0);
    else f.u16(0xffff).i32(0);
  }
  c.send(f.frame());
}
