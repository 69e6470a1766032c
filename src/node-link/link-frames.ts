/**
 * The inter-node link's wire format (docs/CLUSTERING.md, "The link protocol"): every frame is
 *   u32 length (of what follows) | u8 type | payload
 * little-endian. A message travels as
 *   u16 exchange length | exchange | u16 routing-key length | routing key | f64 published-at |
 *   u32 properties length | AMQP 0-9-1 property list | body (the rest of the frame)
 * — the property list is the message's cached `rawProperties` (the same bytes the store writes),
 * and the body is written as it is, never copied or joined (its pieces follow the head in one
 * corked write). Heads are built here; bodies stay the caller's.
 */
import { createMessage, type Message } from "../broker/index.js";
import type { Body } from "../broker/values/message-body.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import type { FieldTable } from "../broker/values/field-value.js";
import { decodeBasicProperties, encodeBasicProperties } from "../amqp/codec/generated.js";

// Connecting node → leading node.
export const HELLO = 1;
export const PROOF = 3;
export const QUEUE = 10;
export const PUBLISH = 11;
export const CONSUME = 20;
export const CANCEL = 21;
export const SETTLE = 22;
export const RPC = 30;
/** CONSUME with the consume's arguments (a stream's x-stream-offset): frame numbers 50–59 are the streams'. */
export const CONSUME_ARGS = 50;
/** A stream's query (stream-query-frames.ts). */
export const STREAM_QUERY = 51;
// Leading node → connecting node.
export const CHALLENGE = 2;
export const READY = 4;
export const STORED = 12;
export const REFUSED = 13;
export const DELIVER = 23;
export const CANCELLED = 24;
export const REPLY = 31;

export const RPC_GET_ACK = 1;
export const RPC_GET_NO_ACK = 2;
export const RPC_PURGE = 3;
export const RPC_DELETE = 4;
export const RPC_INFO = 5;

export const REPLY_OK = 0;
export const REPLY_ERROR = 1;

/** u32 length + u8 type. */
export const FRAME_HEAD = 5;

/** A frame of fixed-size fields: `fill` writes them after the frame head, at offset FRAME_HEAD. */
export function frame(type: number, payloadBytes: number): Buffer {
  const b = Buffer.allocUnsafe(FRAME_HEAD + payloadBytes);
  b.writeUInt32LE(1 + payloadBytes, 0);
  b[4] = type;
  return b;
}

/** A frame whose payload is `fixed` bytes of numbers then utf8 strings, each with a u16 length. */
export function frameWithStrings(type: number, fixed: number, strings: readonly string[]): { buf: Buffer; at: number } {
  let n = fixed;
  for (const s of strings) n += 2 + Buffer.byteLength(s);
  const buf = frame(type, n);
  let at = FRAME_HEAD + fixed;
  for (const s of strings) at = writeString(buf, at, s);
  return { buf, at: FRAME_HEAD };
}

export function writeString(buf: Buffer, at: number, s: string): number {
  const len = buf.write(s, at + 2);
  buf.writeUInt16LE(len, at);
  return at + 2 + len;
}

/** Reads a u16-length string at `at`; returns it and the position after it. */
export function readString(buf: Buffer, at: number): [string, number] {
  const len = buf.readUInt16LE(at);
  return [buf.toString("utf8", at + 2, at + 2 + len), at + 2 + len];
}

/**
 * The head of a frame carrying a message: the frame head, `fixed` bytes the caller fills at
 * FRAME_HEAD, then the message's exchange, routing key, time and property list. The body follows
 * it on the wire; its length is counted in the frame's length.
 */
export function messageFrameHead(type: number, fixed: number, m: Message): Buffer {
  const props = (m.rawProperties ??= encodeBasicProperties(m.properties));
  const exLen = Buffer.byteLength(m.exchange);
  const rkLen = Buffer.byteLength(m.routingKey);
  const headLen = FRAME_HEAD + fixed + 2 + exLen + 2 + rkLen + 8 + 4 + props.length;
  const head = Buffer.allocUnsafe(headLen);
  head.writeUInt32LE(headLen - 4 + m.bodySize, 0);
  head[4] = type;
  let p = FRAME_HEAD + fixed;
  head.writeUInt16LE(exLen, p);
  p += 2 + head.write(m.exchange, p + 2);
  head.writeUInt16LE(rkLen, p);
  p += 2 + head.write(m.routingKey, p + 2);
  head.writeDoubleLE(m.publishedAt, p);
  head.writeUInt32LE(props.length, p + 8);
  props.copy(head, p + 12);
  return head;
}

/** Appends a message frame's head and its body's pieces to `out` (one corked write). */
export function pushMessageFrame(out: Buffer[], head: Buffer, body: Body): void {
  out.push(head);
  if (Buffer.isBuffer(body)) {
    if (body.length > 0) out.push(body);
  } else {
    for (const piece of body) out.push(piece);
  }
}

/**
 * A consume's arguments as link bytes: an AMQP 0-9-1 property list holding only `headers`, so the
 * field table's every type (a timestamp offset, a long) crosses as the client sent it, with the
 * codec the messages use.
 */
export function encodeArguments(args: FieldTable): Buffer {
  return encodeBasicProperties({ headers: args });
}

export function decodeArguments(raw: Buffer): FieldTable {
  return decodeBasicProperties(raw).headers ?? {};
}

/** Decodes the message of a frame from `at` (its exchange) to the frame's end; the body is a slice of the frame. */
export function readMessage(f: Buffer, at: number, cache: PropertiesCache): Message {
  const [exchange, p1] = readString(f, at);
  const [routingKey, p2] = readString(f, p1);
  const publishedAt = f.readDoubleLE(p2);
  const propsLen = f.readUInt32LE(p2 + 8);
  const raw = f.subarray(p2 + 12, p2 + 12 + propsLen);
  const body = f.subarray(p2 + 12 + propsLen);
  return createMessage(exchange, routingKey, cache.of(raw), raw, body, publishedAt);
}

/**
 * The last property list a link end decoded, reused for the next message with the same bytes (a
 * publisher's messages mostly share theirs). Safe because decoded properties are never changed in
 * place (message.ts), as content-assembly.ts shares them for an AMQP channel. One per link end.
 */
export class PropertiesCache {
  private lastRaw: Buffer | null = null;
  private last: MessageProperties = {};

  of(raw: Buffer): MessageProperties {
    if (this.lastRaw !== null && raw.equals(this.lastRaw)) return this.last;
    this.last = decodeBasicProperties(raw);
    this.lastRaw = Buffer.from(raw);
    return this.last;
  }
}
