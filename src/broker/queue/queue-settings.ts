/**
 * The settings a queue runs with, resolved from its declare arguments and the effective policy
 * definition (user policy merged with the operator policy). RabbitMQ's rule
 * (rabbit_amqqueue_process:process_args_policy): for the numeric limits (message-ttl, expires,
 * max-length, max-length-bytes, delivery-limit, consumer-timeout) the smaller of argument and policy wins; for the
 * other keys (overflow, dead-letter-exchange, dead-letter-routing-key) the argument wins.
 */
import type { FieldTable, FieldValue } from "../values/field-value.js";

export type Overflow = "drop-head" | "reject-publish" | "reject-publish-dlx";

export interface QueueSettings {
  readonly messageTtl: number | null;
  readonly expires: number | null;
  readonly maxLength: number | null;
  readonly maxLengthBytes: number | null;
  readonly overflow: Overflow;
  readonly deadLetterExchange: string | null;
  readonly deadLetterRoutingKey: string | null;
  readonly deliveryLimit: number | null;
  /** ms a consumer may hold a delivery unacknowledged (x-consumer-timeout / consumer-timeout); null = the node's consumer_timeout. */
  readonly consumerTimeout: number | null;
}

const asNumber = (v: FieldValue | unknown): number | null =>
  typeof v === "number" && Number.isInteger(v) ? v : typeof v === "bigint" ? Number(v) : null;
const asString = (v: FieldValue | unknown): string | null => (typeof v === "string" ? v : Buffer.isBuffer(v) ? v.toString("utf8") : null);

function smaller(arg: FieldValue | undefined, policy: unknown): number | null {
  const a = asNumber(arg);
  const p = asNumber(policy);
  return a === null ? p : p === null ? a : Math.min(a, p);
}

function argFirst(arg: FieldValue | undefined, policy: unknown): string | null {
  return asString(arg) ?? asString(policy);
}

export function resolveQueueSettings(args: FieldTable, policy: Readonly<Record<string, unknown>>): QueueSettings {
  let overflow = argFirst(args["x-overflow"], policy["overflow"]);
  // A quorum queue takes reject-publish-dlx (argument or policy) and runs drop-head, as RabbitMQ
  // 3.10's quorum queues do: they have no dead-lettering on publish.
  if (overflow === "reject-publish-dlx" && args["x-queue-type"] === "quorum") overflow = "drop-head";
  return {
    messageTtl: smaller(args["x-message-ttl"], policy["message-ttl"]),
    expires: smaller(args["x-expires"], policy["expires"]),
    maxLength: smaller(args["x-max-length"], policy["max-length"]),
    maxLengthBytes: smaller(args["x-max-length-bytes"], policy["max-length-bytes"]),
    overflow: overflow === "reject-publish" || overflow === "reject-publish-dlx" ? overflow : "drop-head",
    deadLetterExchange: argFirst(args["x-dead-letter-exchange"], policy["dead-letter-exchange"]),
    deadLetterRoutingKey: argFirst(args["x-dead-letter-routing-key"], policy["dead-letter-routing-key"]),
    deliveryLimit: smaller(args["x-delivery-limit"], policy["delivery-limit"]),
    consumerTimeout: smaller(args["x-consumer-timeout"], policy["consumer-timeout"]),
  };
}

/** x-max-priority is an argument only (RabbitMQ has no policy key for it). 0 = not a priority queue. */
export function maxPriorityOf(args: FieldTable): number {
  return asNumber(args["x-max-priority"]) ?? 0;
}
