/**
 * The link's round trips (docs/CLUSTERING.md, "The link protocol"): basic.get, queue.purge,
 * queue.delete and a queue's counts.
 *   RPC   u32 rpc id | u8 kind | u32 queue id
 *   REPLY u32 rpc id | u8 status | … — ok: INFO f64 messages, f64 consumers, f64 unacknowledged
 *         (a node of an earlier build sends the first two); PURGE/DELETE f64
 *         count; GET u8 found, then u32 holder id | f64 entry id | u8 redelivered | u32 delivery
 *         count | f64 ready messages left | the message. error: u16 error kind | u16 text (the
 *         domain's BrokerError, rebuilt on the asking node, so its client sees the leader's code).
 *   RPC   u32 rpc id | u8 INFO_MANY | u32 n | n × u32 queue id (the management API's lists)
 *   REPLY ok: n × (f64 messages, f64 consumers, f64 unacknowledged); -1s for a queue the answering
 *         node does not lead.
 */
import { ERROR_CATALOGUE, type ErrorKind } from "../errors/catalogue.js";
import { BrokerError } from "../errors/broker-error.js";
import type { Message, RemoteGot, RemoteQueueInfo } from "../broker/index.js";
import { FRAME_HEAD, REPLY, REPLY_ERROR, REPLY_OK, RPC, RPC_INFO_MANY, type PropertiesCache, frame, frameWithStrings, messageFrameHead, readMessage, readString } from "./link-frames.js";

export function rpcFrame(id: number, kind: number, queueId: number): Buffer {
  const f = frame(RPC, 9);
  f.writeUInt32LE(id, FRAME_HEAD);
  f[FRAME_HEAD + 4] = kind;
  f.writeUInt32LE(queueId, FRAME_HEAD + 5);
  return f;
}

export function infoManyFrame(id: number, queueIds: readonly number[]): Buffer {
  const f = frame(RPC, 9 + 4 * queueIds.length);
  f.writeUInt32LE(id, FRAME_HEAD);
  f[FRAME_HEAD + 4] = RPC_INFO_MANY;
  f.writeUInt32LE(queueIds.length, FRAME_HEAD + 5);
  queueIds.forEach((q, i) => f.writeUInt32LE(q, FRAME_HEAD + 9 + 4 * i));
  return f;
}

/** The queue ids of an INFO_MANY ask. */
export function readInfoManyIds(f: Buffer): number[] {
  const n = f.readUInt32LE(FRAME_HEAD + 5);
  const ids = new Array<number>(n);
  for (let i = 0; i < n; i++) ids[i] = f.readUInt32LE(FRAME_HEAD + 9 + 4 * i);
  return ids;
}

/** The answer to an INFO_MANY ask of `n` queues: ready, consumers, unacknowledged per queue (as one INFO). */
export function replyInfoMany(f: Buffer, n: number): (RemoteQueueInfo | null)[] {
  const out = new Array<RemoteQueueInfo | null>(n);
  for (let i = 0; i < n; i++) {
    const messages = replyNumber(f, 3 * i);
    out[i] = messages < 0 ? null : { messages, consumers: replyNumber(f, 3 * i + 1), unacked: replyNumber(f, 3 * i + 2) };
  }
  return out;
}

export function replyNumbers(id: number, values: readonly number[]): Buffer {
  const f = frame(REPLY, 5 + 8 * values.length);
  f.writeUInt32LE(id, FRAME_HEAD);
  f[FRAME_HEAD + 4] = REPLY_OK;
  values.forEach((v, i) => f.writeDoubleLE(v, FRAME_HEAD + 5 + 8 * i));
  return f;
}

export function replyError(id: number, err: unknown): Buffer {
  const kind = err instanceof BrokerError ? err.kind : "internalError";
  const text = err instanceof BrokerError ? err.reason : String(err instanceof Error ? err.message : err);
  const { buf } = frameWithStrings(REPLY, 5, [kind, text]);
  buf.writeUInt32LE(id, FRAME_HEAD);
  buf[FRAME_HEAD + 4] = REPLY_ERROR;
  return buf;
}

/** A GET reply that found the queue empty. */
export function replyEmpty(id: number): Buffer {
  const f = frame(REPLY, 6);
  f.writeUInt32LE(id, FRAME_HEAD);
  f[FRAME_HEAD + 4] = REPLY_OK;
  f[FRAME_HEAD + 5] = 0;
  return f;
}

/** The head of a GET reply that found a message (its body follows); `holder` settles it (0 when no-ack). */
export function replyGotHead(id: number, holder: number, entryId: number, redelivered: boolean, deliveryCount: number, remaining: number, m: Message): Buffer {
  const head = messageFrameHead(REPLY, 5 + 1 + 4 + 8 + 1 + 4 + 8, m);
  const p = FRAME_HEAD;
  head.writeUInt32LE(id, p);
  head[p + 4] = REPLY_OK;
  head[p + 5] = 1;
  head.writeUInt32LE(holder, p + 6);
  head.writeDoubleLE(entryId, p + 10);
  head[p + 18] = redelivered ? 1 : 0;
  head.writeUInt32LE(deliveryCount, p + 19);
  head.writeDoubleLE(remaining, p + 23);
  return head;
}

export const replyId = (f: Buffer): number => f.readUInt32LE(FRAME_HEAD);

/** The error a REPLY carries, or null when it is ok. */
export function replyFailure(f: Buffer): BrokerError | null {
  if (f[FRAME_HEAD + 4] !== REPLY_ERROR) return null;
  const [kind, at] = readString(f, FRAME_HEAD + 5);
  const [text] = readString(f, at);
  return new BrokerError(kind in ERROR_CATALOGUE ? (kind as ErrorKind) : "internalError", text);
}

export const replyNumber = (f: Buffer, i: number): number => f.readDoubleLE(FRAME_HEAD + 5 + 8 * i);

/** INFO's numbers: ready, consumers, unacknowledged (a node of an earlier build sends only the first two). */
export function replyInfo(f: Buffer): RemoteQueueInfo {
  return { messages: replyNumber(f, 0), consumers: replyNumber(f, 1), unacked: f.length >= FRAME_HEAD + 5 + 24 ? replyNumber(f, 2) : 0 };
}

export function replyGot(f: Buffer, cache: PropertiesCache): RemoteGot | null {
  const p = FRAME_HEAD;
  if (f[p + 5] !== 1) return null;
  return {
    consumerId: f.readUInt32LE(p + 6),
    entryId: f.readDoubleLE(p + 10),
    redelivered: f[p + 18] === 1,
    deliveryCount: f.readUInt32LE(p + 19),
    remaining: f.readDoubleLE(p + 23),
    message: readMessage(f, p + 31, cache),
  };
}
