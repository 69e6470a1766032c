/**
 * Decodes AMQP 1.0 values (part 1, "Types", §1.6 encodings). Strict: an unknown constructor or a
 * length past the end is an Amqp10DecodeError, never a partial value.
 */
import type { Amqp10Value } from "./amqp10-value.js";

export class Amqp10DecodeError extends Error {}

/** A cursor over a Buffer. */
export class Amqp10Reader {
  constructor(readonly buf: Buffer, public at = 0) {}

  get done(): boolean {
    return this.at >= this.buf.length;
  }

  /** The next value. */
  read(): Amqp10Value {
    const code = this.u8();
    if (code === 0x00) {
      const descriptor = this.read();
      return { type: "described", descriptor, value: this.read() };
    }
    return this.readWith(code);
  }

  private readWith(code: number): Amqp10Value {
    switch (code) {
      case 0x40: return { type: "null" };
      case 0x41: return { type: "boolean", value: true };
      case 0x42: return { type: "boolean", value: false };
      case 0x56: return { type: "boolean", value: this.u8() !== 0 };
      case 0x50: return { type: "ubyte", value: this.u8() };
      case 0x51: return { type: "byte", value: this.take(1).readInt8(0) };
      case 0x60: return { type: "ushort", value: this.take(2).readUInt16BE(0) };
      case 0x61: return { type: "short", value: this.take(2).readInt16BE(0) };
      case 0x43: return { type: "uint", value: 0 };
      case 0x52: return { type: "uint", value: this.u8() };
      case 0x70: return { type: "uint", value: this.take(4).readUInt32BE(0) };
      case 0x54: return { type: "int", value: this.take(1).readInt8(0) };
      case 0x71: return { type: "int", value: this.take(4).readInt32BE(0) };
      case 0x44: return { type: "ulong", value: 0n };
      case 0x53: return { type: "ulong", value: BigInt(this.u8()) };
      case 0x80: return { type: "ulong", value: this.take(8).readBigUInt64BE(0) };
      case 0x55: return { type: "long", value: BigInt(this.take(1).readInt8(0)) };
      case 0x81: return { type: "long", value: this.take(8).readBigInt64BE(0) };
      case 0x72: return { type: "float", value: this.take(4).readFloatBE(0) };
      case 0x82: return { type: "double", value: this.take(8).readDoubleBE(0) };
      case 0x83: return { type: "timestamp", value: Number(this.take(8).readBigInt64BE(0)) };
      case 0x98: return { type: "uuid", value: this.take(16) };
      case 0xa0: return { type: "binary", value: this.take(this.u8()) };
      case 0xb0: return { type: "binary", value: this.take(this.u32()) };
      case 0xa1: return { type: "string", value: this.take(this.u8()).toString("utf8") };
      case 0xb1: return { type: "string", value: this.take(this.u32()).toString("utf8") };
      case 0xa3: return { type: "symbol", value: this.take(this.u8()).toString("ascii") };
      case 0xb3: return { type: "symbol", value: this.take(this.u32()).toString("ascii") };
      case 0x45: return { type: "list", value: [] };
      case 0xc0: return this.list(this.u8(), 1);
      case 0xd0: return this.list(this.u32(), 4);
      case 0xc1: return this.map(this.u8(), 1);
      case 0xd1: return this.map(this.u32(), 4);
      case 0xe0: return this.array(this.u8(), 1);
      case 0xf0: return this.array(this.u32(), 4);
      default: throw new Amqp10DecodeError(`unknown AMQP 1.0 constructor 0x${code.toString(16)} at byte ${this.at - 1}`);
    }
  }

  /** A list: `size` bytes follow (the count among them), then `count` values. */
  private list(size: number, width: 1 | 4): Amqp10Value {
    const end = this.end(size);
    const count = width === 1 ? this.u8() : this.u32();
    const value: Amqp10Value[] = [];
    for (let i = 0; i < count; i++) value.push(this.read());
    this.expectAt(end);
    return { type: "list", value };
  }

  private map(size: number, width: 1 | 4): Amqp10Value {
    const end = this.end(size);
    const count = width === 1 ? this.u8() : this.u32();
    if (count % 2 !== 0) throw new Amqp10DecodeError("a map with an odd number of items");
    const value: Array<readonly [Amqp10Value, Amqp10Value]> = [];
    for (let i = 0; i < count; i += 2) value.push([this.read(), this.read()]);
    this.expectAt(end);
    return { type: "map", value };
  }

  /** An array: one element constructor, then the elements' bodies. */
  private array(size: number, width: 1 | 4): Amqp10Value {
    const end = this.end(size);
    const count = width === 1 ? this.u8() : this.u32();
    const code = this.u8();
    if (code === 0x00) throw new Amqp10DecodeError("described array elements are not supported");
    const value: Amqp10Value[] = [];
    for (let i = 0; i < count; i++) value.push(this.readWith(code));
    this.expectAt(end);
    return { type: "array", value };
  }

  private end(size: number): number {
    const end = this.at + size;
    if (end > this.buf.length) throw new Amqp10DecodeError(`a compound of ${size} bytes runs past the end`);
    return end;
  }

  private expectAt(end: number): void {
    if (this.at !== end) throw new Amqp10DecodeError(`a compound's items end at byte ${this.at}, not at ${end}`);
  }

  private u8(): number {
    if (this.at >= this.buf.length) throw new Amqp10DecodeError("unexpected end of data");
    return this.buf[this.at++]!;
  }

  private u32(): number {
    return this.take(4).readUInt32BE(0);
  }

  private take(n: number): Buffer {
    if (this.at + n > this.buf.length) throw new Amqp10DecodeError(`${n} bytes wanted at byte ${this.at}, past the end`);
    const b = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }
}
