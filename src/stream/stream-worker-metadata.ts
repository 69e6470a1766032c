/**
 * Metadata under `coney --workers N` (docs/CLUSTERING.md, "Streams across the workers"): each
 * stream's leader is the worker leading it, named by that worker's own stream port
 * (stream-worker-ports.ts) on this node's advertised host; the brokers listed are the leaders of
 * the streams asked for. A stream has no replicas (the workers share one disk; nothing is
 * replicated). A stream whose leading worker is down (its link is not up) is
 * `stream_not_available`, as RabbitMQ answers for a stream without an available leader.
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

export function workerMetadata(c: StreamContext, corr: number, names: readonly string[], host: string, workers: StreamWorkerPorts): void {
  const ports: number[] = [];
  const refOf = (port: number): number => {
    const i = ports.indexOf(port);
    return i >= 0 ? i : ports.push(port) - 1;
  };
  const found = names.map((name): Found => {
    if (typeof streamFor(c, name, null) !== "number") return { name, code: RC.ok, ref: refOf(workers.own) };
    const remote = remoteStream(c, name);
    if (remote === null) return { name, code: RC.streamDoesNotExist, ref: -1 };
    const port = remote.leader.up ? workers.portOf(remote.node) : null;
    return port === null ? { name, code: RC.streamNotAvailable, ref: -1 } : { name, code: RC.ok, ref: refOf(port) };
  });
  const f = new FrameWriter(CMD.metadata | RESPONSE, 1, 128).u32(corr).i32(ports.length);
  ports.forEach((port, i) => f.u16(i).str(host).u32(port));
  f.i32(found.length);
  for (const s of found) {
    f.str(s.name).u16(s.code);
    if (s.ref >= 0) f.u16(s.ref).i32(0);
    else f.u16(0xffff).i32(0);
  }
  c.send(f.frame());
}
