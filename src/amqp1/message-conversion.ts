/**
 * AMQP 1.0 messages ↔ the domain's message model (AMQP 0-9-1's properties and body), by RabbitMQ
 * 4's conversion rules (its "Message conversions" guide; mc_amqpl), so that a message sent over
 * AMQP 1.0 reads the same over 0-9-1, MQTT and streams, and back:
 * - header: durable ↔ delivery-mode 2/1, priority ↔ priority, ttl ↔ expiration (ms);
 * - properties: message-id and correlation-id (a uuid ↔ "urn:uuid:…", a ulong as its digits, a
 *   binary or a string over 255 bytes kept as the x-message-id / x-correlation-id header),
 *   user-id, reply-to ("/queues/:q" ↔ q), content-type, content-encoding, creation-time (ms ↔ s),
 *   group-id ↔ app-id;
 * - application-properties ↔ headers (non-x- headers of the types 1.0 allows there);
 *   message-annotations "x-…" ↔ x- headers (but RabbitMQ's own x-basic-*, x-exchange,
 *   x-routing-key); 0-9-1's type ↔ the x-basic-type annotation; the x-death history → RabbitMQ
 *   4's x-opt-deaths (deaths-annotation.ts);
 * - body: data sections ↔ the body; any other body (amqp-value, amqp-sequence) stays encoded
 *   with type "amqp-1.0" and is sent back to 1.0 clients as it came.
 */
import { Decimal, type FieldValue } from "../broker/values/field-value.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import type { Body } from "../broker/values/message-body.js";
import { decodeMessage, encodeMessage, type Amqp10Map, type Amqp10Message, type PropertyField } from "../amqp10/message-sections.js";
import { headerValue } from "../amqp10/message-mapping.js";
import { modelFromAmqp10, propertiesSectionOf, propertiesToKeep } from "../amqp10/model-from-amqp10.js";
import { str, sym, textOf, type Amqp10Value } from "../amqp10/amqp10-value.js";
import { deathsAnnotation } from "./deaths-annotation.js";
import { PROPERTIES_HEADER, validSection } from "./properties-header.js";

const AMQP10_TYPE = "amqp-1.0";

/** A received message as the broker takes it, with the 1.0 fields routing may use. */
export interface ConvertedMessage {
  readonly properties: MessageProperties;
  readonly body: Body;
  readonly subject: string | null;
  readonly to: string | null;
  /** The sections as they came, for 1.0 consumers (original-form.ts). */
  readonly header: Buffer | null;
  readonly annotations: Amqp10Map;
  /** From the first section after the annotations to the end: one slice, or slices of the transfers it came in (pieced-message.ts). */
  readonly rest: Body;
}

/** Where a decoded message's bytes lie: what convertSections keeps of them rather than decodes. */
export interface SectionBytes {
  /** The header section as it came, or null. */
  readonly header: Buffer | null;
  readonly rest: Body;
  /** The properties section's bytes (null without one). */
  readonly properties: Buffer | null;
  /** The body as the caller read it: the data sections' bytes, or the amqp-value / amqp-sequence sections on (`encodedBody`); null: the decoded message's own. */
  readonly body: Body | null;
  readonly encodedBody: boolean;
}

/** A transfer's payload (a whole bare message) → the domain's form. Throws Amqp10DecodeError. */
export function fromAmqp1(payload: Buffer): ConvertedMessage {
  const m = decodeMessage(payload);
  const raw = m.raw!;
  return convertSections(m, { header: raw.header, rest: raw.rest, properties: propertiesSectionOf(m, payload), body: null, encodedBody: m.otherBody !== undefined });
}

/** A message's decoded sections (`m`, and where its bytes lie in `bytes`) → the domain's form, by the one conversion (model-from-amqp10.ts). */
export function convertSections(m: Amqp10Message, bytes: SectionBytes): ConvertedMessage {
  // to, subject … have no place in the model: the section rides in a header (properties-header.ts).
  const { properties, body } = modelFromAmqp10(m, propertiesToKeep(m, bytes.properties), bytes.body === null ? null : { body: bytes.body, encoded: bytes.encodedBody });
  const props = m.properties ?? {};
  return { properties, body, subject: textOf(props.subject) ?? null, to: textOf(props.to) ?? null, header: bytes.header, annotations: m.messageAnnotations ?? [], rest: bytes.rest };
}

const URN_UUID = /^urn:uuid:([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i;

/** An id as 1.0 sends it: "urn:uuid:…" as a uuid, anything else a string. */
function idValue(id: string): Amqp10Value {
  // Only ids starting with "urn:uuid:" meet the regex; the common case is one startsWith.
  if (!id.startsWith("urn:uuid:")) return str(id);
  const m = URN_UUID.exec(id);
  return m === null ? str(id) : { type: "uuid", value: Buffer.from(m.slice(1).join(""), "hex") };
}

/**
 * A header value an annotation carries though application-properties cannot (an annotation may
 * hold any 1.0 type): arrays as lists, tables as maps with string keys — x-death among them.
 * Decimals have no 1.0 counterpart here and go as null.
 */
function annotationValue(v: FieldValue): Amqp10Value {
  const simple = headerValue(v);
  if (simple !== null) return simple;
  if (Array.isArray(v)) return { type: "list", value: v.map(annotationValue) };
  if (v !== null && typeof v === "object" && !Buffer.isBuffer(v) && !(v instanceof Date) && !(v instanceof Decimal)) {
    return { type: "map", value: Object.entries(v).map(([k, x]) => [str(k), annotationValue(x)] as const) };
  }
  return { type: "null" };
}

/** Where a delivered message was published: RabbitMQ 4's x-exchange and x-routing-key annotations. */
export interface Published {
  readonly exchange: string;
  readonly routingKey: string;
}

/** The domain's message as 1.0 sections, pieces to write in order (the body's Buffers among them, uncopied). */
export function toAmqp1(p: Readonly<MessageProperties>, body: Body, published: Published): Buffer[] {
  const header: Amqp10Value[] = [{ type: "boolean", value: p.deliveryMode === 2 }];
  if (p.priority !== undefined || p.expiration !== undefined) header.push(p.priority !== undefined ? { type: "ubyte", value: p.priority & 0xff } : { type: "null" });
  if (p.expiration !== undefined && /^\d+$/.test(p.expiration)) header.push({ type: "uint", value: Number(p.expiration) >>> 0 });
  const annotations: Array<readonly [Amqp10Value, Amqp10Value]> = [
    [sym("x-exchange"), str(published.exchange)],
    [sym("x-routing-key"), str(published.routingKey)],
  ];
  const app: Array<readonly [Amqp10Value, Amqp10Value]> = [];
  // A kept properties section is the message's properties, as RabbitMQ 4 reads the header.
  const section = validSection(p.headers?.[PROPERTIES_HEADER]);
  for (const [k, v] of Object.entries(p.headers ?? {})) {
    if (section !== null && k === PROPERTIES_HEADER) continue;
    const value = headerValue(v);
    // RabbitMQ 4 gives a 1.0 consumer the dead-lettering history as x-opt-deaths, not x-death.
    const deaths = k === "x-death" ? deathsAnnotation(v) : null;
    if (deaths !== null) annotations.push([sym("x-opt-deaths"), deaths]);
    else if (k.startsWith("x-")) annotations.push([sym(k), value ?? annotationValue(v)]);
    else if (k === "CC" && Array.isArray(v)) annotations.push([sym("x-cc"), { type: "list", value: v.map((x) => headerValue(x) ?? { type: "null" }) }]);
    else if (value !== null) app.push([str(k), value]);
  }
  const amqp10Body = p.type === AMQP10_TYPE;
  if (p.type !== undefined && !amqp10Body) annotations.push([sym("x-basic-type"), str(p.type)]);
  const properties: Partial<Record<PropertyField, Amqp10Value>> = {};
  if (p.messageId !== undefined) properties.messageId = idValue(p.messageId);
  if (p.userId !== undefined) properties.userId = { type: "binary", value: Buffer.from(p.userId, "utf8") };
  if (p.replyTo !== undefined) properties.replyTo = str(`/queues/${encodeURIComponent(p.replyTo)}`);
  if (p.correlationId !== undefined) properties.correlationId = idValue(p.correlationId);
  if (p.contentType !== undefined) properties.contentType = sym(p.contentType);
  if (p.contentEncoding !== undefined) properties.contentEncoding = sym(p.contentEncoding);
  if (p.timestamp !== undefined) properties.creationTime = { type: "timestamp", value: p.timestamp * 1000 };
  if (p.appId !== undefined) properties.groupId = str(p.appId);
  const parts: readonly Buffer[] = Array.isArray(body) ? body : [body as Buffer];
  const message: Amqp10Message = { header, messageAnnotations: annotations as Amqp10Map, properties, applicationProperties: app, propertiesSection: section };
  const pieces = encodeMessage(amqp10Body ? message : { ...message, dataParts: parts });
  if (amqp10Body) pieces.push(...parts);
  return pieces;
}
