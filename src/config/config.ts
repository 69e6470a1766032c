/**
 * Broker configuration with RabbitMQ's defaults. Loaded by load-config.ts from flags,
 * environment variables and an optional JSON file (flags win, then env, then file).
 */
import { hostname } from "node:os";
import type { LogLevel } from "../logging/logger.js";
import type { LogFormatChoice } from "../logging/log-format.js";

/** One chart-history retention level: a point every `intervalSeconds`, kept for `ageSeconds`. */
export interface RetentionLevelSetting {
  readonly ageSeconds: number;
  readonly intervalSeconds: number;
}

export interface ConeyConfig {
  /** AMQP 0-9-1 listener; 0 binds an ephemeral port. */
  amqpPort: number;
  /** Management HTTP API listener; 0 binds an ephemeral port, null disables it. */
  httpPort: number | null;
  /** Prometheus listener (RabbitMQ's rabbitmq_prometheus port); 0 binds an ephemeral port, null disables it. */
  prometheusPort: number | null;
  /** Address to bind; "" binds every interface (IPv4 and IPv6). */
  bind: string;
  dataDir: string;
  /**
   * Keep everything in memory: no data dir, no files written (definitions, messages, MQTT retained
   * messages live as long as the process). For tests and throwaway CI services; `coney --in-memory`.
   */
  inMemory: boolean;
  defaultUser: string;
  defaultPass: string;
  defaultVhost: string;
  /** Users allowed to connect only from loopback addresses (RabbitMQ loopback_users). */
  loopbackUsers: string[];
  logLevel: LogLevel | "silent";
  /** Log lines as text or JSON; "auto": text on a terminal, JSON otherwise (src/logging/log-format.ts). */
  logFormat: LogFormatChoice;
  heartbeat: number;
  frameMax: number;
  channelMax: number;
  maxMessageSize: number;
  /** The message store's segment size in bytes (RabbitMQ's msg_store_file_size_limit). */
  msgStoreFileSizeLimit: number;
  /**
   * Queue groups (docs/CLUSTERING.md): stores kept apart in the data dir, one per group. Fixed
   * when the data dir is created; null = what the data dir has (1 for a new one).
   */
  queueGroups: number | null;
  handshakeTimeout: number;
  /** RabbitMQ's consumer_timeout: ms a delivery may stay unacknowledged before its channel is closed; 0 = none. */
  consumerTimeout: number;
  /** The cluster's name (reported to clients); with etcd also the key prefix shared by its nodes. */
  clusterName: string;
  /** This node's name (`node` in API records, its name in etcd). */
  nodeName: string;
  /** Broker processes on this machine (`coney --workers N`, src/workers; docs/CLUSTERING.md); 1: this process is the broker. */
  workers: number;
  /** etcd client URLs; empty = a single node with no cluster (docs/CLUSTERING.md). */
  etcdEndpoints: string[];
  /**
   * With etcd: `replicated` (one leader runs every queue, followers copy its store) or `spread`
   * (a preview: every node serves and homes its own queues; docs/CLUSTERING.md, "A spread cluster over etcd").
   */
  clusterMode: "replicated" | "spread";
  /** RabbitMQ's queue_leader_locator: where a new queue is placed in a spread cluster (`client-local` or `balanced`). */
  queueLeaderLocator: string;
  /** Followers that must hold a message on disk before it is confirmed; null = a majority of known nodes minus the leader. */
  minInSyncReplicas: number | null;
  /** ms a publisher confirm waits for a silent in-sync follower before that follower leaves the in-sync set (docs/CLUSTERING.md, "Falling behind"). */
  replicaAckTimeout: number;
  /** Replication listener of a cluster node (leader → followers); 0 binds an ephemeral port. */
  clusterPort: number;
  /** The address other cluster nodes use to reach this node's ports. */
  advertiseAddress: string;
  /** Replication over TLS: the leader presents --tls-cert, followers verify it against --tls-ca (docs/CLUSTERING.md). */
  clusterTls: boolean;
  /** Seconds a node's etcd lease lives without renewal: about the failover time. */
  etcdLeaseTtl: number;
  /** A RabbitMQ definitions file imported at every boot (RabbitMQ's load_definitions). */
  loadDefinitions: string | null;
  /** OAuth 2.0: the resource server id tokens must name in `aud` and prefix their scopes with; null disables OAuth. */
  oauthResourceServerId: string | null;
  /** OAuth 2.0 verification keys, "kid=file": PEM public keys (RS256/ES256) or JWKS files. */
  oauthKeyFiles: string[];
  /** OAuth 2.0 HS256 shared secrets, "kid=secret". */
  oauthHmacSecrets: string[];
  /** OAuth 2.0: the identity provider's JWKS endpoint (RabbitMQ's auth_oauth2.jwks_url); null for none. */
  oauthJwksUrl: string | null;
  /**
   * The management UI's OAuth 2.0 login (RabbitMQ's management.oauth_enabled, and its older name
   * management.enable_uaa), with the client id and the identity provider's URL it sends users to
   * (management.oauth_client_id / uaa_client_id, management.oauth_provider_url / uaa_location).
   */
  managementOauthEnabled: boolean;
  managementOauthClientId: string;
  managementOauthProviderUrl: string;
  /**
   * Minutes without activity after which the web UI logs its user out (RabbitMQ's
   * management.login_session_timeout). null: not configured, and the UI keeps RabbitMQ's default
   * of 480 minutes (8 hours); /api/whoami names it only when configured, as RabbitMQ does.
   */
  loginSessionTimeout: number | null;
  /**
   * How long the management API keeps chart history (RabbitMQ's management.sample_retention_policies):
   * per policy, levels of points every `intervalSeconds` kept for `ageSeconds`. null for a policy:
   * RabbitMQ's default levels (src/http/sample-history.ts).
   */
  sampleRetention: { global: RetentionLevelSetting[] | null; basic: RetentionLevelSetting[] | null };
  /** TLS: PEM certificate, private key and CA bundle; the certificate turns on the AMQPS listener. */
  tlsCert: string | null;
  tlsKey: string | null;
  tlsCa: string | null;
  /** Ask clients for a certificate and refuse those the CA did not sign (RabbitMQ verify_peer + fail_if_no_peer_cert). */
  tlsVerifyPeer: boolean;
  /** AMQPS listener, started when tlsCert is set. */
  amqpsPort: number;
  /** Serve the management API over HTTPS with the same certificate. */
  httpTls: boolean;
  /** Management API requests per minute per user (per address before login); 0 turns the limit off. */
  httpRateLimit: number;
  /** Largest management API request body, bytes; larger ones get 413. */
  httpBodyLimit: number;
  /** Memory alarm: this process's RSS above this fraction of total memory (RabbitMQ vm_memory_high_watermark). */
  memHighWatermark: number;
  /** Disk alarm: free bytes on the data dir's file system below this (RabbitMQ disk_free_limit). */
  diskFreeLimit: number;
  /** Milliseconds between memory and disk checks. */
  alarmInterval: number;
  /** Open AMQP connections allowed in total; 0 = no limit. */
  maxConnections: number;
  /** Native stream protocol listener (stream.listeners.tcp.default, 5552); 0 binds an ephemeral port, null disables it. */
  streamPort: number | null;
  /** The stream protocol over TLS (stream.listeners.ssl.default, 5551), started when tlsCert is set; null disables it. */
  streamTlsPort: number | null;
  /** Host and port stream clients are told to connect to (stream.advertised_host / advertised_port); null: the listener's own. */
  streamAdvertisedHost: string | null;
  streamAdvertisedPort: number | null;
  /** MQTT listener (RabbitMQ's mqtt.listeners.tcp.default); 0 binds an ephemeral port, null disables it. */
  mqttPort: number | null;
  /** MQTT over TLS (mqtt.listeners.ssl.default), started when tlsCert is set; null disables it. */
  mqttsPort: number | null;
  /** MQTT over WebSocket (rabbitmq_web_mqtt's web_mqtt.tcp.port, path /ws); null disables it. */
  webMqttPort: number | null;
  /** MQTT over secure WebSocket (web_mqtt.ssl.port, path /ws, the node's certificate); off unless set, as in RabbitMQ. */
  webMqttsPort: number | null;
  /** The vhost MQTT clients land in when their user name names none (mqtt.vhost). */
  mqttVhost: string;
  /** The topic exchange MQTT topics map onto (mqtt.exchange). */
  mqttExchange: string;
  /** MQTT CONNECT without credentials logs in as mqttDefaultUser (mqtt.allow_anonymous). */
  mqttAllowAnonymous: boolean;
  mqttDefaultUser: string;
  mqttDefaultPass: string;
  /** QoS 1 deliveries an MQTT client may have unacknowledged (mqtt.prefetch). */
  mqttPrefetch: number;
  /** The Topic Alias Maximum announced to MQTT 5 clients (mqtt.topic_alias_maximum; 0 = no aliases). */
  mqttTopicAliasMaximum: number;
  /** The Receive Maximum announced to MQTT 5 clients and enforced with 0x93 (mqtt.receive_maximum; 1..65535). */
  mqttReceiveMaximum: number;
  /** The longest keep-alive granted to an MQTT 5 client, told as Server Keep Alive (mqtt.server_keep_alive, seconds; 0 = the client's). */
  mqttServerKeepAlive: number;
  /** MQTTS clients that send no user name and password log in as their verified certificate's name (mqtt.ssl_cert_login). */
  mqttSslCertLogin: boolean;
  /** STOMP listener (rabbitmq_stomp's stomp.listeners.tcp.default, 61613); 0 binds an ephemeral port, null disables it. */
  stompPort: number | null;
  /** STOMP over TLS (stomp.listeners.ssl.default, 61614), started when tlsCert is set; null disables it. */
  stompsPort: number | null;
  /** STOMP over WebSocket (rabbitmq_web_stomp's web_stomp.tcp.port, 15674, path /ws); null disables it. */
  webStompPort: number | null;
  /** STOMP CONNECT without login and passcode logs in as this user (stomp.default_user; null: refused). */
  stompDefaultUser: string | null;
  stompDefaultPass: string;
  /** AMQP 1.0 SASL ANONYMOUS logs in as this user (RabbitMQ 4's anonymous_login_user; "none": not offered). */
  anonymousLoginUser: string;
  anonymousLoginPass: string;
  /**
   * An AMQP 1.0 session's incoming window in transfer frames (RabbitMQ 4's max_incoming_window,
   * 400 there); 65535 here, which the AMQP 1.0 throughput figures were measured with.
   */
  amqp1MaxIncomingWindow: number;
  /** With a default user, a first frame other than CONNECT logs in implicitly (stomp.implicit_connect). */
  stompImplicitConnect: boolean;
  /** The vhost of a STOMP CONNECT without a host header (stomp.default_vhost). */
  stompDefaultVhost: string;
  /** STOMP-over-TLS clients without login and passcode log in as their verified certificate's name (stomp.ssl_cert_login). */
  stompSslCertLogin: boolean;
  /** Which name of a client certificate is the user name (RabbitMQ's ssl_cert_login_from). */
  sslCertLoginFrom: "distinguished_name" | "common_name";
  /** amq.rabbitmq.event (README, "Event exchange"): declared and fed with the broker's events. */
  eventExchange: boolean;
  /** Its vhost (RabbitMQ's event_exchange.vhost); null = the default vhost. */
  eventExchangeVhost: string | null;
  /** The audit trail's retention (README, "Audit trail"): total bytes kept, oldest files dropped first. */
  auditMaxBytes: number;
  /** Entries older than this many seconds are dropped (a whole file once its newest entry is that old). */
  auditMaxAge: number;
  /** A new audit file starts past this size. */
  auditFileSizeLimit: number;
  /** Milliseconds between the audit file's batched fsyncs. */
  auditSyncInterval: number;
  /** The configuration file this was read from (--config), null for none; the node record lists it. */
  configFile: string | null;
}

export function defaultConfig(): ConeyConfig {
  return {
    amqpPort: 5672,
    httpPort: 15672,
    prometheusPort: 15692,
    bind: "",
    dataDir: "./coney-data",
    inMemory: false,
    defaultUser: "guest",
    defaultPass: "guest",
    defaultVhost: "/",
    loopbackUsers: ["guest"],
    logLevel: "info",
    logFormat: "auto",
    heartbeat: 60,
    frameMax: 131072,
    channelMax: 2047,
    maxMessageSize: 128 * 1024 * 1024,
    msgStoreFileSizeLimit: 64 * 1024 * 1024,
    queueGroups: null,
    eventExchange: true,
    eventExchangeVhost: null,
    auditMaxBytes: 16 * 1024 * 1024,
    auditMaxAge: 90 * 24 * 3600,
    auditFileSizeLimit: 1024 * 1024,
    auditSyncInterval: 200,
    handshakeTimeout: 10,
    consumerTimeout: 1_800_000,
    clusterName: `coney@${hostname()}`,
    nodeName: `coney@${hostname()}`,
    workers: 1,
    etcdEndpoints: [],
    clusterMode: "replicated",
    queueLeaderLocator: "client-local",
    minInSyncReplicas: null,
    // Well under the 1 s a confirm gap may last when a node is cut (issue 42's fault rule).
    replicaAckTimeout: 400,
    clusterPort: 0,
    advertiseAddress: hostname(),
    clusterTls: false,
    etcdLeaseTtl: 5,
    loadDefinitions: null,
    oauthResourceServerId: null,
    oauthKeyFiles: [],
    oauthHmacSecrets: [],
    oauthJwksUrl: null,
    managementOauthEnabled: false,
    managementOauthClientId: "",
    managementOauthProviderUrl: "",
    loginSessionTimeout: null,
    sampleRetention: { global: null, basic: null },
    tlsCert: null,
    tlsKey: null,
    tlsCa: null,
    tlsVerifyPeer: false,
    amqpsPort: 5671,
    httpTls: false,
    httpRateLimit: 60_000,
    httpBodyLimit: 20_000_000,
    memHighWatermark: 0.4,
    diskFreeLimit: 50_000_000,
    alarmInterval: 1000,
    maxConnections: 0,
    streamPort: 5552,
    streamTlsPort: 5551,
    streamAdvertisedHost: null,
    streamAdvertisedPort: null,
    mqttPort: 1883,
    mqttsPort: 8883,
    webMqttPort: 15675,
    webMqttsPort: null,
    mqttVhost: "/",
    mqttExchange: "amq.topic",
    mqttAllowAnonymous: false,
    mqttDefaultUser: "guest",
    mqttDefaultPass: "guest",
    mqttPrefetch: 10,
    mqttTopicAliasMaximum: 16,
    mqttReceiveMaximum: 1024,
    mqttServerKeepAlive: 60,
    mqttSslCertLogin: false,
    stompPort: 61613,
    stompsPort: 61614,
    webStompPort: 15674,
    stompDefaultUser: null,
    stompDefaultPass: "guest",
    anonymousLoginUser: "guest",
    anonymousLoginPass: "guest",
    amqp1MaxIncomingWindow: 65535,
    stompImplicitConnect: false,
    stompDefaultVhost: "/",
    stompSslCertLogin: false,
    sslCertLoginFrom: "distinguished_name",
    configFile: null,
  };
}
