/**
 * First boot: RabbitMQ creates the default vhost and the default user (administrator, full
 * permissions on it) when the node has no definitions yet.
 */
import type { Broker } from "./broker.js";

export interface BootstrapOptions {
  readonly defaultVhost: string;
  readonly defaultUser: string;
  readonly defaultPass: string;
}

export function bootstrapDefaults(broker: Broker, o: BootstrapOptions): void {
  if (broker.vhosts.size > 0 || broker.users.list().length > 0) return;
  broker.putVhost(o.defaultVhost, { description: "Default virtual host" });
  broker.putUser(o.defaultUser, { password: o.defaultPass, tags: ["administrator"] });
  broker.setPermission(o.defaultUser, o.defaultVhost, { configure: ".*", write: ".*", read: ".*" });
}
