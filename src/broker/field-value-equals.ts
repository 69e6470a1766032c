/** Deep equality of decoded field-table values (headers matching, argument equivalence). */
import type { FieldValue } from "./values/field-value.js";

export function fieldValueEquals(a: FieldValue | undefined, b: FieldValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a === "number" || typeof a === "bigint") {
    // 10 and 10n are the same number whatever width the client encoded it with.
    return (typeof b === "number" || typeof b === "bigint") && BigInt.asIntN(64, toBig(a)) === BigInt.asIntN(64, toBig(b)) && Number(a) === Number(b);
  }
  if (Buffer.isBuffer(a)) return Buffer.isBuffer(b) && a.equals(b);
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => fieldValueEquals(v, b[i]));
  if (typeof a === "object" && typeof b === "object" && !Array.isArray(b) && !Buffer.isBuffer(b) && !(b instanceof Date)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => fieldValueEquals((a as Record<string, FieldValue>)[k], (b as Record<string, FieldValue>)[k]));
  }
  return false;
}

function toBig(v: number | bigint): bigint {
  return typeof v === "bigint" ? v : Number.isInteger(v) ? BigInt(v) : 0n;
}
