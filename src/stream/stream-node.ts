/**
 * What every stream-protocol connection of a node shares: the broker, the settings (frame max,
 * heartbeat, advertised host and port, login rules), the open connections, and the protocol's
 * counters for Prometheus (RabbitMQ's rabbitmq_global_* families for protocol "stream").
 */
import type { LoginThrottle } from "../auth/login-throttle.js";
import type { TokenVerifier } from "../auth/oauth/token-verifier.js";
import type { Broker, ClusterView, ProtocolCounters, SingleActiveGroups } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import type { CertLoginFrom } from "../tls/cert-login-name.js";
import type { StreamWorkerPorts } from "./stream-worker-ports.js";

export interface StreamSettings {
  /** Frame max proposed in Tune (bytes; 0: no limit). */
  readonly frameMax: number;
  /** Heartbeat proposed in Tune (seconds; 0: none). */
  readonly heartbeat: number;
  /** Told to clients in Open and Metadata; null: this node's host name. */
  readonly advertisedHost: string | null;
  /** null: the port the client connected to. */
  readonly advertisedPort: number | null;
  readonly loopbackUsers: readonly string[];
  readonly maxConnections: number;
  readonly loginThrottle: LoginThrottle | null;
  readonly tokens: TokenVerifier | null;
  /** Seconds a client has to finish the handshake. */
  readonly handshakeTimeout: number;
  /** The node's cluster name, in the server's peer properties. */
  readonly clusterName: string;
  /** Which name of a verified client certificate SASL EXTERNAL logs in as (ssl_cert_login_from). */
  readonly sslCertLoginFrom: CertLoginFrom;
}

export class StreamNode {
  /** Open connections, for the listener to shut down. */
  readonly connections = new Set<{ shutdown(): void }>();
  /** RabbitMQ's global counters for protocol "stream" (rabbitmq_global_*), shown at 0 from the start. */
  readonly counters: ProtocolCounters;
  /** Single-active-consumer groups of the node's streams: the broker's (remote members join them too). */
  get sac(): SingleActiveGroups {
    return this.broker.streamGroups;
  }
  /** Responses other than OK, by code (RabbitMQ's stream protocol error counters). */
  readonly errors = new Map<number, number>();

  constructor(
    readonly broker: Broker,
    readonly settings: StreamSettings,
    readonly log: Logger,
    /** The cluster this node leads: Metadata names its in-sync followers as replicas. Null on a single node. */
    readonly cluster: ClusterView | null = null,
    /** Under `coney --workers N` (this worker's own stream port and the others') and in a spread cluster (every node's): stream-worker-ports.ts; null otherwise. */
    readonly workers: StreamWorkerPorts | null = null,
  ) {
    this.counters = broker.stats.protocol("stream");
  }

  countError(code: number): void {
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
  }

  /**
   * Messages a publisher sent (all expect confirms). The broker's totals count them too: the
   * AMQP 0-9-1 figures are the totals less the other protocols', and the overview shows all.
   */
  received(n: number): void {
    this.counters.publish += n;
    this.counters.receivedConfirm += n;
    this.broker.stats.publish += n;
    this.broker.stats.receivedConfirm += n;
  }

  confirmed(n: number): void {
    this.counters.confirm += n;
    this.broker.stats.confirm += n;
  }

  delivered(n: number): void {
    this.counters.deliver += n;
    this.broker.stats.deliver += n;
  }
}
