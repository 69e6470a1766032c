/**
 * A published message as the broker holds it. The body stays the Buffer that arrived (a slice
 * of the socket read, never copied); `rawProperties` keeps the content-header property bytes as
 * received so deliveries re-send them without re-encoding. Whoever changes `properties` (dead-
 * lettering adds x-death) must set `rawProperties` to null so the transport encodes them again.
 */
import type { BasicProperties } from "../amqp/codec/generated.js";

export type { BasicProperties };

export interface Message {
  readonly exchange: string;
  readonly routingKey: string;
  properties: BasicProperties;
  rawProperties: Buffer | null;
  readonly body: Buffer;
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
  body: Buffer,
  now: number,
): Message {
  return { exchange, routingKey, properties, rawProperties, body, persistent: properties.deliveryMode === 2, publishedAt: now };
}
