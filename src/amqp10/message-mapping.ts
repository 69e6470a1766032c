/**
 * The domain's message (RabbitMQ's AMQP 0-9-1 model: MessageProperties and a body) as an AMQP
 * 1.0 message and back, by the rules RabbitMQ 3.10 stores stream messages with, so that native
 * stream clients and AMQP 0-9-1 clients read each other's messages:
 * - priority, delivery mode and expiration → message annotations `x-basic-priority`,
 *   `x-basic-delivery-mode` (ubyte) and `x-basic-expiration` (string); priority and a
 *   persistent delivery mode also → the header section's priority and durable, as RabbitMQ 3.13+
 *   writes them (read back from the annotations);
 * - message id, user id, reply-to, correlation id, content type and encoding → properties
 *   (ids and reply-to as strings, user id as binary, content type/encoding as symbols), the
 *   timestamp (s) → creation-time (ms);
 * - headers → application properties (arrays and tables have no 1.0 counterpart there and are
 *   left out, as RabbitMQ does), type and app id → `x-basic-type`, `x-basic-app-id`;
 * - the body → one data section. Back from 1.0, a body that is not data sections is handed over
 *   encoded with type `amqp-1.0`, and a message id that is not a string is named by
 *   `x-message-id-type` (uuid, ulong, binary), as RabbitMQ 3.10 does.
 */
import type { FieldTable, FieldValue } from "../broker/values/field-value.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import { sym, textOf, ubyte, str, type Amqp10Value } from "./amqp10-value.js";
import { encodeMessage, type Amqp10Map, type Amqp10Message, type PropertyField } from "./message-sections.js";

const AMQP10_TYPE = "amqp-1.0";

/** Where a message was published: kept as RabbitMQ's `x-exchange` and `x-routing-key` annotations. */
export interface PublishAddress {
  readonly exchange: string;
  readonly routingKey: string;
}

/** The stored form of a message: pieces to write in order (the body's Buffers among them, not copied). */
export function amqp10FromDomain(p: MessageProperties, body: readonly Buffer[], address?: PublishAddress): Buffer[] {
  const annotations: Array<readonly [Amqp10Value, Amqp10Value]> = [];
  if (address) annotations.push([sym("x-exchange"), str(address.exchange)], [sym("x-routing-key"), str(address.routingKey)]);
  if (p.priority !== undefined) annotations.push([sym("x-basic-priority"), ubyte(p.priority)]);
  if (p.deliveryMode !== undefined) annotations.push([sym("x-basic-delivery-mode"), ubyte(p.deliveryMode)]);
  if (p.expiration !== undefined) annotations.push([sym("x-basic-expiration"), str(p.expiration)]);
  const properties: Partial<Record<PropertyField, Amqp10Value>> = {};
  if (p.messageId !== undefined) properties.messageId = str(p.messageId);
  if (p.userId !== undefined) properties.userId = { type: "binary", value: Buffer.from(p.userId, "utf8") };
  if (p.replyTo !== undefined) properties.replyTo = str(p.replyTo);
  if (p.correlationId !== undefined) properties.correlationId = str(p.correlationId);
  if (p.contentType !== undefined) properties.contentType = sym(p.contentType);
  if (p.contentEncoding !== undefined) properties.contentEncoding = sym(p.contentEncoding);
  if (p.timestamp !== undefined) properties.creationTime = { type: "timestamp", value: p.timestamp * 1000 };
  const app: Array<readonly [Amqp10Value, Amqp10Value]> = [];
  for (const [k, v] of Object.entries(p.headers ?? {})) {
    const value = headerValue(v);
    if (value !== null) app.push([str(k), value]);
  }
  if (p.type !== undefined) app.push([str("x-basic-type"), str(p.type)]);
  if (p.appId !== undefined) app.push([str("x-basic-app-id"), str(p.appId)]);
  // RabbitMQ 3.13+ also gives the header section durable and priority (3.10 only the annotations):
  // native clients read a message's priority there (rabbitmq-stream-js-client's messageHeader).
  const header = p.priority !== undefined ? [{ type: "boolean", value: p.deliveryMode === 2 } as const, ubyte(p.priority)] : p.deliveryMode === 2 ? [{ type: "boolean", value: true } as const] : undefined;
  const message: Amqp10Message = { header, messageAnnotations: annotations, properties, applicationProperties: app, dataParts: body };
  return encodeMessage(message);
}

/** A header's value as an application property; null for the types 1.0 cannot carry there. */
export function headerValue(v: FieldValue): Amqp10Value | null {
  if (v === null) return { type: "null" };
  if (typeof v === "boolean") return { type: "boolean", value: v };
  if (typeof v === "string") return str(v);
  if (typeof v === "bigint") return { type: "long", value: v };
  if (typeof v === "number") {
    if (!Number.isInteger(v)) return { type: "double", value: v };
    return v >= -2147483648 && v <= 2147483647 ? { type: "int", value: v } : { type: "long", value: BigInt(v) };
  }
  if (Buffer.isBuffer(v)) return { type: "binary", value: v };
  if (v instanceof Date) return { type: "timestamp", value: v.getTime() };
  // Decimals, arrays and tables: no application-property counterpart (RabbitMQ leaves them out).
  return null;
}

/** A stored (or natively published) message as the domain's properties and body, and where it was published. */
export function domainFromAmqp10(m: Amqp10Message): { properties: MessageProperties; body: Buffer; address: PublishAddress } {
  const p: MessageProperties = {};
  const headers: FieldTable = {};
  const annotation = (name: string): Amqp10Value | undefined => findKey(m.messageAnnotations, name);
  const priority = smallInt(annotation("x-basic-priority"));
  if (priority !== undefined) p.priority = priority;
  const mode = smallInt(annotation("x-basic-delivery-mode"));
  if (mode !== undefined) p.deliveryMode = mode;
  const expiration = textOf(annotation("x-basic-expiration"));
  if (expiration !== undefined) p.expiration = expiration;
  const props = m.properties ?? {};
  const id = idOf(props.messageId, "x-message-id", headers);
  if (id !== undefined) p.messageId = id;
  const corr = idOf(props.correlationId, "x-correlation-id", headers);
  if (corr !== undefined) p.correlationId = corr;
  if (props.userId?.type === "binary") p.userId = props.userId.value.toString("utf8");
  const replyTo = textOf(props.replyTo);
  if (replyTo !== undefined) p.replyTo = replyTo;
  const contentType = textOf(props.contentType);
  if (contentType !== undefined) p.contentType = contentType;
  const contentEncoding = textOf(props.contentEncoding);
  if (contentEncoding !== undefined) p.contentEncoding = contentEncoding;
  if (props.creationTime?.type === "timestamp") p.timestamp = Math.floor(props.creationTime.value / 1000);
  for (const [k, v] of m.applicationProperties ?? []) {
    const key = textOf(k);
    if (key === undefined) continue;
    if (key === "x-basic-type") p.type = textOf(v) ?? p.type;
    else if (key === "x-basic-app-id") p.appId = textOf(v) ?? p.appId;
    else headers[key] = fieldValue(v);
  }
  let body: Buffer;
  if (m.otherBody !== undefined) {
    // Not (only) data sections: handed over as encoded AMQP 1.0, typed so (RabbitMQ's convention).
    body = Buffer.concat([...encodeMessage({ data: m.data ?? [] }), m.otherBody]);
    p.type ??= AMQP10_TYPE;
  } else {
    const data = m.data ?? [];
    body = data.length === 1 ? data[0]! : Buffer.concat(data as Buffer[]);
  }
  if (Object.keys(headers).length > 0) p.headers = headers;
  const address = { exchange: textOf(annotation("x-exchange")) ?? "", routingKey: textOf(annotation("x-routing-key")) ?? "" };
  return { properties: p, body, address };
}

export function findKey(map: Amqp10Map | undefined, name: string): Amqp10Value | undefined {
  for (const [k, v] of map ?? []) if (textOf(k) === name) return v;
  return undefined;
}

/** The number of an integer value of at most 32 bits; undefined for anything else. */
export function smallInt(v: Amqp10Value | undefined): number | undefined {
  if (v === undefined) return undefined;
  return v.type === "ubyte" || v.type === "ushort" || v.type === "uint" || v.type === "byte" || v.type === "short" || v.type === "int" ? v.value : undefined;
}

/** A message or correlation id: strings as they are; uuid, ulong and binary named by a header (RabbitMQ 3.10). */
function idOf(v: Amqp10Value | undefined, header: string, headers: FieldTable): string | undefined {
  if (v === undefined) return undefined;
  if (v.type === "string") {
    if (Buffer.byteLength(v.value) <= 256) return v.value;
    headers[header] = v.value;
    return undefined;
  }
  if (v.type === "uuid") {
    headers[`${header}-type`] = "uuid";
    const h = v.value.toString("hex");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  if (v.type === "ulong") {
    headers[`${header}-type`] = "ulong";
    return v.value.toString();
  }
  if (v.type === "binary") {
    const encoded = v.value.toString("base64");
    if (encoded.length > 256) {
      headers[header] = v.value;
      return undefined;
    }
    headers[`${header}-type`] = "binary";
    return encoded;
  }
  return undefined;
}

/** An application property as a header value (RabbitMQ 3.10's to_091). */
export function fieldValue(v: Amqp10Value): FieldValue {
  switch (v.type) {
    case "null":
      return null;
    case "boolean":
      return v.value;
    case "string":
    case "symbol":
      return v.value;
    case "long":
    case "ulong":
      return v.value >= BigInt(Number.MIN_SAFE_INTEGER) && v.value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v.value) : v.value;
    case "timestamp":
      return new Date(v.value);
    case "binary":
    case "uuid":
      return v.value;
    case "list":
    case "array":
      return v.value.map(fieldValue);
    case "map":
    case "described":
      return null;
    default:
      return v.value;
  }
}
