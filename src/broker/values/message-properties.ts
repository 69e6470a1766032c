/**
 * A message's properties: RabbitMQ's message model, which every protocol maps onto. AMQP 0-9-1's
 * basic properties are its native form (the codec encodes exactly these fields); MQTT 5 maps
 * content type, correlation data, response topic (reply-to), message expiry and user properties
 * (headers) onto them; stream messages carry them as AMQP 1.0 properties.
 * Times are in seconds since the epoch (`timestamp`), as on the wire.
 */
import type { FieldTable } from "./field-value.js";

export interface MessageProperties {
  contentType?: string;
  contentEncoding?: string;
  headers?: FieldTable;
  /** 2 = persistent, 1 (or absent) = transient */
  deliveryMode?: number;
  priority?: number;
  correlationId?: string;
  replyTo?: string;
  /** per-message TTL in ms, as a decimal string (RabbitMQ's rule) */
  expiration?: string;
  messageId?: string;
  timestamp?: number;
  type?: string;
  userId?: string;
  appId?: string;
  clusterId?: string;
}
