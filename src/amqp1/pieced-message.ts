/**
 * A message that came in several transfer frames (issue 44: "transfers that span frames, no body
 * copies"), read across its pieces — the transfers' payloads as they lie in the socket's read
 * slabs — into exactly what fromAmqp1 (message-conversion.ts) makes of the joined bytes, without
 * joining them. AMQP 0-9-1 keeps a body of several frames so (content-assembly.ts): a body in
 * parts (values/message-body.ts) under the pieces' slab lease (lent-payloads.ts).
 *
 * A cursor walks the sections. A data section's bytes, the body sections from the first
 * amqp-value or amqp-sequence on, and the rest of the message for its original form
 * (original-form.ts) become slices of the pieces, never copied. Every other section (header,
 * annotations, properties, application-properties, footer: small) is decoded from where it lies
 * when it lies in one piece, else from a copy of that section alone; so is an amqp-value or
 * amqp-sequence body made of compound values (a list, a map, an array), whose items must be
 * checked, though its slices are what is kept. A binary, string or symbol amqp-value is only
 * measured.
 *
 * Invariant: the result equals fromAmqp1's for the joined bytes (the body and rest as slices of
 * the same bytes). Whatever this reader does not take — a malformed byte, a descriptor not in its
 * usual smallulong form, a section value that is itself described — goes to fromAmqp1 on the
 * joined bytes, so errors (amqp:decode-error, their texts) stay the full decoder's, and a rare
 * form costs one copy, as every message of several transfers did before.
 */
import { Amqp10Reader } from "../amqp10/amqp10-decoder.js";
import { SECTION, takeSection, type Amqp10MessageDraft } from "../amqp10/message-sections.js";
import type { Body } from "../broker/values/message-body.js";
import { convertSections, fromAmqp1, type ConvertedMessage } from "./message-conversion.js";

const EMPTY = Buffer.alloc(0);

/** The message that is `pieces` joined, as fromAmqp1 converts it. Throws Amqp10DecodeError as fromAmqp1 does. */
export function readPiecedMessage(pieces: readonly Buffer[]): ConvertedMessage {
  return readAcross(pieces) ?? fromAmqp1(Buffer.concat(pieces));
}

/**
 * The widths of fixed-width values after their constructor (part 1 §1.6), by constructor: exactly
 * those the decoder reads (amqp10-decoder.ts), so a constructor it refuses is never measured here.
 */
const FIXED: ReadonlyMap<number, number> = new Map([
  [0x40, 0], [0x41, 0], [0x42, 0], [0x43, 0], [0x44, 0], [0x45, 0],
  [0x50, 1], [0x51, 1], [0x52, 1], [0x53, 1], [0x54, 1], [0x55, 1], [0x56, 1],
  [0x60, 2], [0x61, 2],
  [0x70, 4], [0x71, 4], [0x72, 4],
  [0x80, 8], [0x81, 8], [0x82, 8], [0x83, 8],
  [0x98, 16],
]);
/** Binary, string, symbol: a size, then bytes with nothing in them to check. */
const SIZED_ONE = new Set([0xa0, 0xa1, 0xa3]);
const SIZED_FOUR = new Set([0xb0, 0xb1, 0xb3]);
/** Lists, maps, arrays: a size, then items the decoder checks. */
const COMPOUND_ONE = new Set([0xc0, 0xc1, 0xe0]);
const COMPOUND_FOUR = new Set([0xd0, 0xd1, 0xf0]);

/** A cursor over pieces: position `pos` of the joined bytes is byte `o` of piece `i`. */
class PieceCursor {
  i = 0;
  o = 0;
  pos = 0;

  constructor(
    readonly pieces: readonly Buffer[],
    readonly total: number,
  ) {}

  /** The next byte, or -1 past the end. */
  u8(): number {
    const pieces = this.pieces;
    while (this.i < pieces.length && this.o >= pieces[this.i]!.length) {
      this.i++;
      this.o = 0;
    }
    if (this.i >= pieces.length) return -1;
    this.pos++;
    return pieces[this.i]![this.o++]!;
  }

  /** The next four bytes as a uint, or -1 past the end. */
  u32(): number {
    const a = this.u8();
    const b = this.u8();
    const c = this.u8();
    const d = this.u8();
    return d < 0 ? -1 : a * 0x1000000 + ((b << 16) | (c << 8) | d);
  }

  /** The next `n` bytes (the caller knows they are there) as slices, appended to `out`; none empty. */
  slices(n: number, out: Buffer[]): void {
    const pieces = this.pieces;
    this.pos += n;
    while (n > 0) {
      const p = pieces[this.i]!;
      const take = Math.min(n, p.length - this.o);
      // A whole piece is kept as it is: the body and the rest then share the pieces' own Buffers (one object per transfer, not three).
      if (take > 0) out.push(this.o === 0 && take === p.length ? p : p.subarray(this.o, this.o + take));
      n -= take;
      this.o += take;
      if (this.o >= p.length && n > 0) {
        this.i++;
        this.o = 0;
      }
    }
  }

  /** Steps over the next `n` bytes (the caller knows they are there). */
  skip(n: number): void {
    const pieces = this.pieces;
    this.pos += n;
    let left = this.o + n;
    while (left > pieces[this.i]!.length && this.i + 1 < pieces.length) {
      left -= pieces[this.i]!.length;
      this.i++;
    }
    this.o = left;
  }

  /** The next `n` bytes as one Buffer: a slice when they lie in one piece, else a copy of them alone. */
  bytes(n: number): Buffer {
    const p = this.pieces[this.i];
    if (p !== undefined && this.o + n <= p.length) {
      const b = p.subarray(this.o, this.o + n);
      this.o += n;
      this.pos += n;
      return b;
    }
    const parts: Buffer[] = [];
    this.slices(n, parts);
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, n);
  }

  /** Moves the cursor back to `pos` (within the current section: a lookahead undone). */
  back(to: { i: number; o: number; pos: number }): void {
    this.i = to.i;
    this.o = to.o;
    this.pos = to.pos;
  }
}

/**
 * The byte count of the value whose constructor `ctor` the cursor has just read (its size field
 * included), read from its size field; -1 when not known here (a described value, a constructor
 * the decoder refuses, the end).
 */
function valueSize(c: PieceCursor, ctor: number): number {
  const fixed = FIXED.get(ctor);
  if (fixed !== undefined) return fixed;
  if (SIZED_ONE.has(ctor) || COMPOUND_ONE.has(ctor)) {
    const n = c.u8();
    return n < 0 ? -1 : 1 + n;
  }
  if (SIZED_FOUR.has(ctor) || COMPOUND_FOUR.has(ctor)) {
    const n = c.u32();
    return n < 0 ? -1 : 4 + n;
  }
  return -1;
}

/** Whether a value of constructor `ctor` holds items the decoder checks (else its size is all there is to check). */
const hasItems = (ctor: number): boolean => COMPOUND_ONE.has(ctor) || COMPOUND_FOUR.has(ctor);

/** The message read across `pieces`, or null when it is left to fromAmqp1 on the joined bytes (see the header). */
function readAcross(pieces: readonly Buffer[]): ConvertedMessage | null {
  let total = 0;
  for (const p of pieces) total += p.length;
  const c = new PieceCursor(pieces, total);
  const out: Amqp10MessageDraft = {};
  const data: Buffer[] = [];
  let header: Buffer | null = null;
  let properties: Buffer | null = null;
  let rest: { i: number; o: number; pos: number } | null = null;
  let other: { i: number; o: number; pos: number } | null = null;
  try {
    while (c.pos < total) {
      const start = { i: c.i, o: c.o, pos: c.pos };
      if (c.u8() !== 0x00 || c.u8() !== 0x53) return null;
      const code = c.u8();
      const ctor = c.u8();
      if (code < 0 || ctor < 0) return null;
      if (rest === null && code >= SECTION.properties) rest = start;
      if (code === SECTION.data) {
        if (ctor !== 0xa0 && ctor !== 0xb0) return null;
        const size = ctor === 0xa0 ? c.u8() : c.u32();
        if (size < 0 || c.pos + size > total) return null;
        c.slices(size, data);
        continue;
      }
      const at = { i: c.i, o: c.o, pos: c.pos };
      const size = valueSize(c, ctor);
      if (size < 0 || at.pos + size > total) return null;
      const sectionEnd = at.pos + size;
      const body = code === SECTION.amqpValue || code === SECTION.amqpSequence;
      if (body && other === null) other = start;
      if (body && !hasItems(ctor)) {
        // Binary, string, symbol or a scalar: nothing in it to check but its length (the decoder takes it whole).
        c.back(at);
        c.skip(size);
        continue;
      }
      c.back(start);
      const bytes = c.bytes(sectionEnd - start.pos);
      const r = new Amqp10Reader(bytes);
      const section = r.read();
      if (r.at !== bytes.length || section.type !== "described") return null;
      if (body) continue;
      takeSection(out, code, section.value, start.pos);
      if (code === SECTION.header) header = bytes;
      else if (code === SECTION.properties) properties = bytes;
    }
  } catch {
    // Malformed (or a form the decoder refuses): the joined bytes get the decoder's own error.
    return null;
  }
  const body: Body = other !== null ? tail(c, other) : data.length === 1 ? data[0]! : data.length === 0 ? EMPTY : data;
  return convertSections(out, { header, rest: rest === null ? EMPTY : tail(c, rest), properties, body, encodedBody: other !== null });
}

/** The bytes from `from` to the end, as slices of the pieces (one Buffer when one slice). */
function tail(c: PieceCursor, from: { i: number; o: number; pos: number }): Body {
  const n = c.total - from.pos;
  if (n === 0) return EMPTY;
  c.back(from);
  const out: Buffer[] = [];
  c.slices(n, out);
  return out.length === 1 ? out[0]! : out;
}
