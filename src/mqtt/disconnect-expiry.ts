/**
 * What an MQTT 5 DISCONNECT's Session Expiry Interval does to the session (MQTT 5 §3.14.2.2.2):
 * absent or unchanged, nothing; 0, the session ends with this connection; another value, the
 * session now expires after it (capped as at CONNECT; RabbitMQ updates the session queues'
 * x-expires); any value after a CONNECT that had none (0) is a protocol error.
 */
import { MAX_SESSION_EXPIRY_SECONDS } from "./mqtt-node.js";

export type DisconnectExpiry =
  | { readonly kind: "unchanged" }
  | { readonly kind: "protocol-error" }
  | { readonly kind: "end" }
  | { readonly kind: "change"; readonly seconds: number };

export function disconnectExpiry(current: number, requested: number | undefined): DisconnectExpiry {
  if (requested === undefined || requested === current) return { kind: "unchanged" };
  if (current === 0) return { kind: "protocol-error" };
  if (requested === 0) return { kind: "end" };
  return { kind: "change", seconds: Math.min(requested, MAX_SESSION_EXPIRY_SECONDS) };
}
