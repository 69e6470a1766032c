/**
 * RabbitMQ lists bindings in the order of its route table: by source, then routing key, then
 * destination (kind and name). Tools that diff listings (and the compat replay) rely on it.
 */
import type { Binding } from "../broker/index.js";

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function inRouteOrder(bindings: Iterable<Binding>): Binding[] {
  return [...bindings].sort(
    (a, b) =>
      cmp(a.source.name, b.source.name) ||
      cmp(a.routingKey, b.routingKey) ||
      cmp(a.destination.kind, b.destination.kind) ||
      cmp(a.destination.name, b.destination.name),
  );
}
