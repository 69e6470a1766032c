/**
 * Looking into a queue without consuming from it: what tests otherwise write by hand with
 * basic.get and requeue. Reads the domain's queue directly (the test broker runs in the test's
 * process), so inspecting changes nothing: no delivery count, no redelivered flag, no stats.
 */
import { joinBody } from "../broker/values/message-body.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import type { Broker, Queue } from "../broker/index.js";

/** A message as it waits in a queue. */
export interface TestMessage {
  readonly body: Buffer;
  readonly exchange: string;
  readonly routingKey: string;
  readonly properties: MessageProperties;
  readonly redelivered: boolean;
}

export interface QueueProbe {
  /** False while the queue has not been declared (or after it was deleted). */
  readonly exists: boolean;
  /** Ready messages, oldest first: the ones a consumer would get next. Unacknowledged ones are not included. */
  messages(): TestMessage[];
  /** Ready messages (RabbitMQ's messages_ready). */
  readonly messageCount: number;
  /** Delivered and not yet acknowledged (RabbitMQ's messages_unacknowledged). */
  readonly unackedCount: number;
  readonly consumerCount: number;
}

export function probeQueue(broker: Broker, vhost: string, name: string): QueueProbe {
  const find = (): Queue | undefined => broker.vhosts.get(vhost)?.queues.get(name);
  return {
    get exists() {
      return find() !== undefined;
    },
    messages() {
      const q = find();
      if (!q) return [];
      const out: TestMessage[] = [];
      for (const e of q.readyEntries()) {
        const m = e.message;
        out.push({ body: joinBody(m.body), exchange: m.exchange, routingKey: m.routingKey, properties: m.properties, redelivered: e.redelivered });
      }
      return out;
    },
    get messageCount() {
      return find()?.messageCount ?? 0;
    },
    get unackedCount() {
      return find()?.unacked ?? 0;
    },
    get consumerCount() {
      return find()?.consumerCount ?? 0;
    },
  };
}

/** Polls a condition every few milliseconds; rejects with `describe()` once `timeoutMs` has passed. */
export function waitUntil(done: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  if (done()) return Promise.resolve();
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      if (done()) resolve();
      else if (Date.now() >= deadline) reject(new Error(describe()));
      else setTimeout(poll, 2);
    };
    setTimeout(poll, 2);
  });
}
