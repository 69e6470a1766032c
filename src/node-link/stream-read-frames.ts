/**
 * The link's frames for a native stream subscription read from the leader's log (issue 42;
 * docs/CLUSTERING.md "The link protocol"; frame numbers 70–79; only to a leader that offered
 * FEATURE_STREAM_READ). Little-endian, after the frame head:
 *   connecting node → leader
 *     READ_SUBSCRIBE   70  u32 read id | u32 queue id | u32 credit | u8 start kind | f64 start value | properties as u16-length strings, key then value
 *     READ_CREDIT      71  u32 read id | u32 chunks
 *     READ_CANCEL      72  u32 read id
 *   leader → connecting node
 *     READ_STARTED     73  u32 read id
 *     READ_CHUNK       74  u32 read id | f64 first offset | u32 messages | f64 committed chunk | f64 committed offset | the chunk as a client receives it
 *     READ_ENDED       75  u32 read id | u8 why (1 the stream is gone, 2 not led there)
 *     READ_UPDATE      78  u32 read id | u8 active (a single-active-consumer read's turn; only to a node that offered FEATURE_STREAM_PUBLISH)
 *   connecting node → leader
 *     READ_UPDATED     79  u32 read id | u8 start kind (0 none) | f64 start value (the client's ConsumerUpdate answer)
 * Start kinds: 1 first, 2 last, 3 next, 4 offset (the value), 5 timestamp (the value, in ms).
 */
import type { StreamReadEnd, StreamReadTerms, StreamStart } from "../broker/index.js";
import { FRAME_HEAD, frame, frameWithStrings, readString } from "./link-frames.js";

export const READ_SUBSCRIBE = 70;
export const READ_CREDIT = 71;
export const READ_CANCEL = 72;
export const READ_STARTED = 73;
export const READ_CHUNK = 74;
export const READ_ENDED = 75;
export const READ_UPDATE = 78;
export const READ_UPDATED = 79;

/** READ_CHUNK's fixed fields after the frame head. */
export const CHUNK_FIXED = 32;

const KINDS = ["first", "last", "next", "offset", "timestamp"] as const;

export function subscribeFrame(readId: number, queueId: number, terms: StreamReadTerms): Buffer {
  const strings: string[] = [];
  for (const [k, v] of terms.properties) strings.push(k, v);
  const { buf } = frameWithStrings(READ_SUBSCRIBE, 21, strings);
  const s = terms.start;
  buf.writeUInt32LE(readId, FRAME_HEAD);
  buf.writeUInt32LE(queueId, FRAME_HEAD + 4);
  buf.writeUInt32LE(terms.credit, FRAME_HEAD + 8);
  buf[FRAME_HEAD + 12] = KINDS.indexOf(s.kind) + 1;
  buf.writeDoubleLE(s.kind === "offset" ? s.offset : s.kind === "timestamp" ? s.ms : 0, FRAME_HEAD + 13);
  return buf;
}

/** A READ_SUBSCRIBE's fields; `terms` null for a start kind this node does not know. */
export function readSubscribe(f: Buffer): { readId: number; queueId: number; terms: StreamReadTerms | null } {
  const readId = f.readUInt32LE(FRAME_HEAD);
  const queueId = f.readUInt32LE(FRAME_HEAD + 4);
  const credit = f.readUInt32LE(FRAME_HEAD + 8);
  const kind = KINDS[f[FRAME_HEAD + 12]! - 1];
  const value = f.readDoubleLE(FRAME_HEAD + 13);
  const properties = new Map<string, string>();
  for (let at = FRAME_HEAD + 21; at < f.length; ) {
    const [k, p] = readString(f, at);
    const [v, p2] = readString(f, p);
    properties.set(k, v);
    at = p2;
  }
  if (kind === undefined) return { readId, queueId, terms: null };
  const start: StreamStart = kind === "offset" ? { kind, offset: value } : kind === "timestamp" ? { kind, ms: value } : { kind };
  return { readId, queueId, terms: { start, credit, properties } };
}

/** READ_CREDIT or READ_CANCEL (`n` unused), or READ_STARTED. */
export function idFrame(type: number, readId: number, n = 0): Buffer {
  const f = frame(type, type === READ_CREDIT ? 8 : 4);
  f.writeUInt32LE(readId, FRAME_HEAD);
  if (type === READ_CREDIT) f.writeUInt32LE(n, FRAME_HEAD + 4);
  return f;
}

export function endedFrame(readId: number, why: StreamReadEnd): Buffer {
  const f = frame(READ_ENDED, 5);
  f.writeUInt32LE(readId, FRAME_HEAD);
  f[FRAME_HEAD + 4] = why === "notFound" ? 1 : 2;
  return f;
}

export function endOf(f: Buffer): StreamReadEnd {
  return f[FRAME_HEAD + 4] === 1 ? "notFound" : "unavailable";
}

export function updateFrame(readId: number, active: boolean): Buffer {
  const f = frame(READ_UPDATE, 5);
  f.writeUInt32LE(readId, FRAME_HEAD);
  f[FRAME_HEAD + 4] = active ? 1 : 0;
  return f;
}

export function updatedFrame(readId: number, start: StreamStart | null): Buffer {
  const f = frame(READ_UPDATED, 13);
  f.writeUInt32LE(readId, FRAME_HEAD);
  f[FRAME_HEAD + 4] = start === null ? 0 : KINDS.indexOf(start.kind) + 1;
  f.writeDoubleLE(start === null ? 0 : start.kind === "offset" ? start.offset : start.kind === "timestamp" ? start.ms : 0, FRAME_HEAD + 5);
  return f;
}

/** A READ_UPDATED's start (null: none, or a kind this node does not know). */
export function updatedStart(f: Buffer): StreamStart | null {
  const kind = KINDS[f[FRAME_HEAD + 4]! - 1];
  const value = f.readDoubleLE(FRAME_HEAD + 5);
  if (kind === undefined) return null;
  return kind === "offset" ? { kind, offset: value } : kind === "timestamp" ? { kind, ms: value } : { kind };
}
