/**
 * Pure queue tests' shared parts: a QueueHost that does nothing (each test overrides what it
 * watches: its clock, dead-lettering) and a no-ack consumer that records the bodies it is given.
 * The queue itself (MessageQueue) is the real one.
 */
import type { Queue, QueueHost } from "../../src/broker/queue/queue-type.js";
import type { QueueConsumer, QueueEntry } from "../../src/broker/index.js";

/** A host whose clock reads 1,000 unless `overrides` say otherwise. */
export function quietHost(overrides: Partial<QueueHost> = {}): QueueHost {
  return {
    queueUnused: () => undefined,
    queueExpired: () => undefined,
    deadLetter: () => undefined,
    now: () => 1_000,
    placeQueue: () => 0,
    queueRemoved: () => undefined,
    unstored: null,
    ...overrides,
  };
}

/** A no-ack consumer that takes everything and pushes each body (as text) to `got`. */
export function recordingConsumer(got: string[]): QueueConsumer<Queue> {
  return {
    tag: "c1",
    noAck: true,
    exclusive: false,
    priority: 0,
    owner: {},
    canTake: () => true,
    deliver: (_q: Queue, e: QueueEntry) => void got.push(e.message.body.toString()),
    cancelledByQueue: () => undefined,
  };
}
