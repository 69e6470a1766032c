/**
 * Validation of queue declare arguments, with RabbitMQ's texts
 * ("invalid arg 'x-message-ttl' for queue 'q' in vhost '/': {value_negative,-1}"), and the list
 * of arguments that take part in the equivalence check of a redeclare.
 */
import type { FieldTable, FieldValue } from "../values/field-value.js";
import { fieldTypeName } from "../values/field-value.js";
import { BrokerError, describeResource } from "../../errors/broker-error.js";
import { parseAge } from "../streams/stream-arguments.js";

type Check = (v: FieldValue) => string | null;

const isInt = (v: FieldValue): v is number | bigint => (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint";

/** RabbitMQ 3.10's text for a non-integer where an integer argument belongs (quotes included). */
const notInt = (v: FieldValue): string => `"expected integer, got ${fieldTypeName(v)}"`;
const nonNegativeInt: Check = (v) => (!isInt(v) ? notInt(v) : v < 0 ? `{value_negative,${v}}` : null);
const positiveInt: Check = (v) => (!isInt(v) ? notInt(v) : v < 0 ? `{value_negative,${v}}` : Number(v) === 0 ? `{value_zero,0}` : null);
const string: Check = (v) => (typeof v === "string" ? null : `{unacceptable_type,${fieldTypeName(v)}}`);
const bool: Check = (v) => (typeof v === "boolean" ? null : `{unacceptable_type,${fieldTypeName(v)}}`);
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v !== "string" ? `{unacceptable_type,${fieldTypeName(v)}}` : values.includes(v) ? null : `{invalid_value,<<"${v}">>}`;
/** A closed set whose refusal RabbitMQ words itself: "unsupported queue type 'x'", invalid_overflow. */
const namedOneOf =
  (refusal: (v: string) => string, ...values: string[]): Check =>
  (v) =>
    typeof v !== "string" ? `{unacceptable_type,${fieldTypeName(v)}}` : values.includes(v) ? null : refusal(v);
const priority: Check = (v) =>
  !isInt(v) ? notInt(v) : v < 0 ? `{value_negative,${v}}` : Number(v) > 255 ? `{max_value_exceeded,${v}}` : null;

/** RabbitMQ's declare_args(): validated on declare and compared on redeclare. */
export const DECLARE_ARGS: ReadonlyMap<string, Check> = new Map([
  ["x-expires", positiveInt],
  ["x-message-ttl", nonNegativeInt],
  ["x-dead-letter-exchange", string],
  ["x-dead-letter-routing-key", string],
  ["x-max-length", nonNegativeInt],
  ["x-max-length-bytes", nonNegativeInt],
  ["x-max-priority", priority],
  ["x-overflow", namedOneOf(() => "invalid_overflow", "drop-head", "reject-publish", "reject-publish-dlx")],
  ["x-queue-mode", namedOneOf((v) => `"unsupported queue mode '${v}'"`, "default", "lazy")],
  ["x-queue-type", namedOneOf((v) => `"unsupported queue type '${v}'"`, "classic", "quorum", "stream")],
  ["x-single-active-consumer", bool],
  ["x-delivery-limit", nonNegativeInt],
  ["x-consumer-timeout", positiveInt],
  ["x-queue-master-locator", oneOf("client-local", "min-masters", "random")],
  // "random" and "least-leaders": older names RabbitMQ 3.10 still accepts (and clients send: issue 48).
  ["x-queue-leader-locator", oneOf("client-local", "balanced", "random", "least-leaders")],
  // Streams (stream-arguments.ts): an age such as "7D", and the segment size.
  ["x-max-age", (v) => (typeof v !== "string" ? `{unacceptable_type,${fieldTypeName(v)}}` : parseAge(v) === null ? `{invalid_max_age,<<"${v}">>}` : null)],
  ["x-stream-max-segment-size-bytes", positiveInt],
  // RabbitMQ 3.13: the chunk filter's size (16..255, checked with the stream's other rules).
  ["x-stream-filter-size-bytes", nonNegativeInt],
]);

export function validateQueueArguments(args: FieldTable, name: string, vhost: string): void {
  for (const [key, check] of DECLARE_ARGS) {
    if (!Object.hasOwn(args, key)) continue;
    const problem = check(args[key]!);
    if (problem) throw new BrokerError("preconditionFailed", `invalid arg '${key}' for ${describeResource("queue", name, vhost)}: ${problem}`);
  }
  if (Object.hasOwn(args, "x-dead-letter-routing-key") && !Object.hasOwn(args, "x-dead-letter-exchange")) {
    throw new BrokerError(
      "preconditionFailed",
      `invalid arg 'x-dead-letter-routing-key' for ${describeResource("queue", name, vhost)}: routing_key_but_no_dlx_defined`,
    );
  }
}

/** How RabbitMQ renders an argument value in an equivalence error: "the value '10' of type 'long'" or "none". */
export function describeArgValue(v: FieldValue | undefined): string {
  if (v === undefined) return "none";
  const text = Buffer.isBuffer(v) ? v.toString("utf8") : typeof v === "object" && v !== null ? JSON.stringify(v) : String(v);
  return `the value '${text}' of type '${fieldTypeName(v)}'`;
}
