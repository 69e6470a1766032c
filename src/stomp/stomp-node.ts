/**
 * What every STOMP connection of a node shares: the broker, the settings (rabbitmq_stomp's keys,
 * docs/STOMP.md), the logger. Holds no connection state; one per node, made by stomp-startup.ts.
 */
import type { LoginThrottle } from "../auth/login-throttle.js";
import type { TokenVerifier } from "../auth/oauth/token-verifier.js";
import type { Broker } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import type { CertLoginFrom } from "../tls/cert-login-name.js";
import type { FrameLimits } from "./frame-parser.js";

export interface StompSettings {
  /** stomp.default_user / default_pass: CONNECT without login and passcode logs in as it; null: refused. */
  readonly defaultUser: string | null;
  readonly defaultPass: string;
  /** stomp.implicit_connect: with a default user, a first frame that is not CONNECT logs in. */
  readonly implicitConnect: boolean;
  /** stomp.default_vhost: the vhost of a CONNECT without a host header. */
  readonly defaultVhost: string;
  readonly loopbackUsers: readonly string[];
  /** Seconds the CONNECT may take to arrive after the socket opens. */
  readonly connectTimeout: number;
  /** Open connections allowed on the node; 0 = no limit. */
  readonly maxConnections: number;
  readonly loginThrottle: LoginThrottle | null;
  /** OAuth 2.0 token verification, when configured: a JWT passcode logs in by token. */
  readonly tokens: TokenVerifier | null;
  /** stomp.ssl_cert_login: a TLS client without credentials logs in as its verified certificate's name. */
  readonly sslCertLogin: boolean;
  readonly sslCertLoginFrom: CertLoginFrom;
  /** Frames before CONNECT get the small limits; after it, these. */
  readonly limits: FrameLimits;
}

/** Before CONNECT a client may send only a small frame. */
export const UNAUTHENTICATED_LIMITS: FrameLimits = { maxHeaderBytes: 8192, maxHeaders: 64, maxBodyBytes: 65_536 };

/** The Prometheus label of STOMP's counters (RabbitMQ's rabbitmq_global_* protocol="stomp"). */
export const STOMP_PROTOCOL_LABEL = "stomp";

export class StompNode {
  constructor(
    readonly broker: Broker,
    readonly settings: StompSettings,
    readonly log: Logger,
  ) {
    broker.stats.protocol(STOMP_PROTOCOL_LABEL);
  }
}
