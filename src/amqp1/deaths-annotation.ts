/**
 * The x-opt-deaths message annotation RabbitMQ 4 gives AMQP 1.0 consumers of a dead-lettered
 * message (mc_amqp's encode_deaths), made from the 0-9-1 x-death history the domain keeps
 * (dead-letter.ts): an array of maps, newest first, with symbol keys — queue, reason (a symbol),
 * count (ulong), first-time and last-time (timestamps), exchange, routing-keys (an array of
 * strings) and ttl (uint) when the message had an expiration.
 *
 * The history keeps one time per (queue, reason), the first death's; it stands for last-time as
 * well, so a repeated death's last-time is its first (RabbitMQ 4 records the latest).
 */
import type { FieldTable, FieldValue } from "../broker/values/field-value.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { str, sym } from "../amqp10/amqp10-value.js";

const isTable = (v: FieldValue): v is FieldTable => v !== null && typeof v === "object" && !Array.isArray(v) && !Buffer.isBuffer(v) && !(v instanceof Date) && Object.getPrototypeOf(v) === Object.prototype;

/** x-death's tables as x-opt-deaths' maps; null when the header is not a list of tables. */
export function deathsAnnotation(xDeath: FieldValue): Amqp10Value | null {
  if (!Array.isArray(xDeath) || !xDeath.every(isTable)) return null;
  return { type: "array", value: xDeath.map((d) => deathMap(d as FieldTable)) };
}

function deathMap(d: FieldTable): Amqp10Value {
  const entries: Array<readonly [Amqp10Value, Amqp10Value]> = [];
  const text = (k: string): string => (typeof d[k] === "string" ? (d[k] as string) : "");
  const count = d["count"];
  const time = d["time"] instanceof Date ? d["time"].getTime() : 0;
  const ttl = Number(d["original-expiration"]);
  if (d["original-expiration"] !== undefined && Number.isInteger(ttl) && ttl >= 0 && ttl <= 0xffffffff) entries.push([sym("ttl"), { type: "uint", value: ttl }]);
  entries.push(
    [sym("queue"), str(text("queue"))],
    [sym("reason"), sym(text("reason"))],
    [sym("count"), { type: "ulong", value: typeof count === "bigint" ? count : BigInt(typeof count === "number" ? count : 1) }],
    [sym("first-time"), { type: "timestamp", value: time }],
    [sym("last-time"), { type: "timestamp", value: time }],
    [sym("exchange"), str(text("exchange"))],
    [sym("routing-keys"), { type: "array", value: (Array.isArray(d["routing-keys"]) ? d["routing-keys"] : []).filter((k): k is string => typeof k === "string").map(str) }],
  );
  return { type: "map", value: entries };
}
