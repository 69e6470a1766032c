/**
 * The inter-node link's wire format (docs/CLUSTERING.md, "The link protocol"): every frame is
 *   u32 length (of what follows) | u8 type | payload
 * little-endian. A message travels as
 *   u16 exchange length | exchange | u16 routing-key length | routing key | f64 published-at |
 *   u32 properties length | AMQP 0-9-1 property list | body (the rest of the frame)
 * — the property list is the message's cached `rawProperties` (the same bytes the store writes).
 * Heads are built here, in place in the link writer's slab on the hot paths (putMessageHead); the
 * writer copies a small body after its head and references a large one (link-writer.ts).
 */
import { createMessage, type Message, type QueueSpec, type RemoteConsumeTerms } from "../broker/index.js";
import type { Body } from "../broker/values/message-body.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import type { FieldTable } from "../broker/values/field-value.js";
import { decodeBasicProperties, encodeBasicProperties } from "../amqp/codec/generated.js";
import { MEMO_MAX, memoUtf8 } from "../amqp/codec/byte-reader.js";
import type { LinkWriter } from "./link-writer.js";
import type { SlabPool } from "../listeners/slab-pool.js";

/** Bodies at least this large stay in a pooled read slab under a lease; smaller ones are copied (the AMQP listener's rule). */
export const LEASED_BODY_MIN = 256;

// Connecting node → leading node.
export const HELLO = 1;
export const PROOF = 3;
export const QUEUE = 10;
export const PUBLISH = 11;
export const CONSUME = 20;
export const CANCEL = 21;
export const SETTLE = 22;
export const RPC = 30;
/** A reply to a direct reply-to requester of the accepting node (issue 42): the message alone, its routing key naming the requester. */
export const DIRECT_REPLY = 40;
/** CONSUME with the consume's arguments (a stream's x-stream-offset): frame numbers 50–59 are the streams'. */
export const CONSUME_ARGS = 50;
/** A stream's query (stream-query-frames.ts). */
export const STREAM_QUERY = 51;
/** A question to the node itself, answered in JSON (node-query-frames.ts): frame numbers 60–69 are the node queries'. */
export const NODE_QUERY = 60;
// Leading node → connecting node.
export const CHALLENGE = 2;
export const READY = 4;
export const STORED = 12;
export const REFUSED = 13;
export const DELIVER = 23;
export const CANCELLED = 24;
export const REPLY = 31;
/**
 * A delivery of a message the connecting node itself forwarded, by its link position instead of
 * its content (issue 42, fourth pass; only when both ends offered it: link-handshake.ts):
 * DELIVER's fixed fields, then f64 position. Sent while the leader handles that PUBLISH, before
 * the STORED covering it, so the connecting node still keeps it (kept-forwards.ts). Frame numbers
 * 90–99 are the forwarded path's.
 */
export const DELIVER_OWN = 90;
/** Connecting node → leading node: small messages sharing their head in one frame (publish-runs.ts; issue 42, sixth pass). */
export const PUBLISH_RUN = 94;
/** Leading node → connecting node: DELIVER_OWNs of consecutive positions to one consumer in one frame (own-runs.ts; issue 42, sixth pass). */
export const DELIVER_OWN_RUN = 95;

export const RPC_GET_ACK = 1;
export const RPC_GET_NO_ACK = 2;
export const RPC_PURGE = 3;
export const RPC_DELETE = 4;
export const RPC_INFO = 5;
/** Many queues' counts in one ask (link-rpc.ts infoManyFrame; only to a leader that offered FEATURE_INFO_MANY). */
export const RPC_INFO_MANY = 6;

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

/** Strings up to this many characters are measured and written in JavaScript (a call into C++ costs more). */
const SHORT = 64;

/** The UTF-8 length of `s`: its length when it is ASCII (a non-ASCII character always takes more bytes than characters). */
export function utf8Length(s: string): number {
  const n = s.length;
  if (n > SHORT) return Buffer.byteLength(s);
  for (let i = 0; i < n; i++) if (s.charCodeAt(i) > 0x7f) return Buffer.byteLength(s);
  return n;
}

/** Writes `s` (`len` bytes, from utf8Length) with its u16 length at `at`; returns the position after it. */
export function putString(b: Buffer, at: number, s: string, len: number): number {
  b[at] = len & 0xff;
  b[at + 1] = len >>> 8;
  if (len === s.length && len <= SHORT) for (let i = 0; i < len; i++) b[at + 2 + i] = s.charCodeAt(i);
  else b.write(s, at + 2, len);
  return at + 2 + len;
}

/** Copies `src` into `b` at `at` (a short property list in JavaScript, a longer one by memcpy). */
export function putBytes(b: Buffer, at: number, src: Buffer): void {
  const n = src.length;
  if (n > SHORT) src.copy(b, at);
  else for (let i = 0; i < n; i++) b[at + i] = src[i]!;
}

/** The head of a message frame (see the module's header) written at `at` of `b`, which holds `headLen` bytes from there. */
function writeMessageHead(b: Buffer, at: number, headLen: number, type: number, fixed: number, m: Message, exLen: number, rkLen: number, props: Buffer): void {
  b.writeUInt32LE(headLen - 4 + m.bodySize, at);
  b[at + 4] = type;
  let p = putString(b, at + FRAME_HEAD + fixed, m.exchange, exLen);
  p = putString(b, p, m.routingKey, rkLen);
  b.writeDoubleLE(m.publishedAt, p);
  b.writeUInt32LE(props.length, p + 8);
  putBytes(b, p + 12, props);
}

/**
 * The head of a frame carrying a message: the frame head, `fixed` bytes the caller fills at
 * FRAME_HEAD, then the message's exchange, routing key, time and property list. The body follows
 * it on the wire; its length is counted in the frame's length. A Buffer of its own: for the rare
 * frames (a basic.get reply); the hot paths build theirs in the writer's slab (putMessageHead).
 */
export function messageFrameHead(type: number, fixed: number, m: Message): Buffer {
  const props = (m.rawProperties ??= encodeBasicProperties(m.properties));
  const exLen = utf8Length(m.exchange);
  const rkLen = utf8Length(m.routingKey);
  const headLen = FRAME_HEAD + fixed + 2 + exLen + 2 + rkLen + 12 + props.length;
  const head = Buffer.allocUnsafe(headLen);
  writeMessageHead(head, 0, headLen, type, fixed, m, exLen, rkLen, props);
  return head;
}

/**
 * A message frame's head built in `w`'s slab (no Buffer of its own): returns the offset in
 * `w.slab` of its `fixed` bytes, which the caller fills at once, before it writes the body with
 * `w.writeBody(m.body)` (the next write may move to a new slab).
 */
export function putMessageHead(w: LinkWriter, type: number, fixed: number, m: Message): number {
  const props = (m.rawProperties ??= encodeBasicProperties(m.properties));
  const exLen = utf8Length(m.exchange);
  const rkLen = utf8Length(m.routingKey);
  const headLen = FRAME_HEAD + fixed + 2 + exLen + 2 + rkLen + 12 + props.length;
  const at = w.reserve(headLen);
  writeMessageHead(w.slab, at, headLen, type, fixed, m, exLen, rkLen, props);
  return at + FRAME_HEAD;
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

/** A whole message frame with no fixed fields (DIRECT_REPLY), as the pieces to write. */
export function messageFramePieces(type: number, m: Message): Buffer[] {
  const pieces: Buffer[] = [];
  pushMessageFrame(pieces, messageFrameHead(type, 0, m), m.body);
  return pieces;
}

/** A queue's definitions record (definition-records.ts's shape), as QUEUE carries it, built from what the port is given. */
export function queueRecord(q: QueueSpec & { readonly vhost: string }): string {
  return JSON.stringify({ name: q.name, vhost: q.vhost, type: q.arguments["x-queue-type"] ?? "classic", durable: q.durable, auto_delete: q.autoDelete, arguments: q.arguments });
}

/** A u16-length string at `at` (`n` bytes after its length); short ones from the codec's memo (a publisher repeats its exchange and routing key). */
export function readLinkString(f: Buffer, at: number, n: number): string {
  return n <= MEMO_MAX ? memoUtf8(f, at, n) : f.toString("utf8", at, at + n);
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

/**
 * Decodes the message of a frame from `at` (its exchange) to the frame's end; the body is a slice
 * of the frame. Given the pool the link's reads come from (link-reads.ts), a frame lying in one of
 * its slabs keeps nothing of it uncounted: a body under LEASED_BODY_MIN is copied, a larger one is
 * leased (the Message carries the lease; whoever keeps the message holds or pins it; the lease of
 * a frame joined from several reads, in no slab, holds nothing).
 */
export function readMessage(f: Buffer, at: number, cache: PropertiesCache, slabs: SlabPool | null = null): Message {
  const exLen = f[at]! | (f[at + 1]! << 8);
  const exchange = readLinkString(f, at + 2, exLen);
  const p1 = at + 2 + exLen;
  const rkLen = f[p1]! | (f[p1 + 1]! << 8);
  const routingKey = readLinkString(f, p1 + 2, rkLen);
  const p2 = p1 + 2 + rkLen;
  const publishedAt = f.readDoubleLE(p2);
  const propsLen = f.readUInt32LE(p2 + 8);
  const properties = cache.read(f, p2 + 12, propsLen);
  return bodyMessage(f, p2 + 12 + propsLen, f.length, exchange, routingKey, properties, cache.raw, publishedAt, slabs);
}

/** A message whose body is `f`'s bytes from `start` to `end`, kept as readMessage says (copied when small, else leased from `slabs`). */
export function bodyMessage(f: Buffer, start: number, end: number, exchange: string, routingKey: string, properties: MessageProperties, raw: Buffer, publishedAt: number, slabs: SlabPool | null): Message {
  if (slabs !== null) {
    // Not asked whether `f` lies in a slab (a call into C++ for its ArrayBuffer, per message): a
    // small body is copied either way, and a lease on a body of a joined frame holds nothing.
    if (end - start < LEASED_BODY_MIN) return createMessage(exchange, routingKey, properties, raw, copyOf(f, start, end), publishedAt);
    const body = f.subarray(start, end);
    const lease = slabs.lease();
    lease.add(body);
    return createMessage(exchange, routingKey, properties, raw, body, publishedAt, lease);
  }
  return createMessage(exchange, routingKey, properties, raw, f.subarray(start, end), publishedAt);
}

/** The bytes of `f` from `start` to `end`, copied (a small body out of a read slab). */
function copyOf(f: Buffer, start: number, end: number): Buffer {
  const n = end - start;
  const out = Buffer.allocUnsafe(n);
  if (n > SHORT) f.copy(out, 0, start, end);
  else for (let i = 0; i < n; i++) out[i] = f[start + i]!;
  return out;
}

/**
 * The last property list a link end decoded, reused for the next message with the same bytes (a
 * publisher's messages mostly share theirs): its decoded properties and one copy of its bytes,
 * which every such message shares as its rawProperties. Safe because decoded properties are never
 * changed in place (message.ts), as content-assembly.ts shares them for an AMQP channel. One per
 * link end.
 */
export class PropertiesCache {
  /** The raw property list of the last `read` (a copy, shared by the messages that have it). */
  raw: Buffer = Buffer.alloc(0);
  private last: MessageProperties = {};

  /** The properties of the `n` bytes at `at` of `f`; `raw` is then their bytes. */
  read(f: Buffer, at: number, n: number): MessageProperties {
    if (!this.same(f, at, n)) {
      this.raw = Buffer.from(f.subarray(at, at + n));
      this.last = decodeBasicProperties(this.raw);
    }
    return this.last;
  }

  private same(f: Buffer, at: number, n: number): boolean {
    const raw = this.raw;
    if (raw.length !== n) return false;
    if (n > SHORT) return raw.equals(f.subarray(at, at + n));
    for (let i = 0; i < n; i++) if (raw[i] !== f[at + i]) return false;
    return true;
  }
}

/** CONSUME, or CONSUME_ARGS when the consume has arguments: CONSUME's fields, then u32 length | the arguments (encodeArguments), then the tag. */
export function consumeFrame(consumerId: number, queueId: number, terms: RemoteConsumeTerms): Buffer {
  const args = terms.arguments === null ? null : encodeArguments(terms.arguments);
  const fixed = args === null ? 17 : 21 + args.length;
  const { buf } = frameWithStrings(args === null ? CONSUME : CONSUME_ARGS, fixed, [terms.tag]);
  if (args !== null) {
    buf.writeUInt32LE(args.length, FRAME_HEAD + 17);
    args.copy(buf, FRAME_HEAD + 21);
  }
  buf.writeUInt32LE(consumerId, FRAME_HEAD);
  buf.writeUInt32LE(queueId, FRAME_HEAD + 4);
  buf.writeUInt32LE(terms.window, FRAME_HEAD + 8);
  buf[FRAME_HEAD + 12] = terms.exclusive ? 1 : 0;
  buf.writeInt32LE(terms.priority, FRAME_HEAD + 13);
  return buf;
}
