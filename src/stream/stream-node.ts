/**
 * What every stream-protocol connection of a node shares: the broker, the settings (frame max,
 * heartbeat, advertised host and port, login rules), the open connections, and the protocol's
 * counters for Prometheus (RabbitMQ's rabbitmq_global_* families for protocol "stream").
 */
import type { LoginThrottle } from "../auth/login-throttle.js";
import type { TokenVerifier } from "../auth/oauth/token-verifier.js";
import type { Broker } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";

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
}

/** RabbitMQ's per-protocol global counters (rabbitmq_global_messages_*, publishers, consumers). */
export interface StreamCounters {
  messagesReceived: number;
  messagesConfirmed: number;
  messagesErrored: number;
  messagesDelivered: number;
  publishers: number;
  consumers: number;
  /** Responses by code other than OK (RabbitMQ's protocol error counters). */
  readonly errors: Map<number, number>;
}

export class StreamNode {
  /** Open connections, for the listener to shut down. */
  readonly connections = new Set<{ shutdown(): void }>();
  readonly counters: StreamCounters = { messagesReceived: 0, messagesConfirmed: 0, messagesErrored: 0, messagesDelivered: 0, publishers: 0, consumers: 0, errors: new Map() };

  constructor(
    readonly broker: Broker,
    readonly settings: StreamSettings,
    readonly log: Logger,
  ) {}

  countError(code: number): void {
    this.counters.errors.set(code, (this.counters.errors.get(code) ?? 0) + 1);
  }
}
