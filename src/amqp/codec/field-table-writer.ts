/**
 * Field tables, arrays and values written into an OutputBuffer (AMQP 0-9-1 §4.2.5.5 with
 * RabbitMQ's type tags, see field-table.ts for the reading side). The tag is chosen from the JS
 * value: integers that fit in 32 bits as I, other integers and bigints as l, other numbers as d,
 * strings as S, Buffers as x, Dates as T, Decimals as D, arrays as A, objects as F.
 */
import { Decimal, type FieldTable, type FieldValue } from "../../broker/values/field-value.js";

/** What writing a field table needs of its output (OutputBuffer; an interface keeps the import one-way). */
export interface FieldOutput {
  reserve32(): number;
  patch32(p: number): void;
  writeUInt8(v: number): void;
  writeInt32(v: number): void;
  writeUInt64(v: number): void;
  writeInt64(v: number | bigint): void;
  writeDouble(v: number): void;
  writeShortString(s: string): void;
  writeLongString(s: string | Buffer): void;
}

export function writeFieldTable(out: FieldOutput, t: FieldTable): void {
  const lenPos = out.reserve32();
  for (const key of Object.keys(t)) {
    const v = t[key];
    if (v === undefined) continue;
    out.writeShortString(key);
    writeFieldValue(out, v);
  }
  out.patch32(lenPos);
}

export function writeFieldArray(out: FieldOutput, a: readonly FieldValue[]): void {
  const lenPos = out.reserve32();
  for (const v of a) writeFieldValue(out, v);
  out.patch32(lenPos);
}

export function writeFieldValue(out: FieldOutput, v: FieldValue): void {
  if (v === null) return out.writeUInt8(0x56);
  switch (typeof v) {
    case "boolean":
      out.writeUInt8(0x74);
      return out.writeUInt8(v ? 1 : 0);
    case "number":
      if (Number.isInteger(v)) {
        if (v >= -2147483648 && v <= 2147483647) {
          out.writeUInt8(0x49);
          return out.writeInt32(v);
        }
        out.writeUInt8(0x6c);
        return out.writeInt64(v);
      }
      out.writeUInt8(0x64);
      return out.writeDouble(v);
    case "bigint":
      out.writeUInt8(0x6c);
      return out.writeInt64(v);
    case "string":
      out.writeUInt8(0x53);
      return out.writeLongString(v);
    default:
      break;
  }
  if (Buffer.isBuffer(v)) {
    out.writeUInt8(0x78);
    return out.writeLongString(v);
  }
  if (v instanceof Date) {
    out.writeUInt8(0x54);
    return out.writeUInt64(Math.floor(v.getTime() / 1000));
  }
  if (v instanceof Decimal) {
    out.writeUInt8(0x44);
    out.writeUInt8(v.scale);
    return out.writeInt32(v.value);
  }
  if (Array.isArray(v)) {
    out.writeUInt8(0x41);
    return writeFieldArray(out, v);
  }
  out.writeUInt8(0x46);
  writeFieldTable(out, v);
}
