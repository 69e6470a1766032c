/**
 * The queue arguments a SUBSCRIBE (or a SEND that declares /queue/q) may carry as headers, as
 * rabbitmq_stomp accepts them: each known x- header becomes the queue argument of its AMQP type
 * (numbers for lengths and times, a boolean for single active consumer, strings otherwise);
 * unknown x- headers are not arguments. A number that does not parse is refused by the domain's
 * own argument validation (PRECONDITION_FAILED), as a bad AMQP argument would be.
 */
import type { FieldTable } from "../broker/values/field-value.js";

const NUMERIC = new Set(["x-expires", "x-max-length", "x-max-length-bytes", "x-max-priority", "x-message-ttl", "x-delivery-limit", "x-quorum-initial-group-size", "x-stream-max-segment-size-bytes"]);
const TEXT = new Set(["x-dead-letter-exchange", "x-dead-letter-routing-key", "x-overflow", "x-queue-mode", "x-queue-type", "x-queue-master-locator", "x-max-age", "x-dead-letter-strategy", "x-queue-leader-locator"]);
const BOOLEAN = new Set(["x-single-active-consumer"]);

export function queueArguments(headers: Map<string, string>): FieldTable {
  const args: FieldTable = {};
  for (const [k, v] of headers) {
    if (k.charCodeAt(0) !== 120 /* x */ || k.charCodeAt(1) !== 45 /* - */) continue;
    if (NUMERIC.has(k)) {
      const n = Number(v);
      args[k] = v !== "" && Number.isFinite(n) ? n : v;
    } else if (TEXT.has(k)) args[k] = v;
    else if (BOOLEAN.has(k)) args[k] = v === "true";
  }
  return args;
}
