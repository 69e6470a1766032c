/**
 * AMQP 1.0 addresses, RabbitMQ 4's "address format v2" and RabbitMQ 3.x's v1, parsed into what
 * a link does (docs/AMQP10.md):
 *   v2: /queues/:queue · /exchanges/:exchange/:routing-key · /exchanges/:exchange (the message's
 *       subject is the key) · a null target (each message's `to` is one of these). Path segments
 *       are percent-encoded.
 *   v1: /queue/:q (declared when missing, durable as the terminus says) · /amq/queue/:q (must exist) ·
 *       /exchange/:x/:key · /exchange/:x (subject as key) · /topic/:key (amq.topic) ·
 *       /queue (target only: the subject names the queue).
 * As a source, a v1 exchange or topic address consumes from a queue of the link's own, bound
 * with the key, that goes with the link (RabbitMQ 3.x's behaviour).
 */
import { Amqp1Error, CONDITION } from "./amqp1-errors.js";

/** Where a sending link's messages go. `key` null: the message's subject is the key. */
export type TargetAddress =
  | { readonly kind: "exchange"; readonly exchange: string; readonly key: string | null; readonly declareQueue: string | null }
  /** v1 "/queue": the subject names the queue (default exchange). */
  | { readonly kind: "subject-queue" }
  /** A null target: each message's `to` is parsed. */
  | { readonly kind: "per-message" };

/** Where a receiving link's messages come from. */
export type SourceAddress =
  | { readonly kind: "queue"; readonly queue: string; readonly declare: boolean }
  | { readonly kind: "bound"; readonly exchange: string; readonly key: string };

const invalid = (address: string): Amqp1Error => new Amqp1Error(CONDITION.invalidField, `address not supported: ${address}`, "link");

function decode(segment: string, address: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalid(address);
  }
}

/** Splits "/a/b/c" after `prefix` into decoded segments. */
function segments(address: string, prefix: string): string[] {
  const rest = address.slice(prefix.length);
  return rest === "" ? [] : rest.split("/").map((s) => decode(s, address));
}

export function parseTarget(address: string | null): TargetAddress {
  if (address === null) return { kind: "per-message" };
  if (address.startsWith("/queues/")) {
    const [q, ...more] = segments(address, "/queues/");
    if (q === undefined || q === "" || more.length > 0) throw invalid(address);
    return { kind: "exchange", exchange: "", key: q, declareQueue: null };
  }
  if (address.startsWith("/exchanges/")) {
    const [x, key, ...more] = segments(address, "/exchanges/");
    if (x === undefined || more.length > 0) throw invalid(address);
    if (x === "amq.default") throw new Amqp1Error(CONDITION.unauthorizedAccess, "write access to the default exchange is refused: use /queues/:queue", "link");
    return { kind: "exchange", exchange: x, key: key ?? null, declareQueue: null };
  }
  if (address === "/queue") return { kind: "subject-queue" };
  if (address.startsWith("/queue/")) {
    const q = decode(address.slice(7), address);
    return { kind: "exchange", exchange: "", key: q, declareQueue: q };
  }
  if (address.startsWith("/amq/queue/")) return { kind: "exchange", exchange: "", key: decode(address.slice(11), address), declareQueue: null };
  if (address.startsWith("/exchange/")) {
    const rest = address.slice(10);
    const slash = rest.indexOf("/");
    if (slash < 0) return { kind: "exchange", exchange: decode(rest, address), key: null, declareQueue: null };
    return { kind: "exchange", exchange: decode(rest.slice(0, slash), address), key: rest.slice(slash + 1), declareQueue: null };
  }
  if (address.startsWith("/topic/")) return { kind: "exchange", exchange: "amq.topic", key: address.slice(7), declareQueue: null };
  throw invalid(address);
}

export function parseSource(address: string | null): SourceAddress {
  if (address === null) throw new Amqp1Error(CONDITION.invalidField, "a receiving link needs a source address", "link");
  if (address.startsWith("/queues/")) {
    const [q, ...more] = segments(address, "/queues/");
    if (q === undefined || q === "" || more.length > 0) throw invalid(address);
    return { kind: "queue", queue: q, declare: false };
  }
  if (address.startsWith("/queue/")) return { kind: "queue", queue: decode(address.slice(7), address), declare: true };
  if (address.startsWith("/amq/queue/")) return { kind: "queue", queue: decode(address.slice(11), address), declare: false };
  if (address.startsWith("/exchange/")) {
    const rest = address.slice(10);
    const slash = rest.indexOf("/");
    if (slash < 0) return { kind: "bound", exchange: decode(rest, address), key: "" };
    return { kind: "bound", exchange: decode(rest.slice(0, slash), address), key: rest.slice(slash + 1) };
  }
  if (address.startsWith("/topic/")) return { kind: "bound", exchange: "amq.topic", key: address.slice(7) };
  throw invalid(address);
}
