/**
 * The ports of `coney --workers N`. Client listeners (AMQP, AMQPS, HTTP, MQTT, MQTTS, Web MQTT,
 * STOMP, STOMPS, Web STOMP, stream, stream TLS) are shared: every worker listens on the same
 * port and node:cluster's primary hands accepted connections out round-robin. The Prometheus
 * listener is not shared: a scrape must reach one node each time, as each RabbitMQ node has its
 * own, so worker i listens on `prometheus port + i` (docs/CLUSTERING.md). Each worker also has a
 * stream port of its own, `stream port + 1 + i`, which its stream Metadata names as the leader of
 * its streams (RabbitMQ's way: a stream client connects to the leader's node; docs/CLUSTERING.md
 * "Streams across the workers").
 *
 * Port 0 cannot be left to the workers: node:cluster keys a shared handle by address and port, so
 * every `listen(0)` of one worker would ask for the same handle (one port for AMQP and HTTP). The
 * primary picks the free ports itself, once, and every worker (and its restarts) gets the same.
 * Between the pick and the workers' bind another process could take a port: src/listeners/port-picks.ts says
 * how that is kept rare (picks below the ephemeral range) and harmless (picked again).
 */
import type { ConeyConfig } from "../config/config.js";
import { freePorts } from "../listeners/port-picks.js";

/** The listeners every worker shares. */
export const SHARED_PORTS = ["amqpPort", "amqpsPort", "httpPort", "mqttPort", "mqttsPort", "webMqttPort", "webMqttsPort", "streamPort", "streamTlsPort", "stompPort", "stompsPort", "webStompPort"] as const;

export type SharedPortKey = (typeof SHARED_PORTS)[number];
export type SharedPorts = Pick<ConeyConfig, SharedPortKey>;

export interface WorkerPorts {
  readonly shared: SharedPorts;
  /** Indexed by worker: each one's own Prometheus port, null when Prometheus is off. */
  readonly prometheus: Array<number | null>;
  /** Indexed by worker: each one's own stream port, null when the stream listener is off. */
  readonly stream: Array<number | null>;
  /** Every port picked here (none the user set): one a worker finds taken is picked again. */
  readonly picked: readonly number[];
}

/**
 * Every 0 replaced by a picked port; the Prometheus port spread per worker. `forced` replaces the
 * pick of a shared port (a test's way to hand the workers a port another process holds).
 */
export async function workerPorts(config: ConeyConfig, workers: number, forced: Partial<Record<SharedPortKey, number>> = {}): Promise<WorkerPorts> {
  const zeros = SHARED_PORTS.filter((k) => config[k] === 0);
  const promZero = config.prometheusPort === 0;
  const streamZero = config.streamPort === 0;
  const picked = await freePorts(zeros.length + (promZero ? workers : 0) + (streamZero ? workers : 0), config.bind);
  zeros.forEach((k, i) => (picked[i] = forced[k] ?? picked[i]!));
  const shared = Object.fromEntries(SHARED_PORTS.map((k) => [k, config[k]])) as SharedPorts;
  zeros.forEach((k, i) => ((shared as Record<SharedPortKey, number | null>)[k] = picked[i]!));
  const base = config.prometheusPort;
  const prometheus = Array.from({ length: workers }, (_, i) => (base === null ? null : promZero ? picked[zeros.length + i]! : base + i));
  if (prometheus.some((p) => p !== null && p > 65535)) throw new Error(`--prometheus-port ${base}: worker ${workers - 1} would listen past port 65535 (each worker i listens on the port + i)`);
  const streamBase = config.streamPort;
  const streamAt = zeros.length + (promZero ? workers : 0);
  const stream = Array.from({ length: workers }, (_, i) => (streamBase === null ? null : streamZero ? picked[streamAt + i]! : streamBase + 1 + i));
  if (stream.some((p) => p !== null && p > 65535)) throw new Error(`--stream-port ${streamBase}: worker ${workers - 1} would listen past port 65535 (each worker i has its own stream port, the port + 1 + i)`);
  return { shared, prometheus, stream, picked };
}
