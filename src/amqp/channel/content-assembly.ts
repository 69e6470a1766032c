/**
 * Content assembly for one basic.publish (AMQP 0-9-1 §4.2.6): the method names the exchange and
 * routing key, a content header frame brings the properties and the body size, and body frames
 * follow until that size is reached. The body is never copied: a body in one frame stays a
 * slice of the socket read, a body in several frames stays the list of their payloads
 * (message-body.ts).
 *
 * A channel has at most one publish in assembly, so it keeps one PendingPublish and reuses it
 * (start() per publish): completePublish reads it synchronously and keeps nothing of it but the
 * values it hands to the Message. Only a body in several frames allocates (its parts array, which
 * becomes the message's body).
 *
 * Publishers repeat their properties: a client sends the same flags and values message after
 * message. Property bytes equal to the previous publish's on this channel share its raw slice and
 * its decoded properties, so such a publish allocates neither. Sharing is safe because a
 * Message's properties are never changed in place (message.ts: a change makes new properties).
 *
 * Reads that come back (src/listeners/slab-pool.ts): on a connection whose read slabs return to a
 * pool, nothing may keep a slab's bytes uncounted. A body of LEASED_BODY_MIN bytes or more stays
 * in slices under a SlabLease, which holds each slab from the moment a piece is cut from it. A
 * smaller body is copied (about the cost of its slice), and so are the property bytes this
 * channel keeps for the next publish. (Copying 1 KB bodies cost 15 % more broker CPU than a lease:
 * Node's 8 KiB allocation pool refilled every few messages.) Persistent bodies are leased too:
 * the store holds them until its group commit has written them (src/store/held-bodies.ts).
 */
import type { Exchange } from "../../broker/index.js";
import type { Body } from "../../broker/values/message-body.js";
import { BrokerError } from "../../errors/broker-error.js";
import { decodeBasicProperties, decodeContentHeader, type BasicProperties, type ContentHeader } from "../codec/generated.js";
import type { SlabLease, SlabPool } from "../../listeners/slab-pool.js";
import { BASIC_CLASS } from "./delivery-frames.js";

/** Bodies at least this large are leased on a pooled connection; smaller ones are copied. */
export const LEASED_BODY_MIN = 256;

export class PendingPublish implements ContentHeader {
  exchange!: Exchange;
  routingKey = "";
  mandatory = false;
  /** Null until the content header has arrived. */
  properties: BasicProperties | null = null;
  /** The header's property bytes as received, re-sent unchanged to consumers. */
  rawProperties: Buffer | null = null;
  classId = 0;
  bodySize = 0;
  propertiesStart = 0;
  /** The previous publish's property bytes and their decoding (see the header). */
  private lastRaw: Buffer | null = null;
  private lastProperties: BasicProperties | null = null;
  private first: Buffer | null = null;
  private parts: Buffer[] | null = null;
  private received = 0;
  /** A leased body's lease (pooled connections), until the message takes it. */
  private lease: SlabLease | null = null;
  /** A small body of several frames on a pooled connection: the copy being filled. */
  private copy: Buffer | null = null;

  /** `slabs`: the pool the connection's reads come from, or null (bodies stay plain slices). */
  constructor(private readonly slabs: SlabPool | null = null) {}

  /** A basic.publish arrived: its content follows. */
  start(exchange: Exchange, routingKey: string, mandatory: boolean): this {
    this.exchange = exchange;
    this.routingKey = routingKey;
    this.mandatory = mandatory;
    this.properties = null;
    this.rawProperties = null;
    this.bodySize = 0;
    this.first = null;
    this.parts = null;
    this.received = 0;
    this.lease = null;
    this.copy = null;
    return this;
  }

  /** The body's lease, once: the Message carries it from here (null when the body is not leased). */
  takeLease(): SlabLease | null {
    const lease = this.lease;
    this.lease = null;
    return lease;
  }

  /** The content header frame, bytes [start, end) of `buf`: its class must be basic. */
  readHeader(buf: Buffer, start: number, end: number): void {
    decodeContentHeader(this, buf, start, end);
    if (this.classId !== BASIC_CLASS) throw new BrokerError("frameError", `content header for class ${this.classId} is not basic`);
    const from = this.propertiesStart;
    const last = this.lastRaw;
    if (last !== null && sameBytes(last, buf, from, end)) {
      this.rawProperties = last;
      this.properties = this.lastProperties;
      return;
    }
    // Kept past this read (by the next publish's comparison, and by the message): a copy when reads come back.
    const raw = this.slabs === null ? buf.subarray(from, end) : Buffer.from(buf.subarray(from, end));
    const properties = decodeBasicProperties(raw);
    this.rawProperties = this.lastRaw = raw;
    this.properties = this.lastProperties = properties;
  }

  /**
   * One body frame whose payload is bytes [start, end) of `buf`: as addBody, but a small body a
   * pooled connection copies is copied straight from the read, with no slice made first.
   */
  addBodyAt(buf: Buffer, start: number, end: number): Body | null {
    const n = end - start;
    if (this.slabs !== null && this.received === 0 && n === this.bodySize && n < LEASED_BODY_MIN) {
      this.received = n;
      return copyOf(buf, start, end);
    }
    return this.addBody(buf.subarray(start, end));
  }

  /** One body frame: returns the whole body with the frame that completes it, else null. */
  addBody(payload: Buffer): Body | null {
    const at = this.received;
    this.received += payload.length;
    if (this.received > this.bodySize) throw new BrokerError("frameError", `content body exceeds the declared size ${this.bodySize}`);
    if (this.slabs !== null) {
      if (this.bodySize < LEASED_BODY_MIN) return this.copyBody(payload, at);
      (this.lease ??= this.slabs.lease()).add(payload);
    }
    if (this.received === this.bodySize) {
      if (this.first === null) return payload;
      const parts = this.parts ?? [this.first];
      parts.push(payload);
      return parts;
    }
    if (payload.length === 0) return null;
    if (this.first === null) this.first = payload;
    else (this.parts ??= [this.first]).push(payload);
    return null;
  }

  /** A small body on a pooled connection: copied out of the read, whole once its last frame is in. */
  private copyBody(payload: Buffer, at: number): Body | null {
    if (at === 0 && payload.length === this.bodySize) return copyOf(payload, 0, payload.length);
    const copy = (this.copy ??= Buffer.allocUnsafe(this.bodySize));
    payload.copy(copy, at);
    return this.received === this.bodySize ? copy : null;
  }
}

/** Below this many bytes a loop copies faster than a call into Buffer.copy. */
const LOOP_COPY_MAX = 32;

/** Bytes [start, end) of `b` in a buffer of their own. */
function copyOf(b: Buffer, start: number, end: number): Buffer {
  const n = end - start;
  const c = Buffer.allocUnsafe(n);
  if (n <= LOOP_COPY_MAX) for (let i = 0; i < n; i++) c[i] = b[start + i]!;
  else b.copy(c, 0, start, end);
  return c;
}

/** Below this many bytes a loop compares faster than a call into Buffer.compare. */
const LOOP_COMPARE_MAX = 64;

/** True when bytes [from, end) of `buf` are exactly `a`. */
function sameBytes(a: Buffer, buf: Buffer, from: number, end: number): boolean {
  const n = a.length;
  if (end - from !== n) return false;
  if (n > LOOP_COMPARE_MAX) return buf.compare(a, 0, n, from, end) === 0;
  for (let i = 0; i < n; i++) if (a[i] !== buf[from + i]) return false;
  return true;
}
