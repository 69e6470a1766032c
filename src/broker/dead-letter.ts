/**
 * Dead-lettering as RabbitMQ does it (rabbit_dead_letter): the message that died in a queue is
 * republished to the queue's dead-letter exchange with its x-death history updated, and routed
 * with the dead-letter routing key or, without one, its original routing keys.
 *
 * x-death is an array of tables, newest first, one per (queue, reason): count (long), reason,
 * queue, time (timestamp, seconds), exchange, routing-keys (array), and original-expiration when
 * the message had an expiration (the expiration is removed so it cannot expire again).
 * A repeat death for the same (queue, reason) increments that table's count and moves it to
 * the front. x-first-death-reason/-queue/-exchange are set on the first death only,
 * x-last-death-reason/-queue/-exchange on every death.
 */
import type { FieldTable, FieldValue } from "./values/field-value.js";
import type { Message } from "./message.js";
import { rewriteMessage } from "./message-headers.js";

export type DeathReason = "rejected" | "expired" | "maxlen" | "delivery_limit";

export interface DeadLetterTarget {
  readonly exchange: string;
  /** x-dead-letter-routing-key, or null to keep the message's own routing keys. */
  readonly routingKey: string | null;
}

/** The routing keys a message was published with: its routing key and its CC header (BCC is never kept). */
function routingKeysOf(message: Message): string[] {
  const keys = [message.routingKey];
  const cc = message.properties.headers?.["CC"];
  if (Array.isArray(cc)) for (const k of cc) if (typeof k === "string") keys.push(k);
  return keys;
}

const sameDeath = (t: FieldValue, queue: string, reason: DeathReason): boolean =>
  t !== null && typeof t === "object" && !Array.isArray(t) && !Buffer.isBuffer(t) && !(t instanceof Date) && (t as FieldTable)["queue"] === queue && (t as FieldTable)["reason"] === reason;

/** Sorted by field name, as RabbitMQ stores each x-death table (rabbit_misc:sort_field_table). */
function sortedTable(t: FieldTable): FieldTable {
  const out: FieldTable = {};
  for (const k of Object.keys(t).sort()) out[k] = t[k]!;
  return out;
}

/** The message as it leaves `queue` for the dead-letter exchange. */
export function deadLetteredMessage(message: Message, queue: string, reason: DeathReason, now: number, target: DeadLetterTarget): Message {
  const props = message.properties;
  const headers: FieldTable = { ...props.headers };
  const previous = headers["x-death"];
  const deaths: FieldValue[] = Array.isArray(previous) ? previous : [];
  const i = deaths.findIndex((t) => sameDeath(t, queue, reason));
  let entry: FieldTable;
  if (i >= 0) {
    const old = deaths[i] as FieldTable;
    const count = old["count"];
    entry = { ...old, count: typeof count === "bigint" ? count + 1n : BigInt(typeof count === "number" ? count + 1 : 1) };
  } else {
    entry = { count: 1n, reason, queue, time: new Date(Math.floor(now / 1000) * 1000), exchange: message.exchange, "routing-keys": routingKeysOf(message) };
    if (props.expiration !== undefined) entry["original-expiration"] = props.expiration;
  }
  headers["x-death"] = [sortedTable(entry), ...deaths.filter((_, j) => j !== i)];
  if (deaths.length === 0) {
    headers["x-first-death-reason"] = reason;
    headers["x-first-death-queue"] = queue;
    headers["x-first-death-exchange"] = message.exchange;
  }
  // RabbitMQ 3.13 also names the latest death.
  headers["x-last-death-reason"] = reason;
  headers["x-last-death-queue"] = queue;
  headers["x-last-death-exchange"] = message.exchange;
  // A given dead-letter routing key replaces the routing keys, so CC goes (RabbitMQ).
  if (target.routingKey !== null) delete headers["CC"];
  const { expiration: _dropped, ...rest } = props;
  return rewriteMessage(message, { ...rest, headers }, target.exchange, target.routingKey ?? message.routingKey);
}

/**
 * RabbitMQ's cycle rule (rabbit_dead_letter:is_cycle): a dead-lettered message that would reach
 * `queue` again is dropped when its x-death history already shows `queue` and no death between
 * (and including) that one was a rejection, i.e. the loop is fully automatic. A rejected death
 * never counts as a cycle.
 */
export function isDeadLetterCycle(message: Message, queue: string, reason: DeathReason): boolean {
  if (reason === "rejected") return false;
  const deaths = message.properties.headers?.["x-death"];
  if (!Array.isArray(deaths)) return false;
  for (const d of deaths) {
    const t = d as FieldTable;
    if (t["reason"] === "rejected") return false;
    if (t["queue"] === queue) return true;
  }
  return false;
}
