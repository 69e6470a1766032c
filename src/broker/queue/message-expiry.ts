/**
 * The per-message `expiration` property: RabbitMQ refuses a publish whose expiration is not a
 * non-negative integer string (rabbit_channel:check_expiration_header) with 406 and the reason
 * rabbit_basic:parse_expiration gives ("no_integer", "{value_negative,-5}", "{leftover_string,\"x\"}").
 */
import { BrokerError } from "../../errors/broker-error.js";

function problem(expiration: string): string | null {
  // Erlang's string:to_integer: an optional sign, then digits; no regex on the publish path.
  let i = expiration.length > 0 && (expiration[0] === "-" || expiration[0] === "+") ? 1 : 0;
  const start = i;
  while (i < expiration.length && expiration.charCodeAt(i) >= 48 && expiration.charCodeAt(i) <= 57) i++;
  if (i === start) return "no_integer";
  if (i < expiration.length) return `{leftover_string,${JSON.stringify(expiration.slice(i))}}`;
  const n = Number(expiration);
  return n < 0 ? `{value_negative,${n}}` : null;
}

/** Throws PRECONDITION_FAILED for an invalid expiration; called only when a message carries one. */
export function checkExpiration(expiration: string): void {
  const p = problem(expiration);
  if (p) throw new BrokerError("preconditionFailed", `invalid expiration '${expiration}': ${p}`);
}
