/**
 * A published message as the broker holds it. The body stays as it arrived (slices of the
 * socket reads, never copied or joined: see message-body.ts); `rawProperties` keeps the content-header property bytes as
 * received so deliveries re-send them without re-encoding. Whoever changes `properties` (dead-
 * lettering adds x-death) must set `rawProperties` to null so the transport encodes them again.
 */
import type { BasicProperties } from "../amqp/codec/generated.js";
import { bodyLength, type Body } from "./message-body.js";

export type { BasicProperties };

export interface Message {
  readonly exchange: string;
  readonly routingKey: string;
  properties: BasicProperties;
  rawProperties: Buffer | null;
  readonly body: Body;
  /** The body's length in bytes (queues count bytes per message; an array body has no .length of bytes). */
  readonly bodySize: number;
  /** delivery-mode 2 */
  readonly persistent: boolean;
  /** ms since epoch, when the broker accepted it */
  readonly publishedAt: number;
}

export function createMessage(
  exchange: string,
  routingKey: string,
  properties: BasicProperties,
  rawProperties: Buffer | null,
  body: Body,
  now: number,
): Message {
  return { exchange, routingKey, properties, rawProperties, body, bodySize: bodyLength(body), persistent: properties.deliveryMode === 2, publishedAt: now };
}
