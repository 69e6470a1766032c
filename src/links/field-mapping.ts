/**
 * Message properties between the domain's values and @cloudamqp/amqp-client's, for remote
 * endpoints: timestamps are seconds in the domain and Dates in the client; byte arrays are
 * Buffers in the domain; decimals (rare in headers) travel as numbers, the client having no type.
 */
import type { AMQPProperties, Field } from "@cloudamqp/amqp-client";
import { Decimal, type FieldTable, type FieldValue } from "../broker/values/field-value.js";
import type { MessageProperties } from "../broker/values/message-properties.js";

function toClientValue(v: FieldValue): Field {
  if (v instanceof Decimal) return v.value / 10 ** v.scale;
  if (Array.isArray(v)) return v.map(toClientValue);
  if (v !== null && typeof v === "object" && !Buffer.isBuffer(v) && !(v instanceof Date)) return toClientTable(v as FieldTable);
  return v;
}

function toClientTable(t: FieldTable): Record<string, Field> {
  const out: Record<string, Field> = {};
  for (const k of Object.keys(t)) out[k] = toClientValue(t[k]!);
  return out;
}

function fromClientValue(v: unknown): FieldValue {
  if (v === undefined || v === null) return null;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  if (v instanceof Date) return v;
  if (Array.isArray(v)) return v.map(fromClientValue);
  if (typeof v === "object") return fromClientTable(v as Record<string, unknown>);
  return v as FieldValue;
}

function fromClientTable(t: Record<string, unknown>): FieldTable {
  const out: FieldTable = {};
  for (const k of Object.keys(t)) out[k] = fromClientValue(t[k]);
  return out;
}

export function toClientProperties(p: MessageProperties): AMQPProperties {
  const { timestamp, headers, clusterId: _clusterId, ...rest } = p;
  const out: AMQPProperties = { ...rest };
  if (timestamp !== undefined) out.timestamp = new Date(timestamp * 1000);
  if (headers !== undefined) out.headers = toClientTable(headers);
  return out;
}

export function fromClientProperties(p: AMQPProperties): MessageProperties {
  const { timestamp, headers, ...rest } = p;
  const out: MessageProperties = {};
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  if (timestamp !== undefined) out.timestamp = Math.floor(timestamp.getTime() / 1000);
  if (headers !== undefined) out.headers = fromClientTable(headers);
  return out;
}
