/**
 * The link's round trip for a stream another node leads (docs/CLUSTERING.md, "Streams across the
 * workers"; frame numbers 50–59 are the streams'):
 *   STREAM_QUERY (51) u32 rpc id | u32 queue id | u8 kind | f64 offset | u16 reference
 * kind 1 publisher sequence, 2 query offset, 3 store offset (with the offset), 4 the log's figures.
 * Answered by REPLY with numbers (link-rpc.ts) or an error.
 */
import type { StreamQuery } from "../broker/index.js";
import { FRAME_HEAD, REPLY_OK, STREAM_QUERY, frameWithStrings, readString } from "./link-frames.js";

const KINDS = ["publisherSequence", "queryOffset", "storeOffset", "figures"] as const;

export function streamQueryFrame(rpcId: number, queueId: number, query: StreamQuery): Buffer {
  const reference = query.kind === "figures" ? "" : query.reference;
  const { buf } = frameWithStrings(STREAM_QUERY, 17, [reference]);
  buf.writeUInt32LE(rpcId, FRAME_HEAD);
  buf.writeUInt32LE(queueId, FRAME_HEAD + 4);
  buf[FRAME_HEAD + 8] = KINDS.indexOf(query.kind) + 1;
  buf.writeDoubleLE(query.kind === "storeOffset" ? query.offset : 0, FRAME_HEAD + 9);
  return buf;
}

/** The query of a STREAM_QUERY frame; null for a kind this node does not know. */
export function readStreamQuery(f: Buffer): { rpcId: number; queueId: number; query: StreamQuery | null } {
  const rpcId = f.readUInt32LE(FRAME_HEAD);
  const queueId = f.readUInt32LE(FRAME_HEAD + 4);
  const kind = KINDS[f[FRAME_HEAD + 8]! - 1];
  const offset = f.readDoubleLE(FRAME_HEAD + 9);
  const [reference] = readString(f, FRAME_HEAD + 17);
  if (kind === undefined) return { rpcId, queueId, query: null };
  const query: StreamQuery = kind === "figures" ? { kind } : kind === "storeOffset" ? { kind, reference, offset } : { kind, reference };
  return { rpcId, queueId, query };
}

/** The numbers of an ok REPLY (however many it carries). */
export function replyValues(f: Buffer): number[] {
  if (f[FRAME_HEAD + 4] !== REPLY_OK) return [];
  const n = (f.length - FRAME_HEAD - 5) / 8;
  return Array.from({ length: n }, (_, i) => f.readDoubleLE(FRAME_HEAD + 5 + 8 * i));
}
