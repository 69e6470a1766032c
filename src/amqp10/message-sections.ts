/**
 * An AMQP 1.0 message as a sequence of described sections (part 3, "Messaging", §3.2): header,
 * delivery and message annotations, properties, application properties, the body (data,
 * amqp-sequence or amqp-value sections) and the footer. A data section's bytes are kept as
 * given (pieces, not copied) on the way out and as slices of the input on the way in.
 */
import { encodeAmqp10 } from "./amqp10-encoder.js";
import { Amqp10DecodeError, Amqp10Reader } from "./amqp10-decoder.js";
import type { Amqp10Value } from "./amqp10-value.js";

/** Section descriptors (ulong codes, part 3 §3.2). */
export const SECTION = {
  header: 0x70,
  deliveryAnnotations: 0x71,
  messageAnnotations: 0x72,
  properties: 0x73,
  applicationProperties: 0x74,
  data: 0x75,
  amqpSequence: 0x76,
  amqpValue: 0x77,
  footer: 0x78,
} as const;

/** The properties section's fields, in their list order (part 3 §3.2.4). */
export const PROPERTY_FIELDS = ["messageId", "userId", "to", "subject", "replyTo", "correlationId", "contentType", "contentEncoding", "absoluteExpiryTime", "creationTime", "groupId", "groupSequence", "replyToGroupId"] as const;
export type PropertyField = (typeof PROPERTY_FIELDS)[number];

export type Amqp10Map = ReadonlyArray<readonly [Amqp10Value, Amqp10Value]>;

export interface Amqp10Message {
  /** The header section's list (durable, priority, ttl, first-acquirer, delivery-count), as given. */
  readonly header?: readonly Amqp10Value[];
  readonly messageAnnotations?: Amqp10Map;
  readonly properties?: Partial<Record<PropertyField, Amqp10Value>>;
  readonly applicationProperties?: Amqp10Map;
  /** The data sections' bytes, when the body is data sections. */
  readonly data?: readonly Buffer[];
  /**
   * Written only: one data section given as the pieces its bytes arrived in (an AMQP 0-9-1 body
   * in parts), not joined. One section, as RabbitMQ writes: clients such as
   * rabbitmq-stream-js-client read only one of several data sections.
   */
  readonly dataParts?: readonly Buffer[];
  /** The body's other sections (amqp-value, amqp-sequence), encoded as they came. */
  readonly otherBody?: Buffer;
  /**
   * Read only: the header section as it came (null without one), and every byte from the first
   * section after the annotations (properties, application-properties, body, footer) to the end —
   * slices of the input, not copies, for a broker that sends the message on as it came.
   */
  readonly raw?: {
    readonly header: Buffer | null;
    readonly rest: Buffer;
    /** Where the properties section's bytes lie in the input ([start, end); both -1 without one): offsets, so that reading allocates nothing for them. */
    readonly propertiesStart: number;
    readonly propertiesEnd: number;
  };
  /** Written only: an encoded properties section written as it is, instead of `properties`. */
  readonly propertiesSection?: Buffer | null;
}

const described = (code: number, value: Amqp10Value): Buffer => encodeAmqp10({ type: "described", descriptor: { type: "ulong", value: BigInt(code) }, value });

/** The message as pieces to write in order: the sections before the body, then each data section's prefix and bytes. */
export function encodeMessage(m: Amqp10Message): Buffer[] {
  const pieces: Buffer[] = [];
  if (m.header && m.header.length > 0) pieces.push(described(SECTION.header, { type: "list", value: m.header }));
  if (m.messageAnnotations && m.messageAnnotations.length > 0) pieces.push(described(SECTION.messageAnnotations, { type: "map", value: m.messageAnnotations }));
  if (m.propertiesSection) {
    pieces.push(m.propertiesSection);
  } else if (m.properties) {
    const list = PROPERTY_FIELDS.map((f) => m.properties![f] ?? { type: "null" as const });
    while (list.length > 0 && list[list.length - 1]!.type === "null") list.pop();
    if (list.length > 0) pieces.push(described(SECTION.properties, { type: "list", value: list }));
  }
  if (m.applicationProperties && m.applicationProperties.length > 0) pieces.push(described(SECTION.applicationProperties, { type: "map", value: m.applicationProperties }));
  for (const d of m.data ?? []) pieces.push(dataPrefix(d.length), d);
  if (m.dataParts && m.dataParts.length > 0) {
    let length = 0;
    for (const d of m.dataParts) length += d.length;
    pieces.push(dataPrefix(length), ...m.dataParts);
  }
  if (m.otherBody) pieces.push(m.otherBody);
  return pieces;
}

/** The bytes before a data section's content: descriptor 0x75, then binary of `length` bytes. */
function dataPrefix(length: number): Buffer {
  if (length < 256) return Buffer.from([0x00, 0x53, SECTION.data, 0xa0, length]);
  const b = Buffer.from([0x00, 0x53, SECTION.data, 0xb0, 0, 0, 0, 0]);
  b.writeUInt32BE(length, 4);
  return b;
}

/** A message being read, section by section (decodeMessage, src/amqp1/pieced-message.ts). */
export type Amqp10MessageDraft = { -readonly [K in keyof Amqp10Message]: Amqp10Message[K] };

/**
 * A decoded section that is not the body's (header, annotations, properties,
 * application-properties, footer) into `out`; throws Amqp10DecodeError on an unknown section.
 * `start`: where the section lies in the message, for the error's text.
 */
export function takeSection(out: Amqp10MessageDraft, code: number, v: Amqp10Value, start: number): void {
  switch (code) {
    case SECTION.header:
      out.header = v.type === "list" ? v.value : [];
      break;
    case SECTION.messageAnnotations:
      out.messageAnnotations = v.type === "map" ? v.value : [];
      break;
    case SECTION.properties: {
      const props: Partial<Record<PropertyField, Amqp10Value>> = {};
      if (v.type === "list") v.value.forEach((x, i) => i < PROPERTY_FIELDS.length && x.type !== "null" && (props[PROPERTY_FIELDS[i]!] = x));
      out.properties = props;
      break;
    }
    case SECTION.applicationProperties:
      out.applicationProperties = v.type === "map" ? v.value : [];
      break;
    case SECTION.deliveryAnnotations:
    case SECTION.footer:
      break;
    default:
      throw new Amqp10DecodeError(`byte ${start}: unknown section 0x${code.toString(16)}`);
  }
}

/** Decodes a whole message; throws Amqp10DecodeError on anything malformed. */
export function decodeMessage(buf: Buffer): Amqp10Message {
  const r = new Amqp10Reader(buf);
  const out: Amqp10MessageDraft = {};
  const data: Buffer[] = [];
  let bodyStart = -1;
  let header: Buffer | null = null;
  let restStart = buf.length;
  let propertiesStart = -1;
  let propertiesEnd = -1;
  while (!r.done) {
    const start = r.at;
    const section = r.read();
    if (section.type !== "described" || section.descriptor.type !== "ulong") throw new Amqp10DecodeError(`byte ${start}: not a message section`);
    const code = Number(section.descriptor.value);
    if (restStart === buf.length && code >= SECTION.properties) restStart = start;
    const v = section.value;
    if (code === SECTION.data) {
      if (v.type !== "binary") throw new Amqp10DecodeError(`byte ${start}: a data section that is not binary`);
      data.push(v.value);
    } else if (code === SECTION.amqpSequence || code === SECTION.amqpValue) {
      if (bodyStart < 0) bodyStart = start;
    } else {
      takeSection(out, code, v, start);
      if (code === SECTION.header) header = buf.subarray(start, r.at);
      else if (code === SECTION.properties) {
        propertiesStart = start;
        propertiesEnd = r.at;
      }
    }
  }
  if (data.length > 0) out.data = data;
  if (bodyStart >= 0) out.otherBody = buf.subarray(bodyStart);
  out.raw = { header, rest: buf.subarray(restStart), propertiesStart, propertiesEnd };
  return out;
}
