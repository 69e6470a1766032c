/**
 * AMQP 1.0 property filter expressions (OASIS "AMQP Filter Expressions" §4, as RabbitMQ 4.1
 * applies them to stream reads): `amqp:properties-filter` (0x173) matches the properties
 * section's fields, `amqp:application-properties-filter` (0x174) the application-properties
 * entries. A filter is a map of 1..16 reference values; a message passes when every reference
 * value matches ("&p:x" / "&s:x" a string starting / ending with x; "&&" escapes a leading "&";
 * numbers compare by value whatever their AMQP type; null, which RabbitMQ 4.1 takes only in an
 * application-properties filter, matches any present value). A filter that does
 * not parse is not accepted — RabbitMQ leaves it out of the attach's echoed filter set instead
 * of refusing the link; so does this module (parsePropertyFilter returns null).
 */
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { textOf } from "../amqp10/amqp10-value.js";
import type { Amqp10Message, PropertyField } from "../amqp10/message-sections.js";

/** The filter-expressions draft's complexity limit (RabbitMQ: MAX_FILTER_FIELDS). */
const MAX_FIELDS = 16;
const PROPERTIES_CODE = 0x173n;
const APPLICATION_PROPERTIES_CODE = 0x174n;

export type FilterSection = "properties" | "application-properties";

/** A reference value: a plain value (compared by equality), an affix test, or null (always true). */
type Reference = { readonly kind: "any" } | { readonly kind: "prefix" | "suffix"; readonly text: string } | { readonly kind: "equal"; readonly value: Amqp10Value };

export interface PropertyFilter {
  readonly section: FilterSection;
  /** (properties field or application-property key, reference) pairs, all of which must match. */
  readonly fields: ReadonlyArray<readonly [string, Reference]>;
}

/**
 * The properties fields a filter may name, with the AMQP types a reference value may have
 * (RabbitMQ 4.1's rabbit_amqp_filter_prop: all thirteen) and whether string modifiers apply.
 * A message is matched on its 1.0 form: as published over 1.0 (to, subject,
 * absolute-expiry-time, group-sequence and reply-to-group-id included, also after a stream kept
 * only the model: properties-header.ts), or converted as RabbitMQ 4 converts a 0-9-1 message
 * (which has no to, subject … : only a null reference value matches them).
 */
const PROPERTY_TYPES: Readonly<Record<string, readonly [PropertyField, readonly string[], boolean]>> = {
  "message-id": ["messageId", ["ulong", "uuid", "binary", "string"], true],
  "user-id": ["userId", ["binary"], false],
  to: ["to", ["string"], true],
  subject: ["subject", ["string"], true],
  "reply-to": ["replyTo", ["string"], true],
  "correlation-id": ["correlationId", ["ulong", "uuid", "binary", "string"], true],
  "content-type": ["contentType", ["symbol"], false],
  "content-encoding": ["contentEncoding", ["symbol"], false],
  "absolute-expiry-time": ["absoluteExpiryTime", ["timestamp"], false],
  "creation-time": ["creationTime", ["timestamp"], false],
  "group-id": ["groupId", ["string"], true],
  "group-sequence": ["groupSequence", ["uint"], false],
  "reply-to-group-id": ["replyToGroupId", ["string"], true],
};

class NotAccepted extends Error {}

/** A string reference value with the draft's modifiers (§4.1.1); "&" + anything else is invalid. */
function stringReference(s: string): Reference {
  if (s.startsWith("&p:")) return { kind: "prefix", text: s.slice(3) };
  if (s.startsWith("&s:")) return { kind: "suffix", text: s.slice(3) };
  if (s.startsWith("&&")) return { kind: "equal", value: { type: "string", value: s.slice(1) } };
  if (s.startsWith("&")) throw new NotAccepted();
  return { kind: "equal", value: { type: "string", value: s } };
}

function reference(v: Amqp10Value, modifiers: boolean): Reference {
  if (v.type === "null") return { kind: "any" };
  if (modifiers && v.type === "string") return stringReference(v.value);
  return { kind: "equal", value: v };
}

function sectionOf(descriptor: Amqp10Value): FilterSection | null {
  const name = textOf(descriptor);
  if (name === "amqp:properties-filter" || (descriptor.type === "ulong" && descriptor.value === PROPERTIES_CODE)) return "properties";
  if (name === "amqp:application-properties-filter" || (descriptor.type === "ulong" && descriptor.value === APPLICATION_PROPERTIES_CODE)) return "application-properties";
  return null;
}

/** A described filter value as a property filter; null when it is not one or is not valid. */
export function parsePropertyFilter(v: Amqp10Value): PropertyFilter | null {
  if (v.type !== "described" || v.value.type !== "map") return null;
  const section = sectionOf(v.descriptor);
  const entries = v.value.value;
  if (section === null || entries.length === 0 || entries.length > MAX_FIELDS) return null;
  const fields: Array<readonly [string, Reference]> = [];
  try {
    for (const [k, ref] of entries) {
      if (section === "properties") {
        const spec = k.type === "symbol" ? PROPERTY_TYPES[k.value] : undefined;
        if (spec === undefined || !spec[1].includes(ref.type)) return null;
        fields.push([spec[0], reference(ref, spec[2])]);
      } else {
        if (k.type !== "string") return null;
        fields.push([k.value, reference(ref, true)]);
      }
    }
  } catch (err) {
    if (err instanceof NotAccepted) return null;
    throw err;
  }
  return { section, fields };
}

function isNumber(v: Amqp10Value): v is Extract<Amqp10Value, { value: number | bigint }> {
  return typeof (v as { value?: unknown }).value === "number" || typeof (v as { value?: unknown }).value === "bigint";
}

/** Equality as RabbitMQ's (Erlang's ==): numbers by value across types, strings and symbols by text, binaries by bytes. */
function equal(ref: Amqp10Value, v: Amqp10Value): boolean {
  const rt = textOf(ref);
  if (rt !== undefined) return rt === textOf(v);
  if (isNumber(ref) && ref.type !== "timestamp") {
    if (!isNumber(v) || v.type === "timestamp") return false;
    const a = ref.value;
    const b = v.value;
    if (typeof a === "bigint" || typeof b === "bigint") return Number.isInteger(Number(a)) && Number.isInteger(Number(b)) ? BigInt(a) === BigInt(b) : Number(a) === Number(b);
    return a === b;
  }
  if (ref.type === "timestamp") return v.type === "timestamp" && v.value === ref.value;
  if (ref.type === "boolean") return v.type === "boolean" && v.value === ref.value;
  if (ref.type === "uuid" || ref.type === "binary") return (v.type === "uuid" || v.type === "binary") && ref.value.equals(v.value);
  // Compound reference values (lists, maps) are not compared: no match.
  return false;
}

function matches(ref: Reference, v: Amqp10Value | undefined): boolean {
  if (ref.kind === "any") return true;
  if (v === undefined) return false;
  if (ref.kind === "equal") return equal(ref.value, v);
  // Affixes test strings and symbols by text, binaries by their bytes (RabbitMQ compares bytes).
  if (v.type === "binary") {
    const t = Buffer.from(ref.text);
    return ref.kind === "prefix" ? v.value.subarray(0, t.length).equals(t) : v.value.length >= t.length && v.value.subarray(v.value.length - t.length).equals(t);
  }
  const s = textOf(v);
  if (s === undefined) return false;
  return ref.kind === "prefix" ? s.startsWith(ref.text) : s.endsWith(ref.text);
}

function applicationProperty(m: Amqp10Message, key: string): Amqp10Value | undefined {
  for (const [k, v] of m.applicationProperties ?? []) if (k.type === "string" && k.value === key) return v;
  return undefined;
}

/** Whether a message passes every filter (a filter set passes when each of its filters does: part 3 §3.5.8). */
export function passesAll(filters: readonly PropertyFilter[], m: Amqp10Message): boolean {
  for (const f of filters) {
    for (const [name, ref] of f.fields) {
      if (f.section === "properties") {
        // An absent property is matched only by a null reference value (RabbitMQ: undefined).
        if (!matches(ref, m.properties?.[name as PropertyField])) return false;
      } else {
        // An absent application property matches nothing, not even null (RabbitMQ 4.1).
        const v = applicationProperty(m, name);
        if (v === undefined || !matches(ref, v)) return false;
      }
    }
  }
  return true;
}
