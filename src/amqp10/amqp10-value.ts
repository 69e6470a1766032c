/**
 * AMQP 1.0 typed values (OASIS AMQP 1.0, part 1 "Types"): the subset a message's sections use.
 * A value keeps its AMQP type, since the same number may be a ubyte, an int or a long on the
 * wire and the mapping to AMQP 0-9-1 (amqp091-mapping.ts) depends on it.
 */
export type Amqp10Value =
  | { readonly type: "null" }
  | { readonly type: "boolean"; readonly value: boolean }
  | { readonly type: "ubyte" | "ushort" | "uint" | "byte" | "short" | "int" | "float" | "double"; readonly value: number }
  | { readonly type: "ulong" | "long"; readonly value: bigint }
  | { readonly type: "timestamp"; readonly value: number }
  | { readonly type: "uuid" | "binary"; readonly value: Buffer }
  | { readonly type: "string" | "symbol"; readonly value: string }
  | { readonly type: "list"; readonly value: readonly Amqp10Value[] }
  | { readonly type: "map"; readonly value: ReadonlyArray<readonly [Amqp10Value, Amqp10Value]> }
  | { readonly type: "array"; readonly value: readonly Amqp10Value[] }
  | { readonly type: "described"; readonly descriptor: Amqp10Value; readonly value: Amqp10Value };

export const NULL: Amqp10Value = { type: "null" };
export const str = (value: string): Amqp10Value => ({ type: "string", value });
export const sym = (value: string): Amqp10Value => ({ type: "symbol", value });
export const ubyte = (value: number): Amqp10Value => ({ type: "ubyte", value });
export const ulong = (value: number | bigint): Amqp10Value => ({ type: "ulong", value: BigInt(value) });

/** The string of a string or symbol value; undefined for anything else. */
export function textOf(v: Amqp10Value | undefined): string | undefined {
  return v !== undefined && (v.type === "string" || v.type === "symbol") ? v.value : undefined;
}
