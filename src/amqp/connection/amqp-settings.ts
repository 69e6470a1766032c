/** The AMQP listener's settings, shared by every connection it accepts. */
import type { ResourceAlarms } from "../../broker/index.js";
import type { TokenVerifier } from "../../auth/oauth/token-verifier.js";
import type { LoginThrottle } from "../../auth/login-throttle.js";
import type { Duplex } from "node:stream";
import type { SlabTails } from "../../listeners/slab-reads.js";

export interface AmqpSettings {
  readonly channelMax: number;
  readonly frameMax: number;
  readonly heartbeat: number;
  readonly maxMessageSize: number;
  /** RabbitMQ's consumer_timeout: ms a delivery may stay unacknowledged before its channel is closed; 0 = none. */
  readonly consumerTimeout?: number;
  /** Users that may only connect from loopback addresses (RabbitMQ loopback_users). */
  readonly loopbackUsers: readonly string[];
  /** Seconds a client has to complete the handshake. */
  readonly handshakeTimeout: number;
  readonly clusterName: string;
  /** OAuth 2.0: a password that is a JWT is verified as a token (any user name). Null: passwords only. */
  readonly tokens?: TokenVerifier | null;
  /** Memory and disk alarms; a publishing connection is blocked while one is on. */
  readonly alarms?: ResourceAlarms | null;
  /** Open connections allowed on the node; 0 = no limit. */
  readonly maxConnections?: number;
  /** Failed-login throttling per client address. */
  readonly loginThrottle?: LoginThrottle | null;
  /**
   * Takes over a socket whose protocol header asked for AMQP 1.0 (src/amqp1/amqp1-handover.ts),
   * with the bytes read so far and the slabs the socket reads into (null: none that come back to
   * a pool); absent: such a header is refused like any other wrong one.
   */
  readonly amqp10Handover?: ((socket: Duplex, firstBytes: Buffer, tls: boolean, tails: SlabTails | null) => void) | null;
}

/** The configured node limit, lowered to the socket limit the descriptor limit allows (ResourceAlarms.socketLimit); 0 = none. */
export function nodeConnectionLimit(settings: AmqpSettings): number {
  const configured = settings.maxConnections ?? 0;
  const sockets = settings.alarms?.socketLimit ?? Infinity;
  if (sockets === Infinity) return configured;
  const bySockets = Math.max(1, sockets);
  return configured > 0 ? Math.min(configured, bySockets) : bySockets;
}
