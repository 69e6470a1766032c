/**
 * Field values: the typed values a message's headers, a queue's or exchange's arguments and a
 * binding's arguments hold. They are the domain's vocabulary, shared by every protocol: AMQP 0-9-1
 * encodes them as field tables (src/amqp/codec/field-table.ts), MQTT 5 user properties and stream
 * application properties map onto them, the HTTP API carries them as JSON.
 */

/** A decimal number as AMQP carries it: value × 10^-scale. */
export class Decimal {
  constructor(readonly scale: number, readonly value: number) {}
}

export type FieldValue = boolean | number | bigint | string | Buffer | Date | Decimal | null | FieldValue[] | FieldTable;
export interface FieldTable {
  [key: string]: FieldValue;
}

/** RabbitMQ's names for field types, as used in its error texts (`{unacceptable_type,longstr}`). */
export function fieldTypeName(v: FieldValue): string {
  if (v === null) return "void";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? (v >= -2147483648 && v <= 2147483647 ? "signedint" : "long") : "double";
  if (typeof v === "bigint") return "long";
  if (typeof v === "string") return "longstr";
  if (Buffer.isBuffer(v)) return "binary";
  if (v instanceof Date) return "timestamp";
  if (v instanceof Decimal) return "decimal";
  if (Array.isArray(v)) return "array";
  return "table";
}
