/**
 * PUBLISH_RUN (issue 42, sixth pass): consecutive small forwarded messages that share their
 * queues, exchange, routing key and property list travel as one link frame, their common head
 * written and read once:
 *   u8 queue count | u32 queue ids | u16 exchange length | exchange | u16 routing-key length |
 *   routing key | u32 properties length | AMQP 0-9-1 property list |
 *   then, per message: u32 body length | f64 published-at | body
 * A publisher's stream mostly repeats all of those, so the leader splits, dispatches and decodes
 * one frame per turn's run instead of one per message, and the connecting node writes one head.
 * Each message of a run is one link position, as a PUBLISH is (stored-reports.ts, kept-forwards.ts).
 *
 * Sent only to a leader that offered FEATURE_PUBLISH_RUN in READY (link-handshake.ts); a leader
 * reads it whatever it offered.
 */
import type { Message } from "../broker/index.js";
import type { SlabPool } from "../listeners/slab-pool.js";
import type { LinkWriter } from "./link-writer.js";
import { FRAME_HEAD, PUBLISH, PUBLISH_RUN, bodyMessage, putBytes, putMessageHead, putString, readLinkString, utf8Length, type PropertiesCache } from "./link-frames.js";
import { encodeBasicProperties } from "../amqp/codec/generated.js";
import { OpenFrame } from "./open-frame.js";

/** A body below this joins a run (it is copied into the writer's slab: link-writer.ts SMALL); larger ones go as PUBLISH. */
export const RUN_BODY_MAX = 1024;
/**
 * A run's frame stays within this many bytes: a frame that spans two socket reads is joined by
 * the leader's splitter (frame-splitter.ts), so a long run would cost a copy a short one does not.
 */
export const RUN_BYTES_MAX = 4096;
/** What each message adds to its run besides its body: u32 body length | f64 published-at. */
const PER_MESSAGE = 12;

/**
 * How the connecting node writes a forwarded message: in a run when the leader reads runs and the
 * message is small, else as PUBLISH (u8 queue count | u32 queue ids | the message: link-frames.ts).
 *
 * The open run is an OpenFrame (open-frame.ts): sealed before the writer's turn is written
 * (LeaderLink's beforeFlush), ended by anything else written to the link in between.
 */
export class PublishRuns extends OpenFrame {
  /** `enabled`: the leader offered FEATURE_PUBLISH_RUN. */
  constructor(private readonly enabled: boolean) {
    super();
  }

  private readonly ids: number[] = [];
  private exchange = "";
  private routingKey = "";
  private props: Buffer = Buffer.alloc(0);

  /** Writes `m`, routed to the queues of the link's `ids`; its body is copied or held by `w` once this returns. */
  write(w: LinkWriter, m: Message, ids: readonly number[]): void {
    if (this.enabled && m.bodySize < RUN_BODY_MAX) return this.put(w, m, ids);
    const at = putMessageHead(w, PUBLISH, 1 + 4 * ids.length, m);
    const b = w.slab;
    b[at] = ids.length;
    for (let i = 0; i < ids.length; i++) b.writeUInt32LE(ids[i]!, at + 1 + 4 * i);
    w.writeBody(m.body, m.lease);
  }

  /** Writes `m` in the open run when it continues it, else in a new one. */
  private put(w: LinkWriter, m: Message, ids: readonly number[]): void {
    const props = (m.rawProperties ??= encodeBasicProperties(m.properties));
    if (!this.continues(w, m, ids, props)) this.open(w, m, ids, props);
    const n = m.bodySize;
    const at = w.reserve(PER_MESSAGE);
    const b = w.slab;
    b.writeUInt32LE(n, at);
    b.writeDoubleLE(m.publishedAt, at + 4);
    w.writeBody(m.body, m.lease);
    this.grew(w, PER_MESSAGE + n);
  }

  private continues(w: LinkWriter, m: Message, ids: readonly number[], props: Buffer): boolean {
    if (!this.isOpenAt(w) || this.length + PER_MESSAGE + m.bodySize > RUN_BYTES_MAX - 4) return false;
    if (m.exchange !== this.exchange || m.routingKey !== this.routingKey) return false;
    const mine = this.ids;
    if (mine.length !== ids.length) return false;
    for (let i = 0; i < ids.length; i++) if (mine[i] !== ids[i]) return false;
    return props === this.props || sameBytes(props, this.props);
  }

  private open(w: LinkWriter, m: Message, ids: readonly number[], props: Buffer): void {
    const exLen = utf8Length(m.exchange);
    const rkLen = utf8Length(m.routingKey);
    const at = this.begin(w, PUBLISH_RUN, FRAME_HEAD + 1 + 4 * ids.length + 2 + exLen + 2 + rkLen + 4 + props.length);
    const b = w.slab;
    b[at + FRAME_HEAD] = ids.length;
    for (let i = 0; i < ids.length; i++) b.writeUInt32LE(ids[i]!, at + FRAME_HEAD + 1 + 4 * i);
    let p = putString(b, at + FRAME_HEAD + 1 + 4 * ids.length, m.exchange, exLen);
    p = putString(b, p, m.routingKey, rkLen);
    b.writeUInt32LE(props.length, p);
    putBytes(b, p + 4, props);
    this.ids.length = 0;
    for (let i = 0; i < ids.length; i++) this.ids.push(ids[i]!);
    this.exchange = m.exchange;
    this.routingKey = m.routingKey;
    this.props = props;
  }
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  if (n > 64) return a.equals(b);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The leader's reading of a PUBLISH_RUN frame: each message, in order, to `each` (its bodies as
 * readMessage's: a small one copied, a larger one leased from `slabs`). A malformed frame (a body
 * running past its end) throws once what came before it was handed on: the link is then closed
 * (frame-splitter.ts readFrames), as for any frame it cannot read.
 */
export function readPublishRun(f: Buffer, cache: PropertiesCache, slabs: SlabPool | null, each: (m: Message) => void): void {
  const n = f[FRAME_HEAD]!;
  let p = FRAME_HEAD + 1 + 4 * n;
  const exLen = f[p]! | (f[p + 1]! << 8);
  const exchange = readLinkString(f, p + 2, exLen);
  p += 2 + exLen;
  const rkLen = f[p]! | (f[p + 1]! << 8);
  const routingKey = readLinkString(f, p + 2, rkLen);
  p += 2 + rkLen;
  const propsLen = f.readUInt32LE(p);
  const properties = cache.read(f, p + 4, propsLen);
  const raw = cache.raw;
  p += 4 + propsLen;
  const end = f.length;
  while (p < end) {
    const start = p + PER_MESSAGE;
    const stop = start + (start <= end ? f.readUInt32LE(p) : 0);
    if (start > end || stop > end) throw new Error("PUBLISH_RUN frame: a message runs past the frame's end");
    each(bodyMessage(f, start, stop, exchange, routingKey, properties, raw, f.readDoubleLE(p + 4), slabs));
    p = stop;
  }
}
