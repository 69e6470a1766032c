/**
 * Copy-on-write header changes for a message held by the broker. A message may sit in several
 * queues at once, so a queue that changes headers (dead-lettering, x-delivery-count) gets a
 * copy; the body Buffer is shared, and rawProperties and the original encoding are dropped so the
 * transport re-encodes.
 * The copy carries no body lease (values/body-lease.ts): its holders are not the original's.
 */
import type { FieldTable, FieldValue } from "./values/field-value.js";
import type { MessageProperties, Message } from "./message.js";

/** A copy of `message` with other properties/headers; `exchange`/`routingKey` as given. */
export function rewriteMessage(message: Message, properties: MessageProperties, exchange = message.exchange, routingKey = message.routingKey): Message {
  return { ...message, exchange, routingKey, properties, rawProperties: null, lease: null, original: null };
}

export function withHeader(message: Message, key: string, value: FieldValue): Message {
  const headers: FieldTable = { ...message.properties.headers, [key]: value };
  return rewriteMessage(message, { ...message.properties, headers });
}
