/**
 * One record of the audit trail: a configuration change announced by the broker (who, from
 * where, when, what before and after, and the result), as one JSON line. Passwords and password
 * hashes never reach it: the broker's change records carry none (broker/events/change-records.ts),
 * and `scrubbed` drops any key that names a password, whatever a parameter's value holds.
 */
import type { ActorSource, AuthMethod, DomainEvent } from "../broker/index.js";

export interface AuditEntry {
  /** Increasing, from 1; kept across restarts and failovers (the file holds the last one). */
  readonly id: number;
  /** ISO 8601, and `ts` the same instant in ms. */
  readonly at: string;
  readonly ts: number;
  readonly node: string;
  readonly user: string;
  readonly auth: AuthMethod;
  readonly source: ActorSource;
  readonly peer: string;
  /** "user.put", "permission.set", "policy.clear", "definitions.import", … */
  readonly action: string;
  readonly vhost: string | null;
  /** The object's name (user, policy, "component/name", …); `name` too, for the API's name filter. */
  readonly name: string;
  readonly before?: unknown;
  readonly after?: unknown;
  readonly result: "ok" | "error";
  readonly error?: { readonly error: string; readonly reason: string };
}

/** The entry for a configuration change; null for an event that is none. */
export function auditEntryOf(e: DomainEvent, id: number, node: string): AuditEntry | null {
  const c = e.change;
  if (c === null) return null;
  return {
    id,
    at: new Date(e.at).toISOString(),
    ts: e.at,
    node,
    user: e.actor.user,
    auth: e.actor.authMethod,
    source: e.actor.source,
    peer: e.actor.peer,
    action: c.action,
    vhost: c.vhost,
    name: c.object,
    ...(c.before !== undefined ? { before: scrubbed(c.before) } : {}),
    ...(c.after !== undefined ? { after: scrubbed(c.after) } : {}),
    result: e.failure ? "error" : "ok",
    ...(e.failure ? { error: e.failure } : {}),
  };
}

/** Keys whose values are secrets: password, pass, password_hash, passwordHash, client_secret, … */
const SECRET_KEY = /(^|_)(password|pass|secret)(_?hash)?$/i;
/** A URI's password (a shovel's or federation upstream's "amqp://user:secret@host"). */
const URI_PASSWORD = /(:\/\/[^:/@\s]*:)[^@/\s]*@/g;

/** A copy without keys that name a password, a hash of one, or a secret, and with URI passwords masked. */
export function scrubbed(v: unknown): unknown {
  if (typeof v === "string") return v.includes("://") ? v.replace(URI_PASSWORD, "$1***@") : v;
  if (Array.isArray(v)) return v.map(scrubbed);
  if (v === null || typeof v !== "object" || Buffer.isBuffer(v)) return v;
  const out: Record<string, unknown> = {};
  // has_password is the user record's flag (a boolean), not a secret.
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (k === "has_password" || !SECRET_KEY.test(k)) out[k] = scrubbed(x);
  return out;
}
