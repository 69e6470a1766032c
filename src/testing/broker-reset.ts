/**
 * Emptying a test broker between tests: every connection closed, every vhost (with its queues,
 * exchanges, bindings, policies, parameters, permissions), user and global parameter removed,
 * then the defaults created again, exactly as a first boot does (bootstrapDefaults). Everything
 * goes through the broker's own operations, so nothing is left half-removed; it runs in one
 * event-loop turn and writes nothing (the test broker stores nothing).
 */
import { bootstrapDefaults, type Broker, type BootstrapOptions } from "../broker/index.js";

export function resetBroker(broker: Broker, defaults: BootstrapOptions): void {
  // Closed first, so that deleting their vhosts does not close them a second time.
  for (const c of broker.connections.list()) c.forceClose("reset by the test broker");
  for (const name of [...broker.vhosts.keys()]) broker.deleteVhost(name);
  for (const u of broker.users.list()) broker.deleteUser(u.name);
  for (const name of [...broker.globalParameters.keys()]) broker.deleteGlobalParameter(name);
  broker.authAttempts.reset();
  bootstrapDefaults(broker, defaults);
}
