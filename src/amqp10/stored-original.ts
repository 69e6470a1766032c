/**
 * A stream record that is an AMQP 1.0 message kept whole, as RabbitMQ 4 keeps a message published
 * over AMQP 1.0 in a stream (rabbit_stream_queue: mc_amqp's protocol_state): the sender's header,
 * message-annotations beginning with `x-routing-key` and `x-exchange` (RabbitMQ 4 puts them
 * first), then the sender's bare message and footer byte for byte (properties,
 * application-properties of every 1.0 type, every body section). Delivery-annotations are not kept.
 *
 * Telling the two record layouts of a segment apart: Coney's model form (amqp10FromDomain,
 * RabbitMQ 3.10's mapping, written for messages from other protocols and by builds before this
 * one for 1.0 messages too) always begins its annotations with `x-exchange`; a record kept whole
 * begins them with `x-routing-key` then `x-exchange`. A record of neither layout (a native
 * publisher's, say) reads as the model form, as before. So segments written by an older build
 * read as they always did.
 *
 * A record kept whole reads back as the model by RabbitMQ 4's rules (model-from-amqp10.ts, the
 * same as a queue's 0-9-1 consumers get) and keeps its sections as slices of the record (not
 * copied) for AMQP 1.0 consumers.
 */
import { encodeAmqp10 } from "./amqp10-encoder.js";
import { textOf, type Amqp10Value } from "./amqp10-value.js";
import { domainFromAmqp10, type PublishAddress } from "./message-mapping.js";
import { decodeMessage, SECTION, type Amqp10Message } from "./message-sections.js";
import { modelFromAmqp10, propertiesSectionOf, propertiesToKeep } from "./model-from-amqp10.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import type { Body } from "../broker/values/message-body.js";

/** The domain's OriginalEncoding format of a message published over AMQP 1.0 (its parts: header?, message-annotations, the rest). */
export const AMQP10_FORMAT = "amqp-1.0";

/** A stream record read back. */
export interface StreamRecordContent {
  readonly properties: MessageProperties;
  readonly body: Body;
  readonly address: PublishAddress;
  /** A record kept whole: [header section (when it has one), message-annotations, the rest], slices of the record; absent for the model form. */
  readonly original?: readonly Buffer[];
}

/** An empty message-annotations section (a map of no entries). */
const NO_ANNOTATIONS = Buffer.from([0x00, 0x53, SECTION.messageAnnotations, 0xc1, 1, 0]);

/** The message-annotations section's first byte: descriptor 0x00, smallulong 0x53, code 0x72. */
function isAnnotationsAt(b: Buffer, at: number): boolean {
  return b.length >= at + 5 && b[at] === 0x00 && b[at + 1] === 0x53 && b[at + 2] === SECTION.messageAnnotations;
}

/** Where the message-annotations section at `at` ends (its map's size says); -1 when it is not a map. */
function annotationsEnd(b: Buffer, at: number): number {
  const ctor = b[at + 3];
  if (ctor === 0xc1) return at + 5 + b[at + 4]!;
  if (ctor === 0xd1 && b.length >= at + 8) return at + 8 + b.readUInt32BE(at + 4);
  return -1;
}

/** The parts of `bytes` (decoded as `m`) when it is a record kept whole; null otherwise. */
function keptWhole(bytes: Buffer, m: Amqp10Message): Buffer[] | null {
  const a = m.messageAnnotations;
  if (a === undefined || a.length < 2 || textOf(a[0]![0]) !== "x-routing-key" || textOf(a[1]![0]) !== "x-exchange") return null;
  const header = m.raw!.header;
  // The header first (if any), the annotations right after it, the rest right after them: nothing else between.
  if (header !== null && header.byteOffset !== bytes.byteOffset) return null;
  const at = header?.length ?? 0;
  const restAt = bytes.length - m.raw!.rest.length;
  if (!isAnnotationsAt(bytes, at) || annotationsEnd(bytes, at) !== restAt) return null;
  const annotations = bytes.subarray(at, restAt);
  const rest = bytes.subarray(restAt);
  return header === null ? [annotations, rest] : [header, annotations, rest];
}

/** A stream record's AMQP 1.0 bytes as the model (and, kept whole, its parts). Throws Amqp10DecodeError. */
export function readStreamRecord(bytes: Buffer): StreamRecordContent {
  const m = decodeMessage(bytes);
  const original = keptWhole(bytes, m);
  if (original === null) return domainFromAmqp10(m);
  const { properties, body } = modelFromAmqp10(m, propertiesToKeep(m, propertiesSectionOf(m, bytes)));
  const a = m.messageAnnotations!;
  return { properties, body, address: { routingKey: textOf(a[0]![1]) ?? "", exchange: textOf(a[1]![1]) ?? "" }, original };
}

/**
 * `parts` (an AMQP 1.0 message's: header?, message-annotations, …) with one more message annotation
 * (a stream delivery's x-stream-offset) written at the end of the annotations map: a new section
 * for that part, every other part as it is. Without an annotations part, one is put after the header.
 */
export function withAnnotation(parts: readonly Buffer[], key: Amqp10Value, value: Amqp10Value): Buffer[] {
  const entry = Buffer.concat([encodeAmqp10(key), encodeAmqp10(value)]);
  const i = parts.findIndex((p) => isAnnotationsAt(p, 0) && annotationsEnd(p, 0) === p.length);
  const old = i < 0 ? NO_ANNOTATIONS : parts[i]!;
  const small = old[3] === 0xc1;
  const count = small ? old[5]! : old.readUInt32BE(8);
  const entries = old.subarray(small ? 6 : 12);
  const size = entries.length + entry.length;
  let head: Buffer;
  if (size + 1 <= 0xff && count + 2 <= 0xff) {
    head = Buffer.from([0x00, 0x53, SECTION.messageAnnotations, 0xc1, size + 1, count + 2]);
  } else {
    head = Buffer.from([0x00, 0x53, SECTION.messageAnnotations, 0xd1, 0, 0, 0, 0, 0, 0, 0, 0]);
    head.writeUInt32BE(size + 4, 4);
    head.writeUInt32BE(count + 2, 8);
  }
  const section = Buffer.concat([head, entries, entry]);
  const out = [...parts];
  if (i >= 0) out[i] = section;
  else out.splice(parts.length > 0 && parts[0]![0] === 0x00 && parts[0]![1] === 0x53 && parts[0]![2] === SECTION.header ? 1 : 0, 0, section);
  return out;
}
