/**
 * Ending a rabbitmq-stream-js-client Client one of whose connections went to a node (or worker)
 * killed -9: its close waits forever for the dead connection's answer, and that connection's
 * heartbeat timer (the server's interval, re-armed) would keep the test process alive. Shared by
 * the kill tests of the workers and of the spread cluster.
 */
import type { Client } from "rabbitmq-stream-js-client";

/** The client's logger, silenced (its reconnect noise is not the test's output). */
export const silentStreamLog = { debug() {}, info() {}, warn() {}, error() {} };

/** What the client keeps of its connections (its own fields, read for the clean-up below only). */
interface ClientInternals {
  readonly locatorConnection?: KilledConnection;
  readonly pool?: { readonly connectionsMap?: Map<string, KilledConnection[]> };
}
interface KilledConnection {
  readonly heartbeat?: { stop(): void };
  readonly socket?: { destroy(): void };
}

/** Every connection's heartbeat is stopped and its socket destroyed. */
export function endKilledClient(c: Client): void {
  const internals = c as unknown as ClientInternals;
  for (const conn of [internals.locatorConnection, ...[...(internals.pool?.connectionsMap?.values() ?? [])].flat()]) {
    conn?.heartbeat?.stop();
    conn?.socket?.destroy();
  }
}
