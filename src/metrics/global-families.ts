/**
 * RabbitMQ's global counters (rabbitmq_global_*, one series per protocol; Coney speaks amqp091)
 * and the node totals (rabbitmq_connections, _channels, _consumers, _queues), read from the
 * broker-wide counters in src/broker/broker-stats.ts.
 */
import type { DeathReason } from "../broker/index.js";
import { labelPair, type Exposition, type MetricType } from "./exposition.js";
import type { ScrapeState } from "./scrape-state.js";

const AMQP091 = labelPair("protocol", "amqp091");

interface Figure {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  value(s: ScrapeState): number;
}

const figure = (name: string, type: MetricType, help: string, value: (s: ScrapeState) => number): Figure => ({ name, type, help, value });

export const TOTALS: readonly Figure[] = [
  figure("rabbitmq_connections", "gauge", "Connections currently open", (s) => s.broker.connections.size),
  figure("rabbitmq_channels", "gauge", "Channels currently open", (s) => s.channels().length),
  figure("rabbitmq_consumers", "gauge", "Consumers currently connected", (s) => consumerCount(s)),
  figure("rabbitmq_queues", "gauge", "Queues available", (s) => s.queues().length),
];

export const GLOBAL: readonly Figure[] = [
  figure("rabbitmq_global_consumers", "gauge", "Current number of consumers", (s) => consumerCount(s)),
  // RabbitMQ counts a channel as a publisher from its first basic.publish until it closes.
  figure("rabbitmq_global_publishers", "gauge", "Current number of publishers", (s) => s.channels().filter((ch) => ch.stats.publish > 0).length),
  figure("rabbitmq_global_messages_received_total", "counter", "Total number of messages received from publishers", (s) => s.broker.stats.publish),
  figure("rabbitmq_global_messages_received_confirm_total", "counter", "Total number of messages received from publishers expecting confirmations", (s) => s.broker.stats.receivedConfirm),
  figure("rabbitmq_global_messages_routed_total", "counter", "Total number of messages routed to queues or streams", (s) => s.broker.stats.routed),
  figure("rabbitmq_global_messages_unroutable_dropped_total", "counter", "Total number of messages published as non-mandatory into an exchange and dropped as unroutable", (s) => s.broker.stats.dropUnroutable),
  figure("rabbitmq_global_messages_unroutable_returned_total", "counter", "Total number of messages published as mandatory into an exchange and returned to the publisher as unroutable", (s) => s.broker.stats.returnUnroutable),
  figure("rabbitmq_global_messages_confirmed_total", "counter", "Total number of messages confirmed to publishers", (s) => s.broker.stats.confirm),
  figure("rabbitmq_global_messages_delivered_total", "counter", "Total number of messages delivered to consumers", (s) => {
    const b = s.broker.stats;
    return b.deliver + b.deliverNoAck + b.get + b.getNoAck;
  }),
  figure("rabbitmq_global_messages_delivered_consume_manual_ack_total", "counter", "Total number of messages delivered to consumers using basic.consume with manual acknowledgment", (s) => s.broker.stats.deliver),
  figure("rabbitmq_global_messages_delivered_consume_auto_ack_total", "counter", "Total number of messages delivered to consumers using basic.consume with automatic acknowledgment", (s) => s.broker.stats.deliverNoAck),
  figure("rabbitmq_global_messages_delivered_get_manual_ack_total", "counter", "Total number of messages delivered to consumers using basic.get with manual acknowledgment", (s) => s.broker.stats.get),
  figure("rabbitmq_global_messages_delivered_get_auto_ack_total", "counter", "Total number of messages delivered to consumers using basic.get with automatic acknowledgment", (s) => s.broker.stats.getNoAck),
  figure("rabbitmq_global_messages_get_empty_total", "counter", "Total number of times basic.get operations fetched no message", (s) => s.broker.stats.getEmpty),
  figure("rabbitmq_global_messages_redelivered_total", "counter", "Total number of messages redelivered to consumers", (s) => s.broker.stats.redeliver),
  figure("rabbitmq_global_messages_acknowledged_total", "counter", "Total number of messages acknowledged by consumers", (s) => s.broker.stats.ack),
];

/**
 * Messages that died in queues, by reason, queue type and dead-letter strategy: "at_most_once"
 * when the queue has a dead-letter exchange, "disabled" when the message was dropped. The series
 * are RabbitMQ's for the queue types and strategies Coney has (no streams, no at-least-once
 * dead-lettering, so no dead_lettered_confirmed either).
 */
const DEATHS: ReadonlyArray<{ reason: DeathReason; help: string; types: ReadonlyArray<"classic" | "quorum"> }> = [
  { reason: "delivery_limit", help: "Total number of messages dead-lettered due to delivery-limit exceeded", types: ["quorum"] },
  { reason: "expired", help: "Total number of messages dead-lettered due to message TTL exceeded", types: ["classic", "quorum"] },
  { reason: "maxlen", help: "Total number of messages dead-lettered due to overflow drop-head or reject-publish-dlx", types: ["classic", "quorum"] },
  { reason: "rejected", help: "Total number of messages dead-lettered due to basic.reject or basic.nack", types: ["classic", "quorum"] },
];

export function writeDeadLettered(out: Exposition, s: ScrapeState): void {
  const counts = s.broker.stats.deadLettered;
  for (const d of DEATHS) {
    const name = `rabbitmq_global_messages_dead_lettered_${d.reason}_total`;
    out.family(name, "counter", d.help);
    for (const type of d.types) {
      for (const deadLettered of [true, false]) {
        const labels = `${labelPair("queue_type", `rabbit_${type}_queue`)},${labelPair("dead_letter_strategy", deadLettered ? "at_most_once" : "disabled")}`;
        out.sample(name, labels, counts.get(type, deadLettered, d.reason));
      }
    }
  }
}

function consumerCount(s: ScrapeState): number {
  let n = 0;
  for (const q of s.queues()) n += q.consumerCount;
  return n;
}

export function writeTotals(out: Exposition, s: ScrapeState): void {
  writeFigures(out, s, TOTALS, "");
}

export function writeGlobal(out: Exposition, s: ScrapeState): void {
  writeFigures(out, s, GLOBAL, AMQP091);
}

function writeFigures(out: Exposition, s: ScrapeState, figures: readonly Figure[], labels: string): void {
  for (const f of figures) {
    out.family(f.name, f.type, f.help);
    out.sample(f.name, labels, f.value(s));
  }
}
