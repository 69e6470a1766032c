import type { DeathReason } from "./dead-letter.js";

/**
 * Broker-wide counters, incremented where the events happen (no sampling lag). The management
 * API turns them into message_stats and churn_rates; rates come from periodic samples.
 */
export class BrokerStats {
  publish = 0;
  deliver = 0;
  deliverNoAck = 0;
  get = 0;
  getNoAck = 0;
  ack = 0;
  confirm = 0;
  redeliver = 0;
  returnUnroutable = 0;
  dropUnroutable = 0;
  connectionCreated = 0;
  connectionClosed = 0;
  channelCreated = 0;
  channelClosed = 0;
  queueDeclared = 0;
  queueCreated = 0;
  queueDeleted = 0;
  // Read by the Prometheus endpoint (src/metrics); each is one increment where its event happens.
  /** Published messages that reached at least one queue (RabbitMQ's messages_routed). */
  routed = 0;
  /** basic.get that found the queue empty. */
  getEmpty = 0;
  /** Messages published on channels in confirm mode (RabbitMQ's messages_received_confirm). */
  receivedConfirm = 0;
  /** AMQP logins tried, accepted and refused (RabbitMQ's auth_attempts). */
  authAttempts = 0;
  authSucceeded = 0;
  authFailed = 0;
  /** Messages that died in a queue (expired, rejected, over max-length, past the delivery limit), by queue type and whether they were dead-lettered. */
  readonly deadLettered = new DeathCounts();
  /** Sizes of published message bodies (RabbitMQ 3.13+'s message_size_bytes, which its Overview dashboard charts). */
  readonly messageSizes = new MessageSizeHistogram();
  /**
   * The share of the counters above that protocols other than AMQP 0-9-1 brought, by RabbitMQ's
   * protocol label (`mqtt310`, `mqtt311`, `mqtt50`): the totals above count every message, and
   * AMQP's share is what the others leave. A protocol registers its counters when it starts, so
   * they show (at 0) before its first connection, as RabbitMQ initialises them.
   */
  readonly protocols = new Map<string, ProtocolCounters>();

  /** The counters of a protocol, made on first use. */
  protocol(name: string): ProtocolCounters {
    let c = this.protocols.get(name);
    if (c === undefined) this.protocols.set(name, (c = new ProtocolCounters()));
    return c;
  }
}

/** One protocol's part of the broker-wide counters (RabbitMQ's rabbit_global_counters per protocol). */
export class ProtocolCounters {
  publish = 0;
  receivedConfirm = 0;
  routed = 0;
  dropUnroutable = 0;
  confirm = 0;
  deliver = 0;
  deliverNoAck = 0;
  redeliver = 0;
  ack = 0;
  /** Connections that have published (RabbitMQ's publishers gauge). */
  publishers = 0;
  /** Connections with at least one subscription (RabbitMQ's consumers gauge for MQTT). */
  consumers = 0;
}

const REASON_INDEX: Readonly<Record<DeathReason, number>> = { expired: 0, rejected: 1, maxlen: 2, delivery_limit: 3 };

/** Deaths by queue type × (dead-lettered or dropped) × reason (RabbitMQ's dead_lettered counters). */
export class DeathCounts {
  private readonly counts = new Float64Array(2 * 2 * 4);

  add(type: "classic" | "quorum", deadLettered: boolean, reason: DeathReason): void {
    this.counts[this.index(type, deadLettered, reason)]!++;
  }

  get(type: "classic" | "quorum", deadLettered: boolean, reason: DeathReason): number {
    return this.counts[this.index(type, deadLettered, reason)]!;
  }

  private index(type: "classic" | "quorum", deadLettered: boolean, reason: DeathReason): number {
    return ((type === "quorum" ? 2 : 0) + (deadLettered ? 1 : 0)) * 4 + REASON_INDEX[reason];
  }
}

/**
 * Published body sizes in RabbitMQ's buckets (upper bounds, bytes; the last is +Inf). Counts are
 * per bucket, not cumulative: observe() is a few comparisons and two additions, no allocation;
 * the exposition accumulates them at scrape time.
 */
export const MESSAGE_SIZE_BOUNDS: readonly number[] = [100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 50_000_000, 100_000_000];

export class MessageSizeHistogram {
  readonly counts = new Float64Array(MESSAGE_SIZE_BOUNDS.length + 1);
  sum = 0;

  observe(size: number): void {
    // Unrolled against the fixed bounds: most messages stop at the first or second test.
    const i = size <= 100 ? 0 : size <= 1_000 ? 1 : size <= 10_000 ? 2 : size <= 100_000 ? 3 : size <= 1_000_000 ? 4 : size <= 10_000_000 ? 5 : size <= 50_000_000 ? 6 : size <= 100_000_000 ? 7 : 8;
    this.counts[i]!++;
    this.sum += size;
  }
}
