/**
 * Reads configuration from, in increasing precedence: defaults, a config file (--config or
 * CONEY_CONFIG: Coney's JSON, or RabbitMQ's rabbitmq.conf format, told apart by extension and
 * content), environment variables (CONEY_*), and command-line flags.
 */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { isLogFormatChoice } from "../logging/log-format.js";
import { isLogLevel } from "../logging/logger.js";
import { defaultConfig, type ConeyConfig } from "./config.js";
import { isRabbitConf, RabbitConfError, readRabbitConf } from "./rabbitmq-conf.js";
import { LEADER_LOCATOR_VALUES } from "../broker/index.js";
import { parseWorkerCount, WORKERS_EXPECTED } from "./workers-setting.js";

type Key = keyof ConeyConfig;

/** A setting with a value it cannot take; the message names the setting and the value. */
export class ConfigError extends Error {}
type Kind = "workers" | "port" | "int" | "number" | "bool" | "string" | "list" | "level" | "log-format" | "nullable-port" | "nullable-string" | "nullable-int";

/** Every setting: its flag, its environment variable, and how to parse it. */
const SETTINGS: ReadonlyArray<{ key: Key; flag: string; env: string; kind: Kind; help: string }> = [
  { key: "amqpPort", flag: "--amqp-port <port>", env: "CONEY_AMQP_PORT", kind: "port", help: "AMQP 0-9-1 port (0 = ephemeral)" },
  { key: "httpPort", flag: "--http-port <port>", env: "CONEY_HTTP_PORT", kind: "nullable-port", help: "management API port (0 = ephemeral, 'off' = disabled)" },
  { key: "prometheusPort", flag: "--prometheus-port <port>", env: "CONEY_PROMETHEUS_PORT", kind: "nullable-port", help: "Prometheus metrics port (0 = ephemeral, 'off' = disabled)" },
  { key: "bind", flag: "--bind <address>", env: "CONEY_BIND", kind: "string", help: "address to listen on (default: all interfaces)" },
  { key: "dataDir", flag: "--data-dir <dir>", env: "CONEY_DATA_DIR", kind: "string", help: "where definitions and messages are stored" },
  { key: "inMemory", flag: "--in-memory [bool]", env: "CONEY_IN_MEMORY", kind: "bool", help: "keep definitions and messages in memory only: no data dir, nothing written to disk" },
  { key: "defaultUser", flag: "--default-user <name>", env: "CONEY_DEFAULT_USER", kind: "string", help: "user created on first boot" },
  { key: "defaultPass", flag: "--default-pass <password>", env: "CONEY_DEFAULT_PASS", kind: "string", help: "its password" },
  { key: "defaultVhost", flag: "--default-vhost <vhost>", env: "CONEY_DEFAULT_VHOST", kind: "string", help: "vhost created on first boot" },
  { key: "loopbackUsers", flag: "--loopback-users <names>", env: "CONEY_LOOPBACK_USERS", kind: "list", help: "comma-separated users allowed only from localhost ('none' for nobody)" },
  { key: "logLevel", flag: "--log-level <level>", env: "CONEY_LOG_LEVEL", kind: "level", help: "debug, info, warn, error or silent" },
  { key: "logFormat", flag: "--log-format <format>", env: "CONEY_LOG_FORMAT", kind: "log-format", help: "text, json or auto (text on a terminal, JSON otherwise)" },
  { key: "heartbeat", flag: "--heartbeat <seconds>", env: "CONEY_HEARTBEAT", kind: "int", help: "heartbeat interval proposed to clients" },
  { key: "consumerTimeout", flag: "--consumer-timeout <ms>", env: "CONEY_CONSUMER_TIMEOUT", kind: "int", help: "ms a delivery may stay unacknowledged before its channel is closed (RabbitMQ's consumer_timeout; 0 = none)" },
  { key: "frameMax", flag: "--frame-max <bytes>", env: "CONEY_FRAME_MAX", kind: "int", help: "largest frame accepted" },
  { key: "channelMax", flag: "--channel-max <n>", env: "CONEY_CHANNEL_MAX", kind: "int", help: "channels per connection" },
  { key: "maxMessageSize", flag: "--max-message-size <bytes>", env: "CONEY_MAX_MESSAGE_SIZE", kind: "int", help: "largest message body accepted" },
  { key: "msgStoreFileSizeLimit", flag: "--msg-store-file-size-limit <bytes>", env: "CONEY_MSG_STORE_FILE_SIZE_LIMIT", kind: "int", help: "message store segment size (a new segment file starts past it)" },
  { key: "queueGroups", flag: "--queue-groups <n>", env: "CONEY_QUEUE_GROUPS", kind: "nullable-int", help: "queue groups, each with its own store under <data-dir>/groups (fixed when the data dir is created; default: as stored, 1 for a new one)" },
  { key: "clusterName", flag: "--cluster-name <name>", env: "CONEY_CLUSTER_NAME", kind: "string", help: "name reported to clients and the API; with etcd, the key prefix its nodes share" },
  { key: "nodeName", flag: "--node-name <name>", env: "CONEY_NODE_NAME", kind: "string", help: "this node's name (default coney@<hostname>)" },
  { key: "etcdEndpoints", flag: "--etcd-endpoints <urls>", env: "CONEY_ETCD_ENDPOINTS", kind: "list", help: "comma-separated etcd URLs: turns on clustering (docs/CLUSTERING.md)" },
  { key: "clusterMode", flag: "--cluster-mode <mode>", env: "CONEY_CLUSTER_MODE", kind: "string", help: "with etcd: 'replicated' (one leader, default) or 'spread' (preview: every node homes its own queues; docs/CLUSTERING.md)" },
  { key: "queueLeaderLocator", flag: "--queue-leader-locator <locator>", env: "CONEY_QUEUE_LEADER_LOCATOR", kind: "string", help: "spread cluster: where new queues are placed, 'client-local' (default) or 'balanced'" },
  { key: "minInSyncReplicas", flag: "--min-in-sync-replicas <n>", env: "CONEY_MIN_IN_SYNC_REPLICAS", kind: "nullable-int", help: "followers that must store a message before it is confirmed (default: majority of nodes minus the leader)" },
  { key: "replicaAckTimeout", flag: "--replica-ack-timeout <ms>", env: "CONEY_REPLICA_ACK_TIMEOUT", kind: "int", help: "ms a confirm waits for a silent in-sync follower before it leaves the in-sync set and confirms go on without it (default 400)" },
  { key: "clusterPort", flag: "--cluster-port <port>", env: "CONEY_CLUSTER_PORT", kind: "port", help: "cluster replication port (0 = ephemeral)" },
  { key: "advertiseAddress", flag: "--advertise-address <host>", env: "CONEY_ADVERTISE_ADDRESS", kind: "string", help: "address other cluster nodes use to reach this one (default: host name)" },
  { key: "clusterTls", flag: "--cluster-tls <bool>", env: "CONEY_CLUSTER_TLS", kind: "bool", help: "replication (and a spread cluster's node links) over TLS with --tls-cert/--tls-key; the connecting node verifies the other against --tls-ca" },
  { key: "etcdLeaseTtl", flag: "--etcd-lease-ttl <seconds>", env: "CONEY_ETCD_LEASE_TTL", kind: "int", help: "etcd lease lifetime: about the failover time" },
  { key: "loadDefinitions", flag: "--load-definitions <file>", env: "CONEY_LOAD_DEFINITIONS", kind: "nullable-string", help: "RabbitMQ definitions file imported at boot" },
  { key: "oauthResourceServerId", flag: "--oauth-resource-server-id <id>", env: "CONEY_OAUTH_RESOURCE_SERVER_ID", kind: "nullable-string", help: "OAuth 2.0 resource server id (turns on bearer tokens)" },
  { key: "oauthKeyFiles", flag: "--oauth-key-files <kid=file,...>", env: "CONEY_OAUTH_KEY_FILES", kind: "list", help: "OAuth 2.0 PEM public keys or JWKS files, each with a key id" },
  { key: "oauthJwksUrl", flag: "--oauth-jwks-url <url>", env: "CONEY_OAUTH_JWKS_URL", kind: "nullable-string", help: "OAuth 2.0 identity provider's JWKS endpoint (keys fetched and refreshed from it)" },
  { key: "managementOauthEnabled", flag: "--management-oauth-enabled [bool]", env: "CONEY_MANAGEMENT_OAUTH_ENABLED", kind: "bool", help: "the management UI logs in through the OAuth 2.0 identity provider (RabbitMQ's management.oauth_enabled / enable_uaa)" },
  { key: "managementOauthClientId", flag: "--management-oauth-client-id <id>", env: "CONEY_MANAGEMENT_OAUTH_CLIENT_ID", kind: "string", help: "the management UI's OAuth 2.0 client id" },
  { key: "managementOauthProviderUrl", flag: "--management-oauth-provider-url <url>", env: "CONEY_MANAGEMENT_OAUTH_PROVIDER_URL", kind: "string", help: "the OAuth 2.0 identity provider the management UI sends users to" },
  { key: "loginSessionTimeout", flag: "--login-session-timeout <minutes>", env: "CONEY_LOGIN_SESSION_TIMEOUT", kind: "nullable-int", help: "minutes without activity before the web UI logs its user out (RabbitMQ's management.login_session_timeout; default 480)" },
  { key: "oauthHmacSecrets", flag: "--oauth-hmac-secrets <kid=secret,...>", env: "CONEY_OAUTH_HMAC_SECRETS", kind: "list", help: "OAuth 2.0 HS256 secrets, each with a key id" },
  { key: "tlsCert", flag: "--tls-cert <file>", env: "CONEY_TLS_CERT", kind: "nullable-string", help: "PEM certificate (turns on AMQPS)" },
  { key: "tlsKey", flag: "--tls-key <file>", env: "CONEY_TLS_KEY", kind: "nullable-string", help: "PEM private key of the certificate" },
  { key: "tlsCa", flag: "--tls-ca <file>", env: "CONEY_TLS_CA", kind: "nullable-string", help: "PEM CA bundle for client certificates" },
  { key: "tlsVerifyPeer", flag: "--tls-verify-peer <bool>", env: "CONEY_TLS_VERIFY_PEER", kind: "bool", help: "require client certificates signed by the CA" },
  { key: "amqpsPort", flag: "--amqps-port <port>", env: "CONEY_AMQPS_PORT", kind: "port", help: "AMQPS port (0 = ephemeral)" },
  { key: "httpTls", flag: "--http-tls <bool>", env: "CONEY_HTTP_TLS", kind: "bool", help: "serve the management API over HTTPS" },
  { key: "httpRateLimit", flag: "--http-rate-limit <n>", env: "CONEY_HTTP_RATE_LIMIT", kind: "int", help: "management API requests per minute per user or address (0 = off)" },
  { key: "httpBodyLimit", flag: "--http-body-limit <bytes>", env: "CONEY_HTTP_BODY_LIMIT", kind: "int", help: "largest management API request body" },
  { key: "memHighWatermark", flag: "--mem-high-watermark <fraction>", env: "CONEY_MEM_HIGH_WATERMARK", kind: "number", help: "memory alarm threshold, fraction of total memory" },
  { key: "diskFreeLimit", flag: "--disk-free-limit <bytes>", env: "CONEY_DISK_FREE_LIMIT", kind: "int", help: "disk alarm threshold, free bytes" },
  { key: "alarmInterval", flag: "--alarm-interval <ms>", env: "CONEY_ALARM_INTERVAL", kind: "int", help: "milliseconds between memory and disk checks" },
  { key: "streamPort", flag: "--stream-port <port>", env: "CONEY_STREAM_PORT", kind: "nullable-port", help: "native stream protocol port (0 = ephemeral, 'off' = disabled)" },
  { key: "streamTlsPort", flag: "--stream-tls-port <port>", env: "CONEY_STREAM_TLS_PORT", kind: "nullable-port", help: "stream protocol over TLS port, with --tls-cert (0 = ephemeral, 'off' = disabled)" },
  { key: "streamAdvertisedHost", flag: "--stream-advertised-host <host>", env: "CONEY_STREAM_ADVERTISED_HOST", kind: "nullable-string", help: "host stream clients are told to connect to (default: the host name)" },
  { key: "streamAdvertisedPort", flag: "--stream-advertised-port <port>", env: "CONEY_STREAM_ADVERTISED_PORT", kind: "nullable-int", help: "port stream clients are told to connect to (default: the listener's)" },
  { key: "mqttPort", flag: "--mqtt-port <port>", env: "CONEY_MQTT_PORT", kind: "nullable-port", help: "MQTT port (0 = ephemeral, 'off' = disabled)" },
  { key: "mqttsPort", flag: "--mqtts-port <port>", env: "CONEY_MQTTS_PORT", kind: "nullable-port", help: "MQTT over TLS port, with --tls-cert (0 = ephemeral, 'off' = disabled)" },
  { key: "webMqttPort", flag: "--web-mqtt-port <port>", env: "CONEY_WEB_MQTT_PORT", kind: "nullable-port", help: "MQTT over WebSocket port, path /ws (0 = ephemeral, 'off' = disabled)" },
  { key: "webMqttsPort", flag: "--web-mqtts-port <port>", env: "CONEY_WEB_MQTTS_PORT", kind: "nullable-port", help: "MQTT over secure WebSocket port, path /ws, with --tls-cert (off unless given)" },
  { key: "mqttVhost", flag: "--mqtt-vhost <vhost>", env: "CONEY_MQTT_VHOST", kind: "string", help: "vhost of MQTT clients whose user name names none" },
  { key: "mqttExchange", flag: "--mqtt-exchange <name>", env: "CONEY_MQTT_EXCHANGE", kind: "string", help: "topic exchange MQTT topics map onto" },
  { key: "mqttAllowAnonymous", flag: "--mqtt-allow-anonymous <bool>", env: "CONEY_MQTT_ALLOW_ANONYMOUS", kind: "bool", help: "MQTT clients without credentials log in as --mqtt-default-user" },
  { key: "mqttDefaultUser", flag: "--mqtt-default-user <name>", env: "CONEY_MQTT_DEFAULT_USER", kind: "string", help: "user of anonymous MQTT clients" },
  { key: "anonymousLoginUser", flag: "--anonymous-login-user <name>", env: "CONEY_ANONYMOUS_LOGIN_USER", kind: "string", help: "user of AMQP 1.0 SASL ANONYMOUS clients ('none': ANONYMOUS not offered)" },
  { key: "anonymousLoginPass", flag: "--anonymous-login-pass <password>", env: "CONEY_ANONYMOUS_LOGIN_PASS", kind: "string", help: "its password" },
  { key: "amqp1MaxIncomingWindow", flag: "--amqp1-max-incoming-window <frames>", env: "CONEY_AMQP1_MAX_INCOMING_WINDOW", kind: "int", help: "an AMQP 1.0 session's incoming window in transfer frames" },
  { key: "mqttDefaultPass", flag: "--mqtt-default-pass <password>", env: "CONEY_MQTT_DEFAULT_PASS", kind: "string", help: "its password" },
  { key: "mqttPrefetch", flag: "--mqtt-prefetch <n>", env: "CONEY_MQTT_PREFETCH", kind: "int", help: "unacknowledged QoS 1 deliveries per MQTT client" },
  { key: "mqttSslCertLogin", flag: "--mqtt-ssl-cert-login <bool>", env: "CONEY_MQTT_SSL_CERT_LOGIN", kind: "bool", help: "MQTTS clients without credentials log in as their certificate's name (needs --tls-verify-peer)" },
  { key: "mqttTopicAliasMaximum", flag: "--mqtt-topic-alias-maximum <n>", env: "CONEY_MQTT_TOPIC_ALIAS_MAXIMUM", kind: "int", help: "topic aliases an MQTT 5 client may set (0 = none)" },
  { key: "mqttReceiveMaximum", flag: "--mqtt-receive-maximum <n>", env: "CONEY_MQTT_RECEIVE_MAXIMUM", kind: "int", help: "unacknowledged QoS 1 and 2 PUBLISH packets an MQTT 5 client may send (1..65535)" },
  { key: "mqttServerKeepAlive", flag: "--mqtt-server-keep-alive <s>", env: "CONEY_MQTT_SERVER_KEEP_ALIVE", kind: "int", help: "longest keep-alive granted to an MQTT 5 client, in seconds (0 = the client's)" },
  { key: "stompPort", flag: "--stomp-port <port>", env: "CONEY_STOMP_PORT", kind: "nullable-port", help: "STOMP port (0 = ephemeral, 'off' = disabled)" },
  { key: "stompsPort", flag: "--stomps-port <port>", env: "CONEY_STOMPS_PORT", kind: "nullable-port", help: "STOMP over TLS port, with --tls-cert (0 = ephemeral, 'off' = disabled)" },
  { key: "webStompPort", flag: "--web-stomp-port <port>", env: "CONEY_WEB_STOMP_PORT", kind: "nullable-port", help: "STOMP over WebSocket port, path /ws (0 = ephemeral, 'off' = disabled)" },
  { key: "eventExchange", flag: "--event-exchange <bool>", env: "CONEY_EVENT_EXCHANGE", kind: "bool", help: "declare amq.rabbitmq.event and publish the broker's events to it" },
  { key: "eventExchangeVhost", flag: "--event-exchange-vhost <vhost>", env: "CONEY_EVENT_EXCHANGE_VHOST", kind: "nullable-string", help: "vhost of amq.rabbitmq.event (default: the default vhost)" },
  { key: "auditMaxBytes", flag: "--audit-max-bytes <bytes>", env: "CONEY_AUDIT_MAX_BYTES", kind: "int", help: "audit trail retention: total size kept (oldest files dropped first)" },
  { key: "auditMaxAge", flag: "--audit-max-age <seconds>", env: "CONEY_AUDIT_MAX_AGE", kind: "int", help: "audit trail retention: entries older than this are dropped" },
  { key: "auditFileSizeLimit", flag: "--audit-file-size-limit <bytes>", env: "CONEY_AUDIT_FILE_SIZE_LIMIT", kind: "int", help: "audit trail: a new file starts past this size" },
  { key: "auditSyncInterval", flag: "--audit-sync-interval <ms>", env: "CONEY_AUDIT_SYNC_INTERVAL", kind: "int", help: "audit trail: milliseconds between batched fsyncs" },
  { key: "maxConnections", flag: "--max-connections <n>", env: "CONEY_MAX_CONNECTIONS", kind: "int", help: "open AMQP connections allowed (0 = no limit)" },
  { key: "workers", flag: "--workers <n>", env: "CONEY_WORKERS", kind: "workers", help: "broker processes sharing the ports ('auto' = one per core); more than 1 is not available yet (issue 42, docs/CLUSTERING.md)" },
];

function parse(kind: Kind, raw: string, name: string): unknown {
  switch (kind) {
    case "port":
    case "nullable-port": {
      if (kind === "nullable-port" && (raw === "off" || raw === "none")) return null;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${name}: '${raw}' is not a port number`);
      return n;
    }
    case "nullable-int":
      return raw === "default" ? null : parse("int", raw, name);
    case "int": {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name}: '${raw}' is not a non-negative integer`);
      return n;
    }
    case "number": {
      const n = Number(raw);
      if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${name}: '${raw}' is not a non-negative number`);
      return n;
    }
    case "bool":
      if (raw === "true" || raw === "1") return true;
      if (raw === "false" || raw === "0") return false;
      throw new ConfigError(`${name}: '${raw}' is not true or false`);
    case "list":
      return raw === "none" ? [] : raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
    case "level":
      if (raw !== "silent" && !isLogLevel(raw)) throw new ConfigError(`${name}: '${raw}' is not a log level`);
      return raw;
    case "workers": {
      const n = parseWorkerCount(raw);
      if (n === null) throw new ConfigError(`${name}: '${raw}' is ${WORKERS_EXPECTED}`);
      return n;
    }
    case "log-format":
      if (!isLogFormatChoice(raw)) throw new ConfigError(`${name}: '${raw}' is not a log format (text, json or auto)`);
      return raw;
    default:
      return raw;
  }
}

/** Parses argv and env into a complete configuration; throws with a readable message on bad input. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): ConeyConfig {
  return loadConfigWithWarnings(argv, env).config;
}

export interface LoadedConfig {
  readonly config: ConeyConfig;
  /** rabbitmq.conf keys Coney does not support (ignored); the broker names them in one warning. */
  readonly unsupported: string[];
}

export function loadConfigWithWarnings(argv: string[], env: NodeJS.ProcessEnv): LoadedConfig {
  const program = new Command("coney")
    .description("Coney: an AMQP 0-9-1 message broker with RabbitMQ's management API")
    .option("--config <file>", "configuration file: JSON (keys as in the README) or RabbitMQ's rabbitmq.conf format")
    .exitOverride();
  // Flags are parsed after commander has collected them (its option parsers cannot yield null).
  for (const s of SETTINGS) program.option(s.flag, `${s.help} [env ${s.env}]`);
  program.parse(argv, { from: "user" });
  const flags = program.opts<Record<string, unknown>>();

  const config: Record<string, unknown> = { ...defaultConfig() };
  const file = (flags["config"] as string | undefined) ?? env["CONEY_CONFIG"];
  let unsupported: string[] = [];
  if (file) {
    const text = readFileSync(file, "utf8");
    if (isRabbitConf(file, text)) {
      try {
        const conf = readRabbitConf(text, defaultConfig());
        Object.assign(config, conf.settings);
        unsupported = conf.unsupported;
      } catch (err) {
        if (err instanceof RabbitConfError) throw new ConfigError(`config file ${file}: ${err.message}`);
        throw err;
      }
    } else {
      const fromFile = JSON.parse(text) as Record<string, unknown>;
      for (const [k, v] of Object.entries(fromFile)) {
        if (!(k in config) || k === "configFile") throw new Error(`config file ${file}: unknown setting '${k}'`);
        config[k] = v;
      }
    }
    config["configFile"] = file;
  }
  for (const s of SETTINGS) {
    const raw = env[s.env];
    if (raw !== undefined && raw !== "") config[s.key] = parse(s.kind, raw, s.env);
  }
  for (const s of SETTINGS) {
    // A flag with an optional value given bare (`--in-memory`) arrives as true.
    const raw = flags[s.key] === true ? "true" : flags[s.key];
    if (typeof raw === "string") config[s.key] = parse(s.kind, raw, s.flag.split(" ")[0]!);
  }
  // A JSON config file may say "workers": "auto" (or a number): read it as the flag is read.
  const workers = config["workers"];
  if (typeof workers !== "number" || !Number.isInteger(workers) || workers < 1) config["workers"] = parse("workers", String(workers), "workers");
  const result = config as unknown as ConeyConfig;
  // The lease's last second is kept back from confirming (etcd-session.ts): a shorter lease could never confirm.
  // Followers catch up from the leader's files (docs/CLUSTERING.md): a node that writes none cannot be in a cluster.
  if (result.etcdEndpoints.length > 0 && result.inMemory) throw new ConfigError("--in-memory cannot be combined with --etcd-endpoints: a cluster replicates the files an in-memory node does not write");
  // Queue groups (docs/CLUSTERING.md): a cluster replicates one store today; per-group replication comes with per-group election.
  // The upper bound is the store's (src/store/queue-groups-file.ts), checked against the data dir at boot.
  if (result.queueGroups !== null && (!Number.isInteger(result.queueGroups) || result.queueGroups < 1)) throw new ConfigError(`--queue-groups: '${result.queueGroups}' is not a number of groups (1 or more)`);
  if (result.etcdEndpoints.length > 0 && result.queueGroups !== null && result.queueGroups > 1) throw new ConfigError("--queue-groups above 1 cannot be combined with --etcd-endpoints yet: a cluster replicates one message store (docs/CLUSTERING.md, \"Build order and status\")");
  // A spread cluster (docs/CLUSTERING.md, "A spread cluster over etcd"): a preview, only with etcd.
  if (result.clusterMode !== "replicated" && result.clusterMode !== "spread") throw new ConfigError(`--cluster-mode: '${String(result.clusterMode)}' is not replicated or spread`);
  if (result.clusterMode === "spread" && result.etcdEndpoints.length === 0) throw new ConfigError("--cluster-mode spread needs --etcd-endpoints (the nodes find each other and order definitions through etcd)");
  if (!LEADER_LOCATOR_VALUES.includes(result.queueLeaderLocator)) throw new ConfigError(`--queue-leader-locator: '${result.queueLeaderLocator}' is not one of ${LEADER_LOCATOR_VALUES.join(", ")}`);
  if (result.etcdEndpoints.length > 0 && result.etcdLeaseTtl < 2) throw new ConfigError(`--etcd-lease-ttl: '${result.etcdLeaseTtl}' is below the 2 seconds a cluster needs`);
  // docs/CLUSTERING.md, "Falling behind": below 50 ms a healthy follower's fsync would keep leaving the in-sync set.
  if (result.replicaAckTimeout < 50) throw new ConfigError(`--replica-ack-timeout: '${result.replicaAckTimeout}' is below the 50 ms a follower's fsync needs`);
  if (result.loginSessionTimeout !== null && result.loginSessionTimeout < 1) throw new ConfigError(`--login-session-timeout: '${result.loginSessionTimeout}' is not a number of minutes (1 or more)`);
  if (result.mqttReceiveMaximum < 1 || result.mqttReceiveMaximum > 65_535) throw new ConfigError(`--mqtt-receive-maximum: '${result.mqttReceiveMaximum}' is not between 1 and 65535 (MQTT 5 §3.2.2.3.3)`);
  if (result.mqttServerKeepAlive > 65_535) throw new ConfigError(`--mqtt-server-keep-alive: '${result.mqttServerKeepAlive}' is more than 65535 seconds`);
  if (result.clusterTls && (result.tlsCert === null || result.tlsKey === null)) throw new ConfigError("--cluster-tls: needs --tls-cert and --tls-key (the certificate the leader presents to followers)");
  return { config: result, unsupported };
}

/** The flag (`--amqp-port`) of the port setting whose value in `config` is `port`, or null when none is. */
export function portSettingOf(config: ConeyConfig, port: number): string | null {
  const s = SETTINGS.find((x) => (x.kind === "port" || x.kind === "nullable-port") && config[x.key] === port);
  return s === undefined ? null : s.flag.slice(0, s.flag.indexOf(" "));
}
