/**
 * RabbitMQ's global counters (rabbitmq_global_*, one series per protocol: amqp091, and mqtt310,
 * mqtt311, mqtt50 when MQTT runs)
 * and the node totals (rabbitmq_connections, _channels, _consumers, _queues), read from the
 * broker-wide counters in src/broker/broker-stats.ts.
 */
import type { DeathReason, ProtocolCounters } from "../broker/index.js";
import { labelPair, type Exposition, type MetricType } from "./exposition.js";
import type { ScrapeState } from "./scrape-state.js";

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

/**
 * One protocol's figures: AMQP 0-9-1's are the broker's totals less what the other protocols
 * counted (and its consumers and publishers are its channels'); another protocol's are its own
 * counters (BrokerStats.protocols).
 */
interface ProtocolFigures {
  readonly consumers: number;
  readonly publishers: number;
  readonly c: Readonly<Omit<ProtocolCounters, "consumers" | "publishers">>;
  readonly get: number;
  readonly getNoAck: number;
  readonly getEmpty: number;
  readonly returnUnroutable: number;
}

type GlobalFigure = { readonly name: string; readonly type: MetricType; readonly help: string; value(p: ProtocolFigures): number };
const global = (name: string, type: MetricType, help: string, value: (p: ProtocolFigures) => number): GlobalFigure => ({ name, type, help, value });

export const GLOBAL: readonly GlobalFigure[] = [
  global("rabbitmq_global_consumers", "gauge", "Current number of consumers", (p) => p.consumers),
  // RabbitMQ counts a channel as a publisher from its first basic.publish until it closes.
  global("rabbitmq_global_publishers", "gauge", "Current number of publishers", (p) => p.publishers),
  global("rabbitmq_global_messages_received_total", "counter", "Total number of messages received from publishers", (p) => p.c.publish),
  global("rabbitmq_global_messages_received_confirm_total", "counter", "Total number of messages received from publishers expecting confirmations", (p) => p.c.receivedConfirm),
  global("rabbitmq_global_messages_routed_total", "counter", "Total number of messages routed to queues or streams", (p) => p.c.routed),
  global("rabbitmq_global_messages_unroutable_dropped_total", "counter", "Total number of messages published as non-mandatory into an exchange and dropped as unroutable", (p) => p.c.dropUnroutable),
  global("rabbitmq_global_messages_unroutable_returned_total", "counter", "Total number of messages published as mandatory into an exchange and returned to the publisher as unroutable", (p) => p.returnUnroutable),
  global("rabbitmq_global_messages_confirmed_total", "counter", "Total number of messages confirmed to publishers", (p) => p.c.confirm),
  global("rabbitmq_global_messages_delivered_total", "counter", "Total number of messages delivered to consumers", (p) => p.c.deliver + p.c.deliverNoAck + p.get + p.getNoAck),
  global("rabbitmq_global_messages_delivered_consume_manual_ack_total", "counter", "Total number of messages delivered to consumers using basic.consume with manual acknowledgment", (p) => p.c.deliver),
  global("rabbitmq_global_messages_delivered_consume_auto_ack_total", "counter", "Total number of messages delivered to consumers using basic.consume with automatic acknowledgment", (p) => p.c.deliverNoAck),
  global("rabbitmq_global_messages_delivered_get_manual_ack_total", "counter", "Total number of messages delivered to consumers using basic.get with manual acknowledgment", (p) => p.get),
  global("rabbitmq_global_messages_delivered_get_auto_ack_total", "counter", "Total number of messages delivered to consumers using basic.get with automatic acknowledgment", (p) => p.getNoAck),
  global("rabbitmq_global_messages_get_empty_total", "counter", "Total number of times basic.get operations fetched no message", (p) => p.getEmpty),
  global("rabbitmq_global_messages_redelivered_total", "counter", "Total number of messages redelivered to consumers", (p) => p.c.redeliver),
  global("rabbitmq_global_messages_acknowledged_total", "counter", "Total number of messages acknowledged by consumers", (p) => p.c.ack),
];

const COUNTED = ["publish", "receivedConfirm", "routed", "dropUnroutable", "confirm", "deliver", "deliverNoAck", "redeliver", "ack"] as const;

/** Every protocol's figures, AMQP 0-9-1 first, then the others by label. */
function protocolFigures(s: ScrapeState): Array<[string, ProtocolFigures]> {
  const b = s.broker.stats;
  const amqp: Record<(typeof COUNTED)[number], number> = { publish: b.publish, receivedConfirm: b.receivedConfirm, routed: b.routed, dropUnroutable: b.dropUnroutable, confirm: b.confirm, deliver: b.deliver, deliverNoAck: b.deliverNoAck, redeliver: b.redeliver, ack: b.ack };
  const others: Array<[string, ProtocolFigures]> = [];
  for (const [label, c] of [...b.protocols].sort(([x], [y]) => (x < y ? -1 : 1))) {
    for (const k of COUNTED) amqp[k] -= c[k];
    others.push([label, { consumers: c.consumers, publishers: c.publishers, c, get: 0, getNoAck: 0, getEmpty: 0, returnUnroutable: 0 }]);
  }
  // AMQP 0-9-1's own channels: an MQTT connection lists its session channel too (its consumers are MQTT's).
  const channels = s.connections().filter((c) => c.protocol === "AMQP 0-9-1").flatMap((c) => c.channels);
  let consumers = 0;
  for (const ch of channels) consumers += ch.consumerCount;
  const publishers = channels.filter((ch) => ch.stats.publish > 0).length;
  return [["amqp091", { consumers, publishers, c: amqp, get: b.get, getNoAck: b.getNoAck, getEmpty: b.getEmpty, returnUnroutable: b.returnUnroutable }], ...others];
}

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
  const protocols = protocolFigures(s);
  for (const f of GLOBAL) {
    out.family(f.name, f.type, f.help);
    for (const [label, p] of protocols) out.sample(f.name, labelPair("protocol", label), f.value(p));
  }
}

function writeFigures(out: Exposition, s: ScrapeState, figures: readonly Figure[], labels: string): void {
  for (const f of figures) {
    out.family(f.name, f.type, f.help);
    out.sample(f.name, labels, f.value(s));
  }
}
