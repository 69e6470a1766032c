/**
 * Encodes AMQP 1.0 values (part 1, "Types", §1.6 encodings), choosing the shortest encoding each
 * value has (small ints and lengths in one byte, empty lists as list0). Pure: values in, bytes out.
 */
import type { Amqp10Value } from "./amqp10-value.js";

/** A growable output buffer. */
class Out {
  buf = Buffer.allocUnsafe(256);
  at = 0;

  need(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  u8(v: number): void {
    this.need(1);
    this.buf[this.at++] = v;
  }

  bytes(b: Buffer): void {
    this.need(b.length);
    b.copy(this.buf, this.at);
    this.at += b.length;
  }
}

export function encodeAmqp10(v: Amqp10Value): Buffer {
  const out = new Out();
  write(out, v);
  return out.buf.subarray(0, out.at);
}

function write(o: Out, v: Amqp10Value): void {
  switch (v.type) {
    case "null":
      return o.u8(0x40);
    case "boolean":
      return o.u8(v.value ? 0x41 : 0x42);
    case "ubyte":
      o.u8(0x50);
      return o.u8(v.value & 0xff);
    case "byte":
      o.need(2);
      o.buf[o.at++] = 0x51;
      o.buf.writeInt8(v.value, o.at++);
      return;
    case "ushort":
      return fixed(o, 0x60, 2, (b, at) => b.writeUInt16BE(v.value, at));
    case "short":
      return fixed(o, 0x61, 2, (b, at) => b.writeInt16BE(v.value, at));
    case "uint":
      if (v.value === 0) return o.u8(0x43);
      if (v.value < 256) return fixed(o, 0x52, 1, (b, at) => b.writeUInt8(v.value, at));
      return fixed(o, 0x70, 4, (b, at) => b.writeUInt32BE(v.value, at));
    case "int":
      if (v.value >= -128 && v.value <= 127) return fixed(o, 0x54, 1, (b, at) => b.writeInt8(v.value, at));
      return fixed(o, 0x71, 4, (b, at) => b.writeInt32BE(v.value, at));
    case "ulong":
      if (v.value === 0n) return o.u8(0x44);
      if (v.value < 256n) return fixed(o, 0x53, 1, (b, at) => b.writeUInt8(Number(v.value), at));
      return fixed(o, 0x80, 8, (b, at) => b.writeBigUInt64BE(v.value, at));
    case "long":
      if (v.value >= -128n && v.value <= 127n) return fixed(o, 0x55, 1, (b, at) => b.writeInt8(Number(v.value), at));
      return fixed(o, 0x81, 8, (b, at) => b.writeBigInt64BE(v.value, at));
    case "float":
      return fixed(o, 0x72, 4, (b, at) => b.writeFloatBE(v.value, at));
    case "double":
      return fixed(o, 0x82, 8, (b, at) => b.writeDoubleBE(v.value, at));
    case "timestamp":
      return fixed(o, 0x83, 8, (b, at) => b.writeBigInt64BE(BigInt(Math.trunc(v.value)), at));
    case "uuid":
      o.u8(0x98);
      return o.bytes(v.value.subarray(0, 16));
    case "binary":
      return variable(o, 0xa0, 0xb0, v.value);
    case "string":
      return variable(o, 0xa1, 0xb1, Buffer.from(v.value, "utf8"));
    case "symbol":
      return variable(o, 0xa3, 0xb3, Buffer.from(v.value, "ascii"));
    case "list":
      if (v.value.length === 0) return o.u8(0x45);
      return writeList(o, v.value, false);
    case "map":
      return writeMap(o, v.value, false);
    case "array":
      return writeArray(o, v.value);
    case "described":
      o.u8(0x00);
      write(o, v.descriptor);
      return write(o, v.value);
  }
}

function fixed(o: Out, code: number, width: number, put: (b: Buffer, at: number) => void): void {
  o.need(1 + width);
  o.buf[o.at++] = code;
  put(o.buf, o.at);
  o.at += width;
}

function variable(o: Out, short: number, long: number, bytes: Buffer): void {
  if (bytes.length < 256) {
    o.u8(short);
    o.u8(bytes.length);
  } else {
    fixed(o, long, 4, (b, at) => b.writeUInt32BE(bytes.length, at));
  }
  o.bytes(bytes);
}

function writeList(o: Out, items: readonly Amqp10Value[], forceLong: boolean): void {
  compound(o, 0xc0, 0xd0, items.length, (inner) => items.forEach((x) => write(inner, x)), forceLong);
}

function writeMap(o: Out, entries: ReadonlyArray<readonly [Amqp10Value, Amqp10Value]>, forceLong: boolean): void {
  const items = (inner: Out): void =>
    entries.forEach(([k, x]) => {
      write(inner, k);
      write(inner, x);
    });
  compound(o, 0xc1, 0xd1, entries.length * 2, items, forceLong);
}

/** A list or map: size (bytes after the size field) and count, then the items; `forceLong`: the 32-bit form whatever the size. */
function compound(o: Out, short: number, long: number, count: number, items: (inner: Out) => void, forceLong = false): void {
  const inner = new Out();
  items(inner);
  const body = inner.buf.subarray(0, inner.at);
  if (!forceLong && body.length + 1 < 256 && count < 256) {
    o.u8(short);
    o.u8(body.length + 1);
    o.u8(count);
  } else {
    fixed(o, long, 8, (b, at) => {
      b.writeUInt32BE(body.length + 4, at);
      b.writeUInt32BE(count, at + 4);
    });
  }
  o.bytes(body);
}

/** An array of one element type (array32 with the element constructor once). */
function writeArray(o: Out, items: readonly Amqp10Value[]): void {
  const inner = new Out();
  if (items.length === 0) {
    inner.u8(0x40);
  } else {
    // Each element is written with the first's constructor: encode each, keep the constructor
    // byte once. Only fixed-constructor types are accepted (strings and symbols in their 32-bit form).
    const first = encodeElement(items[0]!);
    inner.u8(first[0]!);
    for (const item of items) inner.bytes(encodeElement(item).subarray(1));
  }
  const body = inner.buf.subarray(0, inner.at);
  fixed(o, 0xf0, 8, (b, at) => {
    b.writeUInt32BE(body.length + 4, at);
    b.writeUInt32BE(items.length, at + 4);
  });
  o.bytes(body);
}

/** An array element in the one encoding its type always takes inside an array. */
function encodeElement(v: Amqp10Value): Buffer {
  const o = new Out();
  switch (v.type) {
    case "string":
    case "symbol": {
      const bytes = Buffer.from(v.value, v.type === "string" ? "utf8" : "ascii");
      fixed(o, v.type === "string" ? 0xb1 : 0xb3, 4, (b, at) => b.writeUInt32BE(bytes.length, at));
      o.bytes(bytes);
      break;
    }
    case "int":
      fixed(o, 0x71, 4, (b, at) => b.writeInt32BE(v.value, at));
      break;
    case "long":
      fixed(o, 0x81, 8, (b, at) => b.writeBigInt64BE(v.value, at));
      break;
    case "ulong":
      fixed(o, 0x80, 8, (b, at) => b.writeBigUInt64BE(v.value, at));
      break;
    case "uint":
      fixed(o, 0x70, 4, (b, at) => b.writeUInt32BE(v.value, at));
      break;
    case "boolean":
      fixed(o, 0x56, 1, (b, at) => b.writeUInt8(v.value ? 1 : 0, at));
      break;
    // Lists and maps in their 32-bit form: every element then shares the first one's constructor.
    case "list":
      writeList(o, v.value, true);
      break;
    case "map":
      writeMap(o, v.value, true);
      break;
    default:
      write(o, v);
  }
  return o.buf.subarray(0, o.at);
}
