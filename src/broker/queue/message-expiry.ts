/**
 * The per-message `expiration` property: checked at publish, and turned into a time to live when
 * the message enters a queue. RabbitMQ refuses a publish whose expiration is not a non-negative
 * integer string (rabbit_channel:check_expiration_header) with 406 and the reason
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

/**
 * ms to live for a message entering a queue: the smaller of the queue's message-ttl and the
 * message's expiration property; -1 = forever. (The expiration was checked at publish.)
 */
export function messageTtl(queueTtl: number | null, expiration: string | undefined): number {
  let ttl = queueTtl ?? -1;
  if (expiration !== undefined) {
    const n = Number(expiration);
    if (Number.isInteger(n) && n >= 0 && (ttl < 0 || n < ttl)) ttl = n;
  }
  return ttl;
}
