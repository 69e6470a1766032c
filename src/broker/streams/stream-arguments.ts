/**
 * What a stream's arguments and policies mean (RabbitMQ's stream queue type): retention by
 * `x-max-length-bytes` / `max-length-bytes` and `x-max-age` / `max-age` (units Y, M, D, h, m, s:
 * "7D", "12h"), segment size `x-stream-max-segment-size-bytes` (default 500 MB), and where a
 * consumer starts, `x-stream-offset`: "first", "last", "next" (the default), an offset, a
 * timestamp, or an interval back from now ("30m").
 */
import { BrokerError } from "../../errors/broker-error.js";
import type { FieldTable, FieldValue } from "../values/field-value.js";
import type { StreamFilter, StreamRetention } from "./stream-log.js";

export const DEFAULT_SEGMENT_BYTES = 500_000_000;

const UNIT_MS: Record<string, number> = { Y: 365 * 86_400_000, M: 30 * 86_400_000, D: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/** "7D", "12h", "30m" → ms; null when the text is not such an age. */
export function parseAge(text: string): number | null {
  const unit = UNIT_MS[text.slice(-1)];
  const n = Number(text.slice(0, -1));
  if (unit === undefined || text.length < 2 || !Number.isInteger(n) || n < 0) return null;
  return n * unit;
}

/** Where a consumer starts reading. */
export type StreamStart = { readonly kind: "first" | "last" | "next" } | { readonly kind: "offset"; readonly offset: number } | { readonly kind: "timestamp"; readonly ms: number };

/** x-stream-offset → where to start; a value of no known form is PRECONDITION_FAILED. */
export function parseStreamOffset(v: FieldValue | undefined, now: number): StreamStart {
  if (v === undefined) return { kind: "next" };
  if (v === "first" || v === "last" || v === "next") return { kind: v };
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return { kind: "offset", offset: v };
  if (typeof v === "bigint" && v >= 0n) return { kind: "offset", offset: Number(v) };
  if (v instanceof Date) return { kind: "timestamp", ms: v.getTime() };
  if (typeof v === "string") {
    const age = parseAge(v);
    if (age !== null) return { kind: "timestamp", ms: now - age };
  }
  throw new BrokerError("preconditionFailed", `invalid x-stream-offset value ${typeof v === "string" ? `'${v}'` : String(v)}: expected first, last, next, an offset, a timestamp or an interval such as 30m`);
}

/** The retention in force: the queue's argument wins over the policy's, as RabbitMQ resolves it. */
export function streamRetention(args: FieldTable, policy: Readonly<Record<string, unknown>>): StreamRetention {
  const bytes = numberOf(args["x-max-length-bytes"]) ?? numberOf(policy["max-length-bytes"]) ?? 0;
  const ageText = typeof args["x-max-age"] === "string" ? args["x-max-age"] : typeof policy["max-age"] === "string" ? policy["max-age"] : null;
  const age = ageText === null ? 0 : (parseAge(ageText) ?? 0);
  return { maxBytes: bytes, maxAgeMs: age };
}

/** Bytes of each chunk's filter: `x-stream-filter-size-bytes` (16..255), else osiris's 16. */
export function filterBytesOf(args: FieldTable): number {
  return numberOf(args["x-stream-filter-size-bytes"]) ?? 16;
}

export function segmentBytesOf(args: FieldTable, policy: Readonly<Record<string, unknown>>): number {
  return numberOf(args["x-stream-max-segment-size-bytes"]) ?? numberOf(policy["stream-max-segment-size-bytes"]) ?? DEFAULT_SEGMENT_BYTES;
}

function numberOf(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v;
  if (typeof v === "bigint" && v >= 0n) return Number(v);
  return undefined;
}

/**
 * `x-stream-filter` (a string or an array of strings) and `x-stream-match-unfiltered` (a
 * boolean), the AMQP 0-9-1 consumer's filter; null when it asks for none. Values of another type
 * are PRECONDITION_FAILED.
 */
export function parseStreamFilter(args: FieldTable | undefined): StreamFilter | null {
  const v = args?.["x-stream-filter"];
  if (v === undefined) return null;
  const values = typeof v === "string" ? [v] : Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : null;
  if (values === null || values.length === 0) throw new BrokerError("preconditionFailed", "invalid x-stream-filter value: expected a string or an array of strings");
  const mu = args?.["x-stream-match-unfiltered"];
  if (mu !== undefined && typeof mu !== "boolean") throw new BrokerError("preconditionFailed", "invalid x-stream-match-unfiltered value: expected a boolean");
  return { values, matchUnfiltered: mu === true };
}
