/**
 * AMQP 1.0 performatives (part 2 §2.7) and SASL frames (part 5 §5.3.3) as described lists:
 * their descriptor codes, reading a frame body into (code, fields, payload offset), typed field
 * accessors that refuse a wrong type with amqp:decode-error, and encoding a performative frame.
 */
import { Amqp10Reader } from "../amqp10/amqp10-decoder.js";
import { encodeAmqp10 } from "../amqp10/amqp10-encoder.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { Amqp1Error, CONDITION } from "./amqp1-errors.js";
import { frameHeader } from "./amqp1-frames.js";

export const PERFORMATIVE = {
  open: 0x10,
  begin: 0x11,
  attach: 0x12,
  flow: 0x13,
  transfer: 0x14,
  disposition: 0x15,
  detach: 0x16,
  end: 0x17,
  close: 0x18,
  error: 0x1d,
  received: 0x23,
  accepted: 0x24,
  rejected: 0x25,
  released: 0x26,
  modified: 0x27,
  source: 0x28,
  target: 0x29,
  deleteOnClose: 0x2b,
  /** The transaction coordinator target (part 4 §4.5.1). */
  coordinator: 0x30,
  saslMechanisms: 0x40,
  saslInit: 0x41,
  saslOutcome: 0x44,
} as const;

/** A decoded performative: its descriptor code, its fields, and where a transfer's payload starts. */
export interface Performative {
  readonly code: number;
  readonly fields: readonly Amqp10Value[];
  readonly payloadAt: number;
}

/** The described list at the start of a frame body. */
export function readPerformative(body: Buffer): Performative {
  const r = new Amqp10Reader(body);
  const v = r.read();
  if (v.type !== "described") throw new Amqp1Error(CONDITION.decodeError, "a frame body that is not a described performative");
  const code = descriptorCode(v.descriptor);
  const fields = v.value.type === "list" ? v.value.value : null;
  if (fields === null) throw new Amqp1Error(CONDITION.decodeError, `performative 0x${code.toString(16)} is not a list`);
  return { code, fields, payloadAt: r.at };
}

/** A descriptor as its numeric code; symbolic descriptors ("amqp:open:list") are mapped by name. */
export function descriptorCode(d: Amqp10Value): number {
  if (d.type === "ulong") return Number(d.value & 0xffffffffn);
  if (d.type === "symbol") {
    const name = d.value.replace(/^amqp:/, "").replace(/:list$|:map$|:binary$/, "").replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    const code = (PERFORMATIVE as Record<string, number>)[name];
    if (code !== undefined) return code;
  }
  throw new Amqp1Error(CONDITION.decodeError, "an unknown descriptor");
}

const wrongType = (name: string, v: Amqp10Value): Amqp1Error => new Amqp1Error(CONDITION.decodeError, `field ${name}: unexpected type ${v.type}`);

/** Field `i` as an unsigned number (uint, ushort, ubyte, ulong within 2^53); `dflt` when null or absent. */
export function uintField(f: readonly Amqp10Value[], i: number, name: string, dflt: number): number {
  const v = f[i];
  if (v === undefined || v.type === "null") return dflt;
  if (v.type === "uint" || v.type === "ushort" || v.type === "ubyte") return v.value;
  if (v.type === "ulong") return Number(v.value);
  throw wrongType(name, v);
}

/** Field `i` as a number or null when absent (a required field's absence is the caller's error). */
export function optionalUint(f: readonly Amqp10Value[], i: number, name: string): number | null {
  const v = f[i];
  if (v === undefined || v.type === "null") return null;
  return uintField(f, i, name, 0);
}

export function boolField(f: readonly Amqp10Value[], i: number, name: string, dflt: boolean): boolean {
  const v = f[i];
  if (v === undefined || v.type === "null") return dflt;
  if (v.type === "boolean") return v.value;
  throw wrongType(name, v);
}

export function textField(f: readonly Amqp10Value[], i: number, name: string): string | null {
  const v = f[i];
  if (v === undefined || v.type === "null") return null;
  if (v.type === "string" || v.type === "symbol") return v.value;
  throw wrongType(name, v);
}

export function binaryField(f: readonly Amqp10Value[], i: number, name: string): Buffer | null {
  const v = f[i];
  if (v === undefined || v.type === "null") return null;
  if (v.type === "binary") return v.value;
  throw wrongType(name, v);
}

/** A described composite field (source, target, delivery state, error): its code and fields; null when absent. */
export function compositeField(f: readonly Amqp10Value[], i: number, name: string): { code: number; fields: readonly Amqp10Value[] } | null {
  const v = f[i];
  if (v === undefined || v.type === "null") return null;
  if (v.type !== "described") throw wrongType(name, v);
  const fields = v.value.type === "list" ? v.value.value : [];
  return { code: descriptorCode(v.descriptor), fields };
}

/** Whether a symbol (or array of symbols) field holds `wanted`. */
export function hasSymbol(f: readonly Amqp10Value[], i: number, wanted: string): boolean {
  const v = f[i];
  if (v === undefined) return false;
  if (v.type === "symbol") return v.value === wanted;
  if (v.type === "array") return v.value.some((x) => x.type === "symbol" && x.value === wanted);
  return false;
}

/** A described list value. */
export function described(code: number, fields: readonly Amqp10Value[]): Amqp10Value {
  // Trailing nulls may be left out (part 1 §1.4: a list's absent trailing fields are null).
  let n = fields.length;
  while (n > 0 && fields[n - 1]!.type === "null") n--;
  return { type: "described", descriptor: { type: "ulong", value: BigInt(code) }, value: { type: "list", value: fields.slice(0, n) } };
}

/** A whole frame: header and the encoded performative (and nothing after it). */
export function performativeFrame(type: number, channel: number, code: number, fields: readonly Amqp10Value[]): Buffer {
  const body = encodeAmqp10(described(code, fields));
  return Buffer.concat([frameHeader(body.length, type, channel), body]);
}
