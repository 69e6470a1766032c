/**
 * The link's node queries (frame numbers 60–69; docs/CLUSTERING.md, "The link protocol"): a
 * question to the node at the other end about itself rather than one of its queues — a spread
 * cluster's whole-broker lists (connections, channels, consumers, overview figures), its process
 * figures for /api/nodes, and the definitions barrier. The body is JSON both ways (rare, small,
 * never on a message's path):
 *   NODE_QUERY (60) u32 rpc id | JSON query (the rest of the frame)
 *   REPLY      (31) u32 rpc id | u8 status | ok: JSON answer (the rest) — error: as link-rpc.ts
 * The accepting node answers with the NodeQueryAnswerer its composition gave the link server; a
 * node that has none answers NOT_IMPLEMENTED.
 */
import { FRAME_HEAD, NODE_QUERY, REPLY, REPLY_OK, frame } from "./link-frames.js";

/** Answers a peer's query (may be async); `peer` is the asking node's name. */
export type NodeQueryAnswerer = (query: unknown, peer: string) => unknown;

export function nodeQueryFrame(id: number, query: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(query ?? null));
  const f = frame(NODE_QUERY, 4 + json.length);
  f.writeUInt32LE(id, FRAME_HEAD);
  json.copy(f, FRAME_HEAD + 4);
  return f;
}

/** The rpc id and query of a NODE_QUERY frame (throws on JSON that does not parse). */
export function readNodeQuery(f: Buffer): { id: number; query: unknown } {
  return { id: f.readUInt32LE(FRAME_HEAD), query: JSON.parse(f.toString("utf8", FRAME_HEAD + 4)) as unknown };
}

export function replyJson(id: number, value: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(value ?? null));
  const f = frame(REPLY, 5 + json.length);
  f.writeUInt32LE(id, FRAME_HEAD);
  f[FRAME_HEAD + 4] = REPLY_OK;
  json.copy(f, FRAME_HEAD + 5);
  return f;
}

/** The answer of an ok REPLY to a NODE_QUERY. */
export const replyJsonValue = (f: Buffer): unknown => JSON.parse(f.toString("utf8", FRAME_HEAD + 5)) as unknown;
