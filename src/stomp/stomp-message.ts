/**
 * STOMP SEND headers ↔ the broker's Message, with rabbitmq_stomp's mapping onto AMQP 0-9-1
 * properties: content-type, content-encoding, persistent ("true" = delivery mode 2), priority,
 * correlation-id, reply-to, expiration, amqp-message-id (the AMQP message-id), timestamp, type,
 * user-id, app-id; every other header but destination, content-length and transaction becomes an
 * AMQP header (a string), and AMQP headers come back as MESSAGE headers.
 */
import { createMessage, type Message } from "../broker/index.js";
import type { FieldTable, FieldValue } from "../broker/values/field-value.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import { escapeHeader } from "./header-escaping.js";
import type { StompVersion } from "./stomp-frame.js";

/** Headers that are the frame's own business, never copied into the message. */
const FRAME_ONLY = new Set(["destination", "content-length", "transaction", "message-id", "subscription", "ack", "redelivered"]);

/** Headers that are AMQP properties, mapped one by one. */
const PROPERTY_HEADERS = new Set(["content-type", "content-encoding", "persistent", "priority", "correlation-id", "reply-to", "expiration", "amqp-message-id", "timestamp", "type", "user-id", "app-id"]);

/** The message a SEND makes; `replyTo` is the reply-to header as resolved (a temp queue named for others). */
export function messageFromSend(headers: Map<string, string>, body: Buffer, exchange: string, routingKey: string, replyTo: string | undefined, now: number): Message {
  const props: MessageProperties = {};
  let amqpHeaders: FieldTable | null = null;
  for (const [name, value] of headers) {
    if (FRAME_ONLY.has(name)) continue;
    if (!PROPERTY_HEADERS.has(name)) {
      if (amqpHeaders === null) amqpHeaders = {};
      amqpHeaders[name] = value;
      continue;
    }
    switch (name) {
      case "content-type":
        props.contentType = value;
        break;
      case "content-encoding":
        props.contentEncoding = value;
        break;
      case "persistent":
        if (value === "true") props.deliveryMode = 2;
        break;
      case "priority": {
        const n = Number(value);
        if (Number.isInteger(n) && n >= 0 && n <= 255) props.priority = n;
        break;
      }
      case "correlation-id":
        props.correlationId = value;
        break;
      case "expiration":
        props.expiration = value;
        break;
      case "amqp-message-id":
        props.messageId = value;
        break;
      case "timestamp": {
        const n = Number(value);
        if (Number.isInteger(n) && n >= 0) props.timestamp = n;
        break;
      }
      case "type":
        props.type = value;
        break;
      case "user-id":
        props.userId = value;
        break;
      case "app-id":
        props.appId = value;
        break;
    }
  }
  if (replyTo !== undefined) props.replyTo = replyTo;
  if (amqpHeaders !== null) props.headers = amqpHeaders;
  return createMessage(exchange, routingKey, props, null, body, now);
}

function headerText(v: FieldValue): string | null {
  if (typeof v === "string") return v.includes("\0") ? null : v;
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  // A NUL would end the frame (STOMP has no escape for it): such a header (binary, e.g. AMQP 1.0's x-amqp-1.0-properties) is left out.
  if (Buffer.isBuffer(v)) return v.includes(0) ? null : v.toString("utf8");
  return null;
}

/** Appends `name:value` for a MESSAGE head, escaped for the version. */
function line(out: string, name: string, value: string, version: StompVersion): string {
  return `${out}${escapeHeader(name, version)}:${escapeHeader(value, version)}\n`;
}

/**
 * A MESSAGE frame's head (command, headers, blank line) for `m`; the fixed headers first, as
 * RabbitMQ orders them. `ack` is the ack header of a 1.2 subscription with client acks, else null.
 */
export function messageHead(m: Message, subscription: string, destination: string, messageId: string, ack: string | null, redelivered: boolean, version: StompVersion): string {
  let out = line("MESSAGE\n", "subscription", subscription, version);
  out = line(out, "destination", destination, version);
  out = line(out, "message-id", messageId, version);
  out += redelivered ? "redelivered:true\n" : "redelivered:false\n";
  if (ack !== null) out = line(out, "ack", ack, version);
  const p = m.properties;
  const h = p.headers;
  if (h !== undefined) {
    for (const k in h) {
      if (FRAME_ONLY.has(k) || PROPERTY_HEADERS.has(k)) continue;
      const text = headerText(h[k]!);
      if (text !== null) out = line(out, k, text, version);
    }
  }
  if (p.replyTo !== undefined) out = line(out, "reply-to", p.replyTo, version);
  if (p.correlationId !== undefined) out = line(out, "correlation-id", p.correlationId, version);
  if (p.deliveryMode === 2) out += "persistent:true\n";
  if (p.priority !== undefined) out += `priority:${p.priority}\n`;
  if (p.expiration !== undefined) out = line(out, "expiration", p.expiration, version);
  if (p.messageId !== undefined) out = line(out, "amqp-message-id", p.messageId, version);
  if (p.timestamp !== undefined) out += `timestamp:${p.timestamp}\n`;
  if (p.type !== undefined) out = line(out, "type", p.type, version);
  if (p.userId !== undefined) out = line(out, "user-id", p.userId, version);
  if (p.appId !== undefined) out = line(out, "app-id", p.appId, version);
  if (p.contentType !== undefined) out = line(out, "content-type", p.contentType, version);
  if (p.contentEncoding !== undefined) out = line(out, "content-encoding", p.contentEncoding, version);
  return `${out}content-length:${m.bodySize}\n\n`;
}
