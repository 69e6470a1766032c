/**
 * `coney_listener_up{protocol,port}`: 1 while a listener is bound, 0 while it cannot bind and is
 * being retried (src/listeners). RabbitMQ has no such family (a listener that cannot bind stops
 * its node); an alert on 0 finds a side port that a node serves without.
 */
import type { ListenerStatus } from "../listeners/listener-status.js";
import { labelPair, type Exposition } from "./exposition.js";

export function writeListeners(out: Exposition, listeners: readonly ListenerStatus[]): void {
  if (listeners.length === 0) return;
  out.family("coney_listener_up", "gauge", "1 if the listener is bound, 0 if it cannot bind and is being retried");
  for (const l of listeners) out.sample("coney_listener_up", `${labelPair("protocol", l.protocol)},${labelPair("port", String(l.port))}`, l.up ? 1 : 0);
}
