/**
 * Every counter group the management API shows with rates, named for the rate sampler: the
 * overview's, and each vhost's, queue's, exchange's, connection's and channel's. The record
 * builders render the same groups (records.ts), so a sample and a record always agree.
 */
import type { Broker, Queue } from "../broker/index.js";
import type { Collect, Counters } from "./rate-sampler.js";
import {
  channelMessageStats,
  connectionCounters,
  deliveryStats,
  exchangeMessageStats,
  queueCounters,
  queueMessageStats,
  queueTotals,
  rateKey,
  vhostCounters,
  vhostMessageStats,
} from "./records.js";

export const overviewKey = { messageStats: "overview-stats", queueTotals: "overview-queue-totals", churn: "overview-churn" };

export function overviewMessageStats(b: Broker): Counters {
  const s = b.stats;
  return { ...deliveryStats(s), confirm: s.confirm, return_unroutable: s.returnUnroutable, drop_unroutable: s.dropUnroutable };
}

export function overviewQueueTotals(b: Broker): Counters {
  return queueTotals(allQueues(b));
}

function* allQueues(b: Broker): Iterable<Queue> {
  for (const v of b.vhosts.values()) yield* v.queues.values();
}

export function overviewChurn(b: Broker): Counters {
  const s = b.stats;
  return {
    connection_created: s.connectionCreated,
    connection_closed: s.connectionClosed,
    channel_created: s.channelCreated,
    channel_closed: s.channelClosed,
    queue_declared: s.queueDeclared,
    queue_created: s.queueCreated,
    queue_deleted: s.queueDeleted,
  };
}

/** The sampler's view of the whole broker. */
export function collectBroker(b: Broker): Collect {
  return (visit) => {
    visit(overviewKey.messageStats, overviewMessageStats(b));
    visit(overviewKey.queueTotals, overviewQueueTotals(b));
    visit(overviewKey.churn, overviewChurn(b));
    for (const v of b.vhosts.values()) {
      visit(rateKey.vhost(v), vhostCounters(v));
      visit(rateKey.vhostStats(v), vhostMessageStats(v));
      for (const q of v.queues.values()) {
        visit(rateKey.queue(q), queueCounters(q));
        visit(rateKey.queueStats(q), queueMessageStats(q));
      }
      for (const x of v.exchanges.values()) visit(rateKey.exchangeStats(x), exchangeMessageStats(x));
    }
    for (const c of b.connections.list()) {
      const info = c.info();
      visit(rateKey.connection(info), connectionCounters(info));
      for (const ch of info.channels) visit(rateKey.channelStats(ch), channelMessageStats(ch));
    }
  };
}

/**
 * Which retention policy an object's chart history follows (RabbitMQ's sample_retention_policies):
 * "basic" for queues, exchanges, connections and channels (named by rateKey in records.ts),
 * "global" for the overview, vhosts and the node.
 */
export function retentionPolicyOf(key: string): "global" | "basic" {
  return key.startsWith("queue") || key.startsWith("exchange") || key.startsWith("connection") || key.startsWith("channel") ? "basic" : "global";
}
