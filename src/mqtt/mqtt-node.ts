/**
 * What every MQTT connection of this node shares, over TCP and WebSocket alike: the broker, the
 * MQTT settings, the resource alarms, the retained-message store, and the client-id registry that makes a second
 * CONNECT with a client id in use take the session over (MQTT 3.1.1 §3.1.4, per vhost as in
 * RabbitMQ).
 */
import type { LoginThrottle } from "../auth/login-throttle.js";
import type { TokenVerifier } from "../auth/oauth/token-verifier.js";
import type { Broker, Message, ResourceAlarms } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import type { CertLoginFrom } from "../tls/cert-login-name.js";
import { supersedes, type ClientIdClaim, type ClientIdPeers } from "./client-id-peers.js";
import { Qos2StateStore } from "./qos2-state-store.js";
import { RetainedStore } from "./retained-store.js";
import type { ReplicatedFiles } from "./saved-json-file.js";
import { SharedQueueIndex } from "./shared-queue-index.js";

export interface MqttSettings {
  /** mqtt.vhost: the vhost when the user name names none ("vhost:user"). */
  readonly vhost: string;
  /** mqtt.exchange: the topic exchange topics map onto. */
  readonly exchange: string;
  readonly allowAnonymous: boolean;
  readonly defaultUser: string;
  readonly defaultPass: string;
  /** mqtt.prefetch: unacknowledged QoS 1 deliveries per connection. */
  readonly prefetch: number;
  readonly loopbackUsers: readonly string[];
  /** Largest packet accepted after CONNECT (bytes); before it, 64 KiB as RabbitMQ. */
  readonly maxPacketSize: number;
  /** Seconds a CONNECT may take to arrive after the socket opens. */
  readonly connectTimeout: number;
  /** Open connections allowed on the node (AMQP and MQTT together); 0 = no limit. */
  readonly maxConnections: number;
  readonly loginThrottle: LoginThrottle | null;
  /** OAuth 2.0 token verification, when configured: a JWT as password logs in by token. */
  readonly tokens: TokenVerifier | null;
  /** mqtt.topic_alias_maximum: the Topic Alias Maximum announced to MQTT 5 clients (0: none). */
  readonly topicAliasMaximum: number;
  /** mqtt.receive_maximum: QoS 1 and 2 PUBLISH packets an MQTT 5 client may have unacknowledged (announced; more → 0x93). */
  readonly receiveMaximum: number;
  /** mqtt.server_keep_alive: the longest keep-alive an MQTT 5 client is granted (seconds; 0: no cap). */
  readonly serverKeepAlive: number;
  /** mqtt.ssl_cert_login: an MQTTS client without credentials logs in as its certificate's name. */
  readonly sslCertLogin: boolean;
  readonly sslCertLoginFrom: CertLoginFrom;
}

/** The longest session expiry granted (RabbitMQ's mqtt.max_session_expiry_interval_seconds default). */
export const MAX_SESSION_EXPIRY_SECONDS = 86_400;

/** RabbitMQ's protocol label of an MQTT version in its global counters (Prometheus). */
export function protocolLabel(protocolVersion: number): string {
  return protocolVersion === 5 ? "mqtt50" : protocolVersion === 3 ? "mqtt310" : "mqtt311";
}

/** One session holder: what the registry needs of a connection to take its client id over. */
export interface SessionHolder {
  takenOver(): void;
}

export class MqttNode {
  readonly retained: RetainedStore;
  /** The sessions' QoS 2 packet-identifier state (saved beside the retained messages). */
  readonly qos2: Qos2StateStore;
  /**
   * Messages published with RETAIN, for subscriptions with Retain As Published (MQTT 5): only
   * retained publishes are added, and entries go with their messages.
   */
  readonly publishedRetained = new WeakSet<Message>();
  /** Each client id's holder, with its claim (whose time orders it against another worker's claim). */
  private readonly sessions = new Map<string, { readonly holder: SessionHolder; readonly claim: ClientIdClaim }>();
  /** The shared subscriptions' queues of each vhost (shared-subscriptions.ts). */
  readonly sharedQueues = new SharedQueueIndex();

  constructor(
    readonly broker: Broker,
    readonly settings: MqttSettings,
    /** Where retained messages are saved; null: kept in memory only. */
    dataDir: string | null,
    readonly log: Logger,
    /** Memory and disk alarms: a publisher is not read while one is on (as AMQP publishers). */
    readonly alarms: ResourceAlarms | null = null,
    /** A cluster leader's: the retained messages and QoS 2 state go to the followers too. */
    replicated: ReplicatedFiles | null = null,
    /** `coney --workers N`: the other workers, where a client id's old connection may be. */
    private readonly peers: ClientIdPeers | null = null,
  ) {
    this.retained = new RetainedStore(dataDir, log, replicated);
    this.qos2 = new Qos2StateStore(dataDir, log, replicated);
    // Shown (at 0) before the first connection, as RabbitMQ initialises them when the plugin starts.
    for (const v of [3, 4, 5]) broker.stats.protocol(protocolLabel(v));
    peers?.onClaimed((claim) => this.claimedElsewhere(claim));
  }

  /** Registers `holder` for the client id; the previous holder, if any, is taken over first. */
  claim(vhost: string, clientId: string, holder: SessionHolder): void {
    const key = `${vhost}\u0000${clientId}`;
    const previous = this.sessions.get(key);
    const claim: ClientIdClaim = { vhost, clientId, at: Date.now(), node: this.broker.connections.node };
    this.sessions.set(key, { holder, claim });
    if (previous !== undefined && previous.holder !== holder) previous.holder.takenOver();
    this.peers?.claimed(claim);
  }

  /** Closes, on every other worker, a holder of the client id (see ClientIdPeers.takeOver); null when none can hold it. */
  takeOverElsewhere(vhost: string, clientId: string): Promise<void> | null {
    const takeOver = this.peers?.takeOver;
    if (takeOver === undefined) return null;
    return takeOver.call(this.peers, { vhost, clientId, at: Date.now(), node: this.broker.connections.node });
  }

  /** Another worker's connection claimed a client id: a holder of it here that claimed it earlier is taken over. */
  private claimedElsewhere(claim: ClientIdClaim): void {
    const key = `${claim.vhost}\u0000${claim.clientId}`;
    const held = this.sessions.get(key);
    if (held === undefined || !supersedes(claim, held.claim)) return;
    this.sessions.delete(key);
    held.holder.takenOver();
  }

  /** Whether `holder` is the connection holding the client id's session. */
  holds(vhost: string, clientId: string, holder: SessionHolder): boolean {
    return this.sessions.get(`${vhost}\u0000${clientId}`)?.holder === holder;
  }

  release(vhost: string, clientId: string, holder: SessionHolder): void {
    const key = `${vhost}\u0000${clientId}`;
    if (this.sessions.get(key)?.holder === holder) this.sessions.delete(key);
  }

  close(): void {
    this.retained.flush();
    this.qos2.flush();
  }
}
