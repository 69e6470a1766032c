/**
 * Gives a new x-delayed-message exchange its holder (delayed/delayed-messages.ts): an internal
 * queue named "amq.delayed.<exchange>" (durable when the exchange is, so the message store keeps
 * its persistent messages), and the release that routes a due message through the exchange into
 * the queues it is bound to, as a publish would have, alternate exchange included, and tells the
 * holder when those led elsewhere stored it.
 */
import { DelayedMessages } from "../delayed/delayed-messages.js";
import type { DelayedMessageExchange } from "../exchange/delayed-message-exchange.js";
import type { Queue } from "../queue/queue-type.js";
import type { VHost } from "../vhost.js";
import type { BrokerState } from "./broker-state.js";

/** The internal queue of a delayed exchange; "amq." names are reserved, so no client can declare one. */
export function delayedQueueName(exchange: string): string {
  return `amq.delayed.${exchange}`;
}

export function attachDelayedMessages(b: BrokerState, v: VHost, x: DelayedMessageExchange): void {
  const queue = v.internalQueue({ name: delayedQueueName(x.name), durable: x.durable, autoDelete: false, exclusiveOwner: null, arguments: {} });
  x.delayed = new DelayedMessages(queue, {
    now: b.now,
    route: (m, done) => {
      const out: Queue[] = [];
      v.route(x, m.routingKey, m.properties, out);
      if (out.length > 0) x.stats.publishOut++;
      const forwards = b.forwards;
      const before = forwards.count;
      // A local queue's refusal (its length limit) drops the message, as the plugin's publish does;
      // a queue led elsewhere whose leader is down is tried again (delayed-messages.ts).
      let retry = false;
      for (const q of out) if (!q.enqueue(m) && q.leadsElsewhere) retry = true;
      if (retry) return done(false);
      if (forwards.count === before) return done(true);
      // Forwarded: acked once every leader it went to stored it, as a publisher confirm waits.
      forwards.wait({ synced: (_t, ok) => done(ok) }, 0, null);
    },
  });
}
