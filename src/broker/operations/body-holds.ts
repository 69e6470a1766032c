/**
 * Who holds a lent body once its publish is routed (values/body-lease.ts), for every transport
 * that lends bodies (AMQP 0-9-1's publishing.ts, AMQP 1.0's lent-payloads.ts): each queue entry
 * holds it in the publish's stead when every queue counts its holds (a durable queue's store took
 * its own holds while the message was routed); one that does not (a stream, a quorum queue) may
 * keep the body past any settlement, so then nothing may hand it back: the lease is pinned. A
 * publish that was not routed pins it before it gets here (the caller knows why: unroutable,
 * refused, a direct reply-to).
 */
import type { Queue } from "../queue/queue-type.js";
import type { BodyLease } from "../values/body-lease.js";

/** A routed publish's lease passes to the entries of `queues` (its routed list), or is pinned. */
export function holdForEntries(lease: BodyLease, queues: readonly Queue[]): void {
  // Routed to no queue yet counted as routed: an x-delayed-message exchange holds it.
  if (queues.length === 0) return lease.pin();
  for (let i = 0; i < queues.length; i++) {
    if (!queues[i]!.countsBodyHolds) {
      lease.pin();
      return;
    }
  }
  lease.handOver(queues.length);
}
