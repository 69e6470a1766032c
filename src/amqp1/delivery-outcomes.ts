/**
 * The outcomes a receiver settles the broker's deliveries with (part 3 §3.4), with RabbitMQ 4's
 * meanings: accepted removes the message; released puts it back (requeue); rejected dead-letters
 * it (or drops it without a dead-letter exchange); modified with undeliverable-here dead-letters
 * it, otherwise requeues it (delivery-failed: counted as a failed delivery, which a quorum queue
 * counts towards its delivery limit).
 */
import type { Queue, QueueEntry } from "../broker/index.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { boolField, compositeField, PERFORMATIVE } from "./performatives.js";

export type Outcome = "accepted" | "released" | "rejected" | { readonly deliveryFailed: boolean; readonly undeliverableHere: boolean };

/** The outcome of a disposition's or transfer's state field `i`; null for a non-terminal state. */
export function readOutcome(f: readonly Amqp10Value[], i: number): Outcome | null {
  const state = compositeField(f, i, "state");
  if (state === null) return "accepted";
  switch (state.code) {
    case PERFORMATIVE.accepted:
      return "accepted";
    case PERFORMATIVE.released:
      return "released";
    case PERFORMATIVE.rejected:
      return "rejected";
    case PERFORMATIVE.modified:
      return { deliveryFailed: boolField(state.fields, 0, "delivery-failed", false), undeliverableHere: boolField(state.fields, 1, "undeliverable-here", false) };
    default:
      return null;
  }
}

export function applyOutcome(queue: Queue, entry: QueueEntry, outcome: Outcome): void {
  if (outcome === "accepted") {
    queue.settle(entry);
    entry.message.lease?.release();
  } else if (outcome === "released") {
    queue.requeue([entry]);
  } else if (outcome === "rejected" || outcome.undeliverableHere) {
    queue.discard(entry);
  } else {
    queue.requeue([entry]);
  }
}
