/**
 * The queues of MQTT shared subscriptions (shared-subscriptions.ts) in each vhost, so that a
 * CONNECT finds its session's group memberships without looking at every queue of the vhost.
 */
import type { VHost } from "../broker/index.js";

/** Every shared subscription's queue is named `mqtt-shared-<group>/<filter>`. */
export const SHARED_QUEUE_PREFIX = "mqtt-shared-";

/**
 * Read from the vhost's queues once, then kept by the sessions that declare and delete them.
 * A name whose queue is gone (deleted through the API, expired) is dropped when next read.
 */
export class SharedQueueIndex {
  private readonly byVhost = new Map<string, Set<string>>();

  names(vhost: VHost): Set<string> {
    let names = this.byVhost.get(vhost.name);
    if (names === undefined) {
      names = new Set();
      for (const name of vhost.queues.keys()) if (name.startsWith(SHARED_QUEUE_PREFIX)) names.add(name);
      this.byVhost.set(vhost.name, names);
    }
    return names;
  }
}
