/**
 * First boot: RabbitMQ creates the default vhost and the default user (administrator, full
 * permissions on it) when the node has no definitions yet.
 */
import type { HashingAlgorithm } from "../auth/password.js";
import type { Broker } from "./broker.js";

export interface BootstrapOptions {
  readonly defaultVhost: string;
  readonly defaultUser: string;
  readonly defaultPass: string;
  /**
   * The default user's password as already hashed (RabbitMQ's password_hash and algorithm), used
   * instead of hashing `defaultPass` again: coney/testing's reset() recreates the same user often.
   */
  readonly defaultPassHash?: { readonly hash: string; readonly algorithm: HashingAlgorithm };
}

export function bootstrapDefaults(broker: Broker, o: BootstrapOptions): void {
  if (broker.vhosts.size > 0 || broker.users.list().length > 0) return;
  broker.putVhost(o.defaultVhost, { description: "Default virtual host" });
  const hashed = o.defaultPassHash;
  broker.putUser(o.defaultUser, hashed ? { passwordHash: hashed.hash, hashingAlgorithm: hashed.algorithm, tags: ["administrator"] } : { password: o.defaultPass, tags: ["administrator"] });
  broker.setPermission(o.defaultUser, o.defaultVhost, { configure: ".*", write: ".*", read: ".*" });
}
