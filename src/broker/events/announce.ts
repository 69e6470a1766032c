/**
 * How operations announce: `announce` emits a completed change (or a runtime event), `attempted`
 * runs a configuration change and, when it throws, announces the refusal (for the audit trail's
 * "result") before rethrowing. Both do nothing but a check when no one listens.
 */
import { BrokerError } from "../../errors/broker-error.js";
import type { Actor } from "./actor.js";
import type { ConfigChange, EventFailure } from "./domain-event.js";
import type { DomainEvents } from "./domain-events.js";

/** What announcing needs of the broker. */
export interface Announcer {
  readonly events: DomainEvents;
  readonly now: () => number;
}

export function announce(b: Announcer, actor: Actor, name: string | null, props: Record<string, unknown>, change: ConfigChange | null = null): void {
  if (!b.events.listening) return;
  b.events.emit({ name, at: b.now(), actor, props, change, failure: null });
}

/** Runs a configuration change; a refusal is announced with what was asked (`change.after`) and rethrown. */
export function attempted<T>(b: Announcer, actor: Actor, change: () => ConfigChange, run: () => T): T {
  if (!b.events.listening) return run();
  try {
    return run();
  } catch (err) {
    b.events.emit({ name: null, at: b.now(), actor, props: {}, change: change(), failure: failureOf(err) });
    throw err;
  }
}

export function failureOf(err: unknown): EventFailure {
  if (err instanceof BrokerError) return { error: err.spec.httpError, reason: typeof err.httpReason === "string" ? err.httpReason : JSON.stringify(err.httpReason) };
  return { error: "internal_error", reason: err instanceof Error ? err.message : String(err) };
}
