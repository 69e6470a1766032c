/**
 * A received message read by hand when it is plain — an optional header section, then data
 * sections, nothing else (what a sender of raw bytes sends: coney-perf, most senders of small
 * messages) — into exactly what fromAmqp1 (message-conversion.ts) makes of it, without decoding
 * it into Amqp10Values first: the hot path of a publish over AMQP 1.0. Anything else
 * (annotations, properties, application-properties, an amqp-value body, a footer, a header field
 * in an encoding not listed below, a malformed byte) returns null and the full decoder reads the
 * message, so its errors and conversions stay the only ones.
 *
 * Header fields read by hand (part 3 §3.2.1): durable (boolean: 0x41, 0x42, 0x56 or null),
 * priority (ubyte 0x50 or null), ttl (uint: 0x43, 0x52, 0x70 or null), first-acquirer (boolean),
 * delivery-count (uint) — the last two are not mapped (as fromAmqp1), only checked.
 */
import type { MessageProperties } from "../broker/values/message-properties.js";
import type { Amqp10Map } from "../amqp10/message-sections.js";
import { SECTION } from "../amqp10/message-sections.js";
import type { ConvertedMessage } from "./message-conversion.js";

const EMPTY = Buffer.alloc(0);
const NO_ANNOTATIONS: Amqp10Map = Object.freeze([]);
// Shared, not frozen: a frozen object's other shape would make the domain's property reads polymorphic.
const NO_PROPERTIES: MessageProperties = {};
const DURABLE: MessageProperties = { deliveryMode: 2 };
const NOT_DURABLE: MessageProperties = { deliveryMode: 1 };
/** Not a field this reader takes: the message goes to the full decoder. */
const OTHER = -2;
const NULL = -1;

/**
 * The message that is `payload` from byte `start` on, as fromAmqp1 would convert it, or null when
 * it is not a plain message. Its properties object may be shared (a header-less message's, a
 * durable-only one's): the domain never changes a message's properties in place (as 0-9-1 shares
 * the decoded properties of equal raw bytes).
 */
export function readPlainMessage(payload: Buffer, start = 0): ConvertedMessage | null {
  const n = payload.length;
  let at = start;
  let header: Buffer | null = null;
  let properties: MessageProperties = NO_PROPERTIES;
  if (n >= at + 4 && payload[at] === 0x00 && payload[at + 1] === 0x53 && payload[at + 2] === SECTION.header) {
    const p: MessageProperties = {};
    at = readHeader(payload, at, p);
    if (at < 0) return null;
    header = payload.subarray(start, at);
    properties = p.priority === undefined && p.expiration === undefined ? (p.deliveryMode === 2 ? DURABLE : p.deliveryMode === 1 ? NOT_DURABLE : NO_PROPERTIES) : p;
  }
  const restStart = at;
  let first: Buffer | null = null;
  let more: Buffer[] | null = null;
  while (at < n) {
    if (at + 4 > n || payload[at] !== 0x00 || payload[at + 1] !== 0x53 || payload[at + 2] !== SECTION.data) return null;
    const ctor = payload[at + 3];
    let size: number;
    if (ctor === 0xa0 && at + 5 <= n) {
      size = payload[at + 4]!;
      at += 5;
    } else if (ctor === 0xb0 && at + 8 <= n) {
      size = payload.readUInt32BE(at + 4);
      at += 8;
    } else return null;
    if (at + size > n) return null;
    const data = payload.subarray(at, at + size);
    at += size;
    if (first === null) first = data;
    else (more ??= [first]).push(data);
  }
  // Several data sections stay several pieces of one body (not joined: no copy), as fromAmqp1 keeps them.
  const body = more ?? first ?? EMPTY;
  return { properties, body, subject: null, to: null, header, annotations: NO_ANNOTATIONS, rest: payload.subarray(restStart) };
}

/** The header section at byte `s` into `p`; returns where it ends, or -1 when the reader does not take it. */
function readHeader(b: Buffer, s: number, p: MessageProperties): number {
  const ctor = b[s + 3];
  if (ctor === 0x45) return s + 4;
  let at: number;
  let count: number;
  let end: number;
  if (ctor === 0xc0 && b.length >= s + 6) {
    end = s + 5 + b[s + 4]!;
    count = b[s + 5]!;
    at = s + 6;
  } else if (ctor === 0xd0 && b.length >= s + 12) {
    end = s + 8 + b.readUInt32BE(s + 4);
    count = b.readUInt32BE(s + 8);
    at = s + 12;
  } else return -1;
  if (count > 5 || end > b.length) return -1;
  for (let i = 0; i < count; i++) {
    const code = b[at++];
    let v: number = OTHER;
    if (code === 0x40) v = NULL;
    else if (i === 0 || i === 3) {
      // durable, first-acquirer: boolean.
      if (code === 0x41) v = 1;
      else if (code === 0x42) v = 0;
      else if (code === 0x56 && at < end) v = b[at++] !== 0 ? 1 : 0;
    } else if (i === 1) {
      if (code === 0x50 && at < end) v = b[at++]!;
    } else if (code === 0x43) v = 0;
    else if (code === 0x52 && at < end) v = b[at++]!;
    else if (code === 0x70 && at + 4 <= end) {
      v = b.readUInt32BE(at);
      at += 4;
    }
    if (v === OTHER) return -1;
    if (v === NULL) continue;
    if (i === 0) p.deliveryMode = v === 1 ? 2 : 1;
    else if (i === 1) p.priority = v;
    else if (i === 2) p.expiration = String(v);
  }
  return at === end ? end : -1;
}
