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
 */
import type { Exchange } from "../../broker/index.js";
import type { Body } from "../../broker/values/message-body.js";
import { BrokerError } from "../../errors/broker-error.js";
import { decodeBasicProperties, decodeContentHeader, type BasicProperties, type ContentHeader } from "../codec/generated.js";
import { BASIC_CLASS } from "./delivery-frames.js";

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
    return this;
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
    const raw = buf.subarray(from, end);
    const properties = decodeBasicProperties(raw);
    this.rawProperties = this.lastRaw = raw;
    this.properties = this.lastProperties = properties;
  }

  /** One body frame: returns the whole body with the frame that completes it, else null. */
  addBody(payload: Buffer): Body | null {
    this.received += payload.length;
    if (this.received > this.bodySize) throw new BrokerError("frameError", `content body exceeds the declared size ${this.bodySize}`);
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
