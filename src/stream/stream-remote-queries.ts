/**
 * The commands a client sends on any connection (its locator connection, in the clients) about a
 * stream another worker leads (docs/CLUSTERING.md, "Streams across the workers"): answered with
 * the leader's numbers over the link, as RabbitMQ answers them on a node holding no member of the
 * stream. QueryPublisherSequence, QueryOffset and StreamStats wait for the leader; StoreOffset has
 * no response (a refused one is only logged, as on the leader).
 */
import type { RemoteStreamQueue } from "../broker/index.js";
import { CMD, RC } from "./protocol.js";
import type { StreamContext } from "./stream-context.js";
import { codeOf, remoteStream } from "./stream-lookup.js";
import { response } from "./wire.js";

/** The remote stream `name` when it is one and the user may read it; a response code when it is one and may not; null when it is no remote stream. */
export function readableRemote(c: StreamContext, name: string | null): RemoteStreamQueue | number | null {
  const q = remoteStream(c, name);
  if (q === null) return null;
  return c.permissions.allows(c.openVhost.name, "read", q.name) ? q : RC.accessRefused;
}

function refuse(c: StreamContext, key: number, corr: number, code: number, tail: "u64" | "i32"): void {
  c.node.countError(code);
  const w = response(key, corr, code);
  c.send((tail === "u64" ? w.u64(0) : w.i32(0)).frame());
}

export function remotePublisherSequence(c: StreamContext, corr: number, q: RemoteStreamQueue | number, reference: string): void {
  if (typeof q === "number") return refuse(c, CMD.queryPublisherSequence, corr, q, "u64");
  q.query({ kind: "publisherSequence", reference }).then(
    ([seq]) => c.send(response(CMD.queryPublisherSequence, corr, RC.ok).u64(seq ?? 0).frame()),
    (err: unknown) => refuse(c, CMD.queryPublisherSequence, corr, codeOf(err), "u64"),
  );
}

export function remoteQueryOffset(c: StreamContext, corr: number, q: RemoteStreamQueue | number, reference: string): void {
  if (typeof q === "number") return refuse(c, CMD.queryOffset, corr, q, "u64");
  q.query({ kind: "queryOffset", reference }).then(
    ([found, offset]) => {
      if (found !== 1) return refuse(c, CMD.queryOffset, corr, RC.noOffset, "u64");
      c.send(response(CMD.queryOffset, corr, RC.ok).u64(offset ?? 0).frame());
    },
    (err: unknown) => refuse(c, CMD.queryOffset, corr, codeOf(err), "u64"),
  );
}

export function remoteStoreOffset(c: StreamContext, q: RemoteStreamQueue | number, reference: string, offset: number): void {
  if (typeof q === "number" || reference === "" || reference.length > 256) {
    c.node.log.warn("stream offset not stored", { stream: typeof q === "number" ? null : q.name, reference, code: typeof q === "number" ? q : RC.preconditionFailed });
    return;
  }
  q.query({ kind: "storeOffset", reference, offset }).catch((err: unknown) => c.node.log.warn("stream offset not stored on its leader", { stream: q.name, reference, err }));
}

export function remoteStreamStats(c: StreamContext, corr: number, q: RemoteStreamQueue | number): void {
  if (typeof q === "number") return refuse(c, CMD.streamStats, corr, q, "i32");
  q.query({ kind: "figures" }).then(
    ([first = 0, , next = 0, lastChunk = 0]) => {
      const empty = next === first;
      const stats: [string, number][] = [
        ["first_chunk_id", empty ? -1 : first],
        ["committed_chunk_id", empty ? -1 : lastChunk],
        ["last_chunk_id", empty ? -1 : lastChunk],
      ];
      const w = response(CMD.streamStats, corr, RC.ok, 128).i32(stats.length);
      for (const [k, v] of stats) w.str(k).i64(v);
      c.send(w.frame());
    },
    (err: unknown) => refuse(c, CMD.streamStats, corr, codeOf(err), "i32"),
  );
}
