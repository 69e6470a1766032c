/**
 * An AMQP 1.0 message as the domain's model (AMQP 0-9-1's properties and body), by RabbitMQ 4's
 * rules (its "Message conversions" guide; mc_amqpl:convert_from(mc_amqp)). One function for the
 * two places a 1.0 message becomes the model: a publish over AMQP 1.0 (src/amqp1's fromAmqp1) and
 * a stream record kept as its 1.0 message (stored-original.ts), so a 0-9-1 or MQTT consumer reads
 * the same message from a queue and from a stream, in memory and from disk.
 * - header: durable → delivery-mode 2/1, priority → priority, ttl → expiration (ms);
 * - message-annotations "x-…" → x- headers (but RabbitMQ's own x-basic-*, x-exchange,
 *   x-routing-key; x-cc → CC), x-basic-type → type;
 * - application-properties (string keys of at most 255 bytes) → headers;
 * - properties: message-id and correlation-id (a uuid → "urn:uuid:…", a ulong as its digits, a
 *   binary or a string over 255 bytes kept as the x-message-id / x-correlation-id header),
 *   user-id, reply-to ("/queues/:q" → q), content-type, content-encoding, creation-time (ms → s),
 *   group-id → app-id; the fields the model has no place for keep the whole section in the
 *   `x-amqp-1.0-properties` header (`kept`, from propertiesToKeep);
 * - body: data sections → the body (several stay several pieces: not joined); any other body
 *   (amqp-value, amqp-sequence) stays encoded, with type "amqp-1.0".
 */
import type { FieldTable } from "../broker/values/field-value.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import type { Body } from "../broker/values/message-body.js";
import type { Amqp10Message } from "./message-sections.js";
import { fieldValue, smallInt } from "./message-mapping.js";
import { textOf, type Amqp10Value } from "./amqp10-value.js";

/** The 0-9-1 header a 1.0 properties section rides in where the model has no place for its fields (RabbitMQ 3.x's plugin writes it too). */
export const PROPERTIES_HEADER = "x-amqp-1.0-properties";

const AMQP10_TYPE = "amqp-1.0";
const EMPTY = Buffer.alloc(0);
const SHORTSTR_MAX = 255;

const isInternal = (k: string): boolean => k.startsWith("x-basic-") || k === "x-routing-key" || k === "x-exchange";

/**
 * The properties section's bytes to keep in the x-amqp-1.0-properties header for a message read
 * from `payload`, or null when every field it sets has a place in the model (the usual case:
 * nothing is allocated). A copy: the payload's memory may be the transport's to reuse.
 */
export function propertiesToKeep(m: Amqp10Message, section: Buffer | null): Buffer | null {
  const p = m.properties;
  if (p === undefined || (p.to === undefined && p.subject === undefined && p.absoluteExpiryTime === undefined && p.groupSequence === undefined && p.replyToGroupId === undefined)) return null;
  // A copy: the payload's memory may be the transport's to reuse.
  return section === null ? null : Buffer.from(section);
}

/** The properties section's bytes within the decoded `payload` (a slice, not a copy), or null without one. */
export function propertiesSectionOf(m: Amqp10Message, payload: Buffer): Buffer | null {
  const raw = m.raw;
  return raw === undefined || raw.propertiesStart < 0 ? null : payload.subarray(raw.propertiesStart, raw.propertiesEnd);
}

/**
 * The decoded message `m` as the model; `kept`: its properties section for the x-amqp-1.0-properties
 * header (propertiesToKeep), or null. `given`: its body when the caller read it rather than the
 * decoder (slices of several transfers, pieced-message.ts), with whether it is an encoded
 * amqp-value / amqp-sequence body; null: the body is `m`'s.
 */
export function modelFromAmqp10(m: Amqp10Message, kept: Buffer | null, given: { readonly body: Body; readonly encoded: boolean } | null = null): { properties: MessageProperties; body: Body } {
  const p: MessageProperties = {};
  const headers: FieldTable = {};
  const h = m.header ?? [];
  const durable = h[0];
  if (durable?.type === "boolean") p.deliveryMode = durable.value ? 2 : 1;
  const priority = smallInt(h[1]);
  if (priority !== undefined) p.priority = priority;
  const ttl = smallInt(h[2]);
  if (ttl !== undefined) p.expiration = String(ttl);
  for (const [k, v] of m.messageAnnotations ?? []) {
    const key = textOf(k);
    if (key === undefined) continue;
    if (key === "x-basic-type") p.type = textOf(v);
    else if (key.startsWith("x-") && key.length <= SHORTSTR_MAX && !isInternal(key)) headers[key === "x-cc" ? "CC" : key] = fieldValue(v);
  }
  for (const [k, v] of m.applicationProperties ?? []) {
    if (k.type !== "string" || Buffer.byteLength(k.value) > SHORTSTR_MAX) continue;
    headers[k.value] = fieldValue(v);
  }
  const props = m.properties ?? {};
  const id = messageId(props.messageId, "x-message-id", headers);
  if (id !== undefined) p.messageId = id;
  const corr = messageId(props.correlationId, "x-correlation-id", headers);
  if (corr !== undefined) p.correlationId = corr;
  if (props.userId?.type === "binary" && props.userId.value.length <= SHORTSTR_MAX) p.userId = props.userId.value.toString("utf8");
  const replyTo = textOf(props.replyTo);
  if (replyTo !== undefined) p.replyTo = replyTo.startsWith("/queues/") ? safeDecode(replyTo.slice(8)) : replyTo;
  const contentType = textOf(props.contentType);
  if (contentType !== undefined) p.contentType = contentType;
  const contentEncoding = textOf(props.contentEncoding);
  if (contentEncoding !== undefined) p.contentEncoding = contentEncoding;
  if (props.creationTime?.type === "timestamp") p.timestamp = Math.floor(props.creationTime.value / 1000);
  const groupId = textOf(props.groupId);
  if (groupId !== undefined) p.appId = groupId;
  if (kept !== null) headers[PROPERTIES_HEADER] = kept;
  if (Object.keys(headers).length > 0) p.headers = headers;
  let body: Body;
  if (given !== null) {
    body = given.body;
    if (given.encoded) p.type = AMQP10_TYPE;
  } else if (m.otherBody !== undefined) {
    body = m.otherBody;
    p.type = AMQP10_TYPE;
  } else {
    // Several data sections stay several pieces of one body (not joined: no copy).
    const data = m.data ?? [];
    body = data.length === 1 ? data[0]! : data.length === 0 ? EMPTY : data;
  }
  return { properties: p, body };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** RabbitMQ 4's message_id/3: what 0-9-1 cannot carry as a short string goes to a header. */
function messageId(v: Amqp10Value | undefined, header: string, headers: FieldTable): string | undefined {
  if (v === undefined) return undefined;
  if (v.type === "uuid") return `urn:uuid:${uuidText(v.value)}`;
  if (v.type === "ulong") return v.value.toString();
  if (v.type === "binary") {
    headers[header] = v.value;
    return undefined;
  }
  if (v.type === "string") {
    if (Buffer.byteLength(v.value) <= SHORTSTR_MAX) return v.value;
    headers[header] = v.value;
  }
  return undefined;
}

function uuidText(b: Buffer): string {
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
