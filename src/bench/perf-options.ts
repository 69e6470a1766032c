/**
 * The load generator's options (RabbitMQ PerfTest's vocabulary where it has a word for it).
 * One set of options describes one run: producers and consumers on some queues of one broker.
 */
export interface PerfOptions {
  /** AMQP URI of the broker under test. */
  readonly uri: string;
  readonly producers: number;
  readonly consumers: number;
  readonly queues: number;
  /** Body size in bytes (at least 8: the first 8 bytes carry the send time). */
  readonly size: number;
  /** delivery_mode 2, into durable queues. */
  readonly persistent: boolean;
  /** Publisher confirms with at most this many unconfirmed per producer; 0 = no confirms. */
  readonly confirm: number;
  readonly prefetch: number;
  readonly autoAck: boolean;
  /** Manual acks: one basic.ack with multiple=true every this many deliveries. */
  readonly multiAckEvery: number;
  /** Producers publish to a fanout exchange bound to every queue instead of to one queue each. */
  readonly fanout: boolean;
  readonly durationSeconds: number;
  /** Prefix of the queue (and exchange) names the run declares and deletes. */
  readonly queuePrefix: string;
  /** Stream queues (`x-queue-type: stream`, durable), consumed from `next`; absent: classic queues. */
  readonly stream?: boolean;
  /**
   * The clients' code: @cloudamqp/amqp-client (the default, what most Node users run), or "raw",
   * the load generator's own lean client (amqp-raw-client.ts), which costs little enough CPU that
   * on a small host the brokers, not the clients, set the pace.
   */
  readonly client?: PerfClient;
  /**
   * A broker of several nodes reached at several addresses (a spread cluster): producer i connects
   * to `producerUris[i % length]`, consumer i to `consumerUris[i % length]`, and queue i is declared
   * through `declareUris[i % length]` (which places it on that node, client-local). Absent: `uri`.
   */
  readonly producerUris?: readonly string[];
  readonly consumerUris?: readonly string[];
  readonly declareUris?: readonly string[];
}

/** The address worker `index` of `role` connects to. */
export function uriOf(o: PerfOptions, role: "producer" | "consumer", index: number): string {
  const list = role === "producer" ? o.producerUris : o.consumerUris;
  return list === undefined || list.length === 0 ? o.uri : list[index % list.length]!;
}

export type PerfClient = "amqp-client" | "raw";

export function parsePerfClient(v: string): PerfClient {
  if (v === "amqp-client" || v === "raw") return v;
  throw new Error(`unknown client ${v}: amqp-client or raw`);
}

export const DEFAULT_PERF_OPTIONS: PerfOptions = {
  uri: "amqp://guest:guest@127.0.0.1:5672",
  producers: 1,
  consumers: 1,
  queues: 1,
  size: 16,
  persistent: false,
  confirm: 0,
  prefetch: 1000,
  autoAck: false,
  multiAckEvery: 100,
  fanout: false,
  durationSeconds: 10,
  queuePrefix: "perf",
};

export const queueName = (o: PerfOptions, i: number): string => `${o.queuePrefix}-q-${i}`;
export const fanoutName = (o: PerfOptions): string => `${o.queuePrefix}-fanout`;
