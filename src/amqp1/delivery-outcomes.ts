/**
 * The outcomes a receiver settles the broker's deliveries with (part 3 §3.4), with RabbitMQ 4's
 * meanings: accepted removes the message; released puts it back without counting a failed
 * delivery; rejected dead-letters it (or drops it without a dead-letter exchange); modified
 * puts it back, counted as a failed delivery (toward a quorum queue's delivery limit, and its
 * x-delivery-count) only with delivery-failed, or with undeliverable-here dead-letters it. A
 * modified outcome's message-annotations with "x-" keys are added to the message (RabbitMQ 4
 * merges them; other keys are reserved by the spec and ignored), so a consumer after the
 * requeue — or the dead-letter queue — sees them as x- headers / annotations.
 */
import { withHeader, type Queue, type QueueEntry } from "../broker/index.js";
import type { Amqp10Value } from "../amqp10/amqp10-value.js";
import { textOf } from "../amqp10/amqp10-value.js";
import { fieldValue } from "../amqp10/message-mapping.js";
import { boolField, compositeField, PERFORMATIVE } from "./performatives.js";

export interface Modified {
  readonly deliveryFailed: boolean;
  readonly undeliverableHere: boolean;
  readonly annotations: ReadonlyArray<readonly [Amqp10Value, Amqp10Value]>;
}

export type Outcome = "accepted" | "released" | "rejected" | Modified;

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
    case PERFORMATIVE.modified: {
      const a = state.fields[2];
      return {
        deliveryFailed: boolField(state.fields, 0, "delivery-failed", false),
        undeliverableHere: boolField(state.fields, 1, "undeliverable-here", false),
        annotations: a?.type === "map" ? a.value : [],
      };
    }
    default:
      return null;
  }
}

export function applyOutcome(queue: Queue, entry: QueueEntry, outcome: Outcome): void {
  if (outcome === "accepted") {
    queue.settle(entry);
    entry.message.lease?.release();
  } else if (outcome === "released") {
    queue.requeue([entry], false);
  } else if (outcome === "rejected") {
    queue.discard(entry);
  } else {
    for (const [k, v] of outcome.annotations) {
      const key = k.type === "symbol" ? textOf(k) : undefined;
      if (key !== undefined && key.startsWith("x-")) entry.message = withHeader(entry.message, key, fieldValue(v));
    }
    if (outcome.undeliverableHere) queue.discard(entry);
    else queue.requeue([entry], outcome.deliveryFailed);
  }
}
