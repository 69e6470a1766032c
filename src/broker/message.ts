/**
 * A published message as the broker holds it, whatever protocol brought it. The body stays as it
 * arrived (slices of the socket reads, never copied or joined: see message-body.ts).
 * `rawProperties` caches the properties' binary form — AMQP 0-9-1's property list, which is also
 * the store's on-disk form — so an AMQP publish delivered to AMQP consumers and written to disk is
 * never re-encoded. A transport that builds properties itself (MQTT, streams, HTTP) passes null.
 * Whoever changes `properties` (dead-lettering adds x-death) gives new ones, never changes them in
 * place (an AMQP channel shares one decoding among publishes with the same property bytes:
 * content-assembly.ts), and sets `rawProperties` to null so they are encoded again when needed.
 */
import type { BodyLease } from "./values/body-lease.js";
import type { MessageProperties } from "./values/message-properties.js";
import { bodyLength, type Body } from "./values/message-body.js";

export type { MessageProperties };

/**
 * The message as the protocol that published it encoded what the model above does not hold
 * (AMQP 1.0's to, subject, footer, body sections …), so that a consumer of the same protocol gets
 * it back as sent (RabbitMQ 4 keeps a message in its original format). Opaque to the broker: the
 * publishing transport makes it, a consumer of that `format` reads it, every other consumer
 * converts from the model. Invariant: it agrees with `properties` and `body`, so whoever rewrites
 * them drops it (message-headers.ts), and a stream's delivery keeps it beside its added
 * x-stream-offset header (stream-queue.ts). The message store writes it beside the model, and a
 * stream stores an AMQP 1.0 one as its record (src/amqp10/stored-original.ts).
 */
export interface OriginalEncoding {
  /** The protocol's name, e.g. "amqp-1.0". */
  readonly format: string;
  /** The encoded pieces, in the protocol's own order (their meaning is the transport's). */
  readonly parts: readonly Buffer[];
}

export interface Message {
  readonly exchange: string;
  readonly routingKey: string;
  properties: Readonly<MessageProperties>;
  rawProperties: Buffer | null;
  readonly body: Body;
  /** The body's length in bytes (queues count bytes per message; an array body has no .length of bytes). */
  readonly bodySize: number;
  /** delivery-mode 2 */
  readonly persistent: boolean;
  /** ms since epoch, when the broker accepted it */
  readonly publishedAt: number;
  /**
   * The lease on the body's memory when the transport lent it (values/body-lease.ts), else null.
   * Only the message the transport built carries it: a copy made with other properties does not.
   */
  lease: BodyLease | null;
  /** See OriginalEncoding; null for a message whose protocol keeps nothing beyond the model. */
  readonly original: OriginalEncoding | null;
}

export function createMessage(
  exchange: string,
  routingKey: string,
  properties: Readonly<MessageProperties>,
  rawProperties: Buffer | null,
  body: Body,
  now: number,
  lease: BodyLease | null = null,
  original: OriginalEncoding | null = null,
): Message {
  return { exchange, routingKey, properties, rawProperties, body, bodySize: bodyLength(body), persistent: properties.deliveryMode === 2, publishedAt: now, lease, original };
}
