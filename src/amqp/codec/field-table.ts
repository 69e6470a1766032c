/**
 * AMQP field tables and arrays with RabbitMQ's type tags, which differ from the 0-9-1 PDF
 * (RabbitMQ's errata): t bool, b int8, B uint8, s int16, u uint16, I int32, i uint32, l int64,
 * f float, d double, D decimal, S longstr, A array, T timestamp, F table, V void, x bytes.
 * Decoding maps each to a plain JS value; encoding picks the tag from the JS value.
 */
import { Decimal, type FieldTable, type FieldValue } from "../../broker/values/field-value.js";
import { ByteReader } from "./byte-reader.js";
import { CodecError } from "./codec-error.js";

/** Tables nest; a hostile peer must not be able to exhaust the stack. */
const MAX_DEPTH = 64;

export function readValue(r: ByteReader, depth: number): FieldValue {
  const tag = r.u8();
  switch (tag) {
    case 0x74: return r.u8() !== 0; // t
    case 0x62: return r.i8(); // b
    case 0x42: return r.u8(); // B
    case 0x73: return r.i16(); // s
    case 0x75: return r.u16(); // u
    case 0x49: return r.i32(); // I
    case 0x69: return r.u32(); // i
    case 0x6c: return r.i64(); // l
    case 0x66: return r.f32(); // f
    case 0x64: return r.f64(); // d
    case 0x44: { const scale = r.u8(); return new Decimal(scale, r.i32()); } // D
    case 0x53: return r.longstr(); // S
    case 0x41: return readArray(r, depth + 1); // A
    case 0x54: return new Date(r.u64() * 1000); // T
    case 0x46: return readTable(r, depth + 1); // F
    case 0x56: return null; // V
    case 0x78: return r.longstrBytes(); // x (a copy)
    default:
      throw new CodecError(`unknown field type '${String.fromCharCode(tag)}' (0x${tag.toString(16)})`);
  }
}

export function readTable(r: ByteReader, depth = 0): FieldTable {
  if (depth > MAX_DEPTH) throw new CodecError("field table nested too deeply");
  const len = r.u32();
  const end = r.pos + len;
  if (end > r.end) throw new CodecError(`truncated field table: ${len} bytes declared`);
  const sub = new ByteReader(r.buf, r.pos, end);
  const t = readTableBody(sub, depth);
  r.pos = end;
  return t;
}

function readTableBody(r: ByteReader, depth: number): FieldTable {
  const t: FieldTable = {};
  while (r.pos < r.end) {
    const key = r.shortstr();
    t[key] = readValue(r, depth);
  }
  return t;
}

function readArray(r: ByteReader, depth: number): FieldValue[] {
  if (depth > MAX_DEPTH) throw new CodecError("field array nested too deeply");
  const len = r.u32();
  const end = r.pos + len;
  if (end > r.end) throw new CodecError(`truncated field array: ${len} bytes declared`);
  const sub = new ByteReader(r.buf, r.pos, end);
  const a: FieldValue[] = [];
  while (sub.pos < sub.end) a.push(readValue(sub, depth));
  r.pos = end;
  return a;
}

export function decodeTable(buf: Buffer, offset: number): [FieldTable, number] {
  const r = new ByteReader(buf, offset);
  const t = readTable(r);
  return [t, r.pos];
}

/** A table body without its length prefix (how the SASL AMQPLAIN response is sent). */
export function decodeTableContents(buf: Buffer): FieldTable {
  return readTableBody(new ByteReader(buf), 0);
}
