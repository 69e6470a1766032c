/**
 * A publish's targets without the queues it must skip (Broker.publish's `skip`: MQTT's no-local,
 * the publisher's own subscription queues).
 */
import type { Queue } from "./queue-type.js";

/** Removes the `skip` queues from `out` in place; returns how many are left. */
export function withoutSkipped(out: Queue[], skip: readonly Queue[]): number {
  let kept = 0;
  for (let i = 0; i < out.length; i++) {
    const q = out[i]!;
    if (!skip.includes(q)) out[kept++] = q;
  }
  out.length = kept;
  return kept;
}
