/**
 * Content assembly for one basic.publish (AMQP 0-9-1 §4.2.6): the method names the exchange and
 * routing key, a content header frame brings the properties and the body size, and body frames
 * follow until that size is reached. The body is never copied: a body in one frame stays a
 * slice of the socket read, a body in several frames stays the list of their payloads
 * (message-body.ts). One PendingPublish (and its parts array) per publish, as before the split.
 */
import type { Exchange } from "../../broker/index.js";
import type { Body } from "../../broker/values/message-body.js";
import { BrokerError } from "../../errors/broker-error.js";
import { decodeBasicProperties, decodeContentHeader, type BasicProperties } from "../codec/generated.js";
import { BASIC_CLASS } from "./delivery-frames.js";

export class PendingPublish {
  /** Null until the content header has arrived. */
  properties: BasicProperties | null = null;
  /** The header's property bytes as received, re-sent unchanged to consumers. */
  rawProperties: Buffer | null = null;
  bodySize = 0;
  private readonly parts: Buffer[] = [];
  private received = 0;

  constructor(
    readonly exchange: Exchange,
    readonly routingKey: string,
    readonly mandatory: boolean,
  ) {}

  /** The content header frame: its class must be basic. */
  readHeader(payload: Buffer): void {
    const h = decodeContentHeader(payload);
    if (h.classId !== BASIC_CLASS) throw new BrokerError("frameError", `content header for class ${h.classId} is not basic`);
    this.rawProperties = h.rawProperties;
    this.properties = decodeBasicProperties(h.rawProperties);
    this.bodySize = h.bodySize;
  }

  /** One body frame: returns the whole body with the frame that completes it, else null. */
  addBody(payload: Buffer): Body | null {
    this.received += payload.length;
    if (this.received > this.bodySize) throw new BrokerError("frameError", `content body exceeds the declared size ${this.bodySize}`);
    if (this.received === this.bodySize) {
      if (this.parts.length === 0) return payload;
      this.parts.push(payload);
      return this.parts;
    }
    if (payload.length > 0) this.parts.push(payload);
    return null;
  }
}
