/**
 * Reads RabbitMQ's own configuration format (rabbitmq.conf: sysctl-style `key = value` lines,
 * `#` comments) into Coney settings, so a RabbitMQ user's file starts Coney unchanged. Each key
 * Coney maps is listed in KEYS; every other key is returned in `unsupported`, for the one warning
 * the broker logs at start (README, "Configuration"). A value that a mapped key cannot take is a
 * ConfigError naming the file's line.
 */
import { totalmem } from "node:os";
import { isLogLevel, type LogLevel } from "../logging/logger.js";
import type { ConeyConfig } from "./config.js";
import { parseWorkerCount, WORKERS_EXPECTED } from "./workers-setting.js";

export class RabbitConfError extends Error {}

export interface RabbitConf {
  readonly settings: Partial<ConeyConfig>;
  /** Keys present in the file that Coney does not support, in file order. */
  readonly unsupported: string[];
}

interface Line {
  readonly key: string;
  readonly value: string;
  readonly line: number;
}

/** Splits the file into key/value lines; values lose surrounding quotes, as cuttlefish reads them. */
export function parseConfLines(text: string): Line[] {
  const out: Line[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === "" || raw.startsWith("#")) continue;
    const eq = raw.indexOf("=");
    if (eq <= 0) throw new RabbitConfError(`line ${i + 1}: expected 'key = value', got '${raw}'`);
    let value = raw.slice(eq + 1).trim();
    if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) value = value.slice(1, -1);
    out.push({ key: raw.slice(0, eq).trim(), value, line: i + 1 });
  }
  return out;
}

const DECIMAL: Record<string, number> = { kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12 };
const BINARY: Record<string, number> = { k: 1024, kib: 1024, m: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gib: 1024 ** 3, t: 1024 ** 4, tib: 1024 ** 4 };

/**
 * RabbitMQ's information units: a plain byte count, or a number with kB/MB/GB (powers of 1000)
 * or k/KiB/M/MiB/G/GiB (powers of 1024), case-insensitive as RabbitMQ reads them.
 */
export function parseBytes(value: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(value.trim());
  if (!m) return null;
  const n = Number(m[1]);
  const unit = m[2]!.toLowerCase();
  if (unit === "" || unit === "b") return Math.round(n);
  const factor = DECIMAL[unit] ?? BINARY[unit];
  return factor === undefined ? null : Math.round(n * factor);
}

/** RabbitMQ's log levels in Coney's terms. */
const LOG_LEVELS: Record<string, LogLevel | "silent"> = { debug: "debug", info: "info", notice: "info", warning: "warn", warn: "warn", error: "error", critical: "error", alert: "error", emergency: "error", none: "silent" };

type Settings = Partial<Record<keyof ConeyConfig, unknown>>;

/** State a file builds up across keys (loopback users start from RabbitMQ's default). */
interface Build {
  readonly out: Settings;
  readonly unsupported: string[];
  loopback: Set<string>;
  loopbackTouched: boolean;
  /** The address each listener asked for; Coney binds one address for all of them. */
  readonly binds: Map<string, string>;
  verify: boolean | null;
  failIfNoPeerCert: boolean | null;
  readonly mgmtTls: Map<string, string>;
}

function bad(l: Line, what: string): never {
  throw new RabbitConfError(`line ${l.line}: ${l.key} = ${l.value}: ${what}`);
}

function int(l: Line): number {
  const n = Number(l.value);
  if (l.value === "" || !Number.isInteger(n) || n < 0) bad(l, "not a non-negative integer");
  return n;
}

function bool(l: Line): boolean {
  if (l.value === "true") return true;
  if (l.value === "false") return false;
  return bad(l, "not true or false");
}

/** A listener value: a port, or "address:port" (IPv6 as "[::1]:port" or "::1:port"). */
function listener(l: Line, b: Build, name: string): number {
  const m = /^(?:\[?(.*?)\]?:)?(\d+)$/.exec(l.value);
  if (!m) bad(l, "not a port or address:port");
  const port = Number(m[2]);
  if (port > 65535) bad(l, "not a port number");
  if (m[1] !== undefined && m[1] !== "") b.binds.set(name, m[1]);
  return port;
}

/** Every key Coney maps, with what it does to the settings. */
const KEYS: Record<string, (l: Line, b: Build) => void> = {
  // Coney's own key (docs/CLUSTERING.md, "One machine"): worker processes, or auto for every core.
  workers: (l, b) => (b.out.workers = parseWorkerCount(l.value) ?? bad(l, WORKERS_EXPECTED)),
  // RabbitMQ's default leader locator (a spread cluster places new queues with it; docs/CLUSTERING.md).
  queue_leader_locator: (l, b) => (b.out.queueLeaderLocator = l.value),
  // Its 3.10 classic-queue spelling: min-masters and random spread queues, as balanced does.
  queue_master_locator: (l, b) => (b.out.queueLeaderLocator = l.value === "min-masters" || l.value === "random" ? "balanced" : l.value),
  "listeners.tcp.default": (l, b) => (b.out.amqpPort = listener(l, b, l.key)),
  "listeners.ssl.default": (l, b) => (b.out.amqpsPort = listener(l, b, l.key)),
  default_user: (l, b) => (b.out.defaultUser = l.value),
  default_pass: (l, b) => (b.out.defaultPass = l.value),
  default_vhost: (l, b) => (b.out.defaultVhost = l.value),
  loopback_users: (l, b) => {
    if (l.value !== "none") bad(l, "only 'none' or loopback_users.<user> = true|false");
    b.loopback = new Set();
    b.loopbackTouched = true;
  },
  "vm_memory_high_watermark.relative": (l, b) => {
    const n = Number(l.value);
    if (!Number.isFinite(n) || n < 0) bad(l, "not a non-negative fraction");
    b.out.memHighWatermark = n;
  },
  // Coney's memory alarm is a fraction of total memory; an absolute limit is that fraction.
  "vm_memory_high_watermark.absolute": (l, b) => {
    const bytes = parseBytes(l.value) ?? bad(l, "not a size (e.g. 2GB, 1024MiB)");
    b.out.memHighWatermark = bytes / totalmem();
  },
  "disk_free_limit.absolute": (l, b) => (b.out.diskFreeLimit = parseBytes(l.value) ?? bad(l, "not a size (e.g. 1GB, 500MB)")),
  // RabbitMQ: a multiple of the machine's total memory.
  "disk_free_limit.relative": (l, b) => {
    const n = Number(l.value);
    if (!Number.isFinite(n) || n < 0) bad(l, "not a non-negative number");
    b.out.diskFreeLimit = Math.round(n * totalmem());
  },
  "management.tcp.port": (l, b) => {
    b.out.httpPort = listener(l, b, l.key);
    b.out.httpTls = false;
  },
  "management.tcp.ip": (l, b) => b.binds.set(l.key, l.value),
  "management.ssl.port": (l, b) => {
    b.out.httpPort = listener(l, b, l.key);
    b.out.httpTls = true;
  },
  "management.ssl.ip": (l, b) => b.binds.set(l.key, l.value),
  // The rabbitmq_prometheus plugin's listener (README, "Prometheus metrics").
  "prometheus.tcp.port": (l, b) => (b.out.prometheusPort = listener(l, b, l.key)),
  "prometheus.tcp.ip": (l, b) => b.binds.set(l.key, l.value),
  "management.ssl.certfile": (l, b) => b.mgmtTls.set("tlsCert", l.value),
  "management.ssl.keyfile": (l, b) => b.mgmtTls.set("tlsKey", l.value),
  "management.ssl.cacertfile": (l, b) => b.mgmtTls.set("tlsCa", l.value),
  "ssl_options.certfile": (l, b) => (b.out.tlsCert = l.value),
  "ssl_options.keyfile": (l, b) => (b.out.tlsKey = l.value),
  "ssl_options.cacertfile": (l, b) => (b.out.tlsCa = l.value),
  "ssl_options.verify": (l, b) => {
    if (l.value !== "verify_peer" && l.value !== "verify_none") bad(l, "not verify_peer or verify_none");
    b.verify = l.value === "verify_peer";
  },
  "ssl_options.fail_if_no_peer_cert": (l, b) => (b.failIfNoPeerCert = bool(l)),
  "auth_oauth2.resource_server_id": (l, b) => (b.out.oauthResourceServerId = l.value),
  "auth_oauth2.jwks_url": (l, b) => (b.out.oauthJwksUrl = l.value),
  // The management UI's OAuth 2.0 login: RabbitMQ 3.10's names and the older UAA ones it still reads.
  "management.oauth_enabled": (l, b) => (b.out.managementOauthEnabled = bool(l)),
  "management.enable_uaa": (l, b) => (b.out.managementOauthEnabled = bool(l)),
  "management.oauth_client_id": (l, b) => (b.out.managementOauthClientId = l.value),
  "management.uaa_client_id": (l, b) => (b.out.managementOauthClientId = l.value),
  "management.oauth_provider_url": (l, b) => (b.out.managementOauthProviderUrl = l.value),
  "management.uaa_location": (l, b) => (b.out.managementOauthProviderUrl = l.value),
  "management.login_session_timeout": (l, b) => {
    const minutes = int(l);
    if (minutes < 1) bad(l, "not a number of minutes (1 or more)");
    b.out.loginSessionTimeout = minutes;
  },
  "log.console.level": (l, b) => (b.out.logLevel = logLevel(l)),
  "log.file.level": (l, b) => (b.out.logLevel = logLevel(l)),
  // RabbitMQ 3.9+'s names: plaintext for people, json for shippers.
  "log.console.formatter": (l, b) => {
    if (l.value === "plaintext") b.out.logFormat = "text";
    else if (l.value === "json") b.out.logFormat = "json";
    else bad(l, "not a log formatter (plaintext or json)");
  },
  // Coney logs to stderr only: turning the console on is what it does; a log file it cannot write.
  "log.console": (l) => {
    if (!bool(l)) bad(l, "Coney always logs to stderr (set log.console.level = none to silence it)");
  },
  "log.file": (l, b) => {
    if (l.value !== "false") b.unsupported.push(l.key);
  },
  load_definitions: (l, b) => (b.out.loadDefinitions = l.value),
  "management.load_definitions": (l, b) => (b.out.loadDefinitions = l.value),
  heartbeat: (l, b) => (b.out.heartbeat = int(l)),
  consumer_timeout: (l, b) => (b.out.consumerTimeout = l.value === "false" ? 0 : int(l)),
  frame_max: (l, b) => (b.out.frameMax = int(l)),
  channel_max: (l, b) => (b.out.channelMax = int(l)),
  max_message_size: (l, b) => (b.out.maxMessageSize = int(l)),
  msg_store_file_size_limit: (l, b) => (b.out.msgStoreFileSizeLimit = int(l)),
  queue_groups: (l, b) => (b.out.queueGroups = int(l)),
  cluster_name: (l, b) => (b.out.clusterName = l.value),
  // The rabbitmq_stream plugin (README, "Streams").
  "stream.listeners.tcp.default": (l, b) => (b.out.streamPort = listener(l, b, l.key)),
  "stream.listeners.ssl.default": (l, b) => (b.out.streamTlsPort = listener(l, b, l.key)),
  "stream.advertised_host": (l, b) => (b.out.streamAdvertisedHost = l.value),
  "stream.advertised_port": (l, b) => (b.out.streamAdvertisedPort = int(l)),
  // The rabbitmq_mqtt and rabbitmq_web_mqtt plugins (README, "MQTT").
  "mqtt.listeners.tcp.default": (l, b) => (b.out.mqttPort = listener(l, b, l.key)),
  "mqtt.listeners.ssl.default": (l, b) => (b.out.mqttsPort = listener(l, b, l.key)),
  "web_mqtt.tcp.port": (l, b) => (b.out.webMqttPort = listener(l, b, l.key)),
  "web_mqtt.ssl.port": (l, b) => (b.out.webMqttsPort = listener(l, b, l.key)),
  "mqtt.vhost": (l, b) => (b.out.mqttVhost = l.value),
  "mqtt.exchange": (l, b) => (b.out.mqttExchange = l.value),
  "mqtt.allow_anonymous": (l, b) => (b.out.mqttAllowAnonymous = bool(l)),
  "mqtt.default_user": (l, b) => (b.out.mqttDefaultUser = l.value),
  "mqtt.default_pass": (l, b) => (b.out.mqttDefaultPass = l.value),
  "mqtt.prefetch": (l, b) => (b.out.mqttPrefetch = int(l)),
  "mqtt.topic_alias_maximum": (l, b) => (b.out.mqttTopicAliasMaximum = int(l)),
  "mqtt.receive_maximum": (l, b) => (b.out.mqttReceiveMaximum = int(l)),
  "mqtt.server_keep_alive": (l, b) => (b.out.mqttServerKeepAlive = int(l)),
  "mqtt.ssl_cert_login": (l, b) => (b.out.mqttSslCertLogin = bool(l)),
  // The rabbitmq_stomp and rabbitmq_web_stomp plugins (docs/STOMP.md).
  "stomp.listeners.tcp.default": (l, b) => (b.out.stompPort = listener(l, b, l.key)),
  "stomp.listeners.ssl.default": (l, b) => (b.out.stompsPort = listener(l, b, l.key)),
  "web_stomp.tcp.port": (l, b) => (b.out.webStompPort = listener(l, b, l.key)),
  "stomp.default_user": (l, b) => (b.out.stompDefaultUser = l.value),
  "stomp.default_pass": (l, b) => (b.out.stompDefaultPass = l.value),
  // AMQP 1.0's SASL ANONYMOUS (RabbitMQ 4, docs/AMQP10.md).
  anonymous_login_user: (l, b) => (b.out.anonymousLoginUser = l.value),
  anonymous_login_pass: (l, b) => (b.out.anonymousLoginPass = l.value),
  "stomp.implicit_connect": (l, b) => (b.out.stompImplicitConnect = bool(l)),
  "stomp.default_vhost": (l, b) => (b.out.stompDefaultVhost = l.value),
  "stomp.ssl_cert_login": (l, b) => (b.out.stompSslCertLogin = bool(l)),
  "ssl_cert_login_from": (l, b) => {
    if (l.value !== "distinguished_name" && l.value !== "common_name") return bad(l, "not distinguished_name or common_name");
    b.out.sslCertLoginFrom = l.value;
  },
  // rabbitmq_event_exchange's key, and Coney's own audit trail (README, "Event exchange", "Audit trail").
  "event_exchange.vhost": (l, b) => (b.out.eventExchangeVhost = l.value),
  "coney.event_exchange.enabled": (l, b) => (b.out.eventExchange = bool(l)),
  "coney.audit.max_bytes": (l, b) => (b.out.auditMaxBytes = parseBytes(l.value) ?? bad(l, "not a size (e.g. 16MiB)")),
  "coney.audit.max_age": (l, b) => (b.out.auditMaxAge = int(l)),
  "coney.audit.file_size_limit": (l, b) => (b.out.auditFileSizeLimit = parseBytes(l.value) ?? bad(l, "not a size (e.g. 1MiB)")),
  "coney.audit.sync_interval": (l, b) => (b.out.auditSyncInterval = int(l)),
};

function logLevel(l: Line): LogLevel | "silent" {
  const level = LOG_LEVELS[l.value];
  if (level === undefined || (level !== "silent" && !isLogLevel(level))) bad(l, "not a log level (debug, info, warning, error, critical, none)");
  return level;
}

const RETENTION_PREFIX = "management.sample_retention_policies.";
const AGE_NAMES: Record<string, number> = { minute: 60, hour: 3600, day: 86400 };

/**
 * `management.sample_retention_policies.<policy>.<age> = <interval>`: the age is `minute`, `hour`,
 * `day` or seconds, the value the seconds between points. The first level named for a policy
 * replaces RabbitMQ's default levels of that policy. Coney keeps no per-pair ("detailed") rates.
 */
function retentionLevel(l: Line, b: Build): void {
  const [policy, age] = l.key.slice(RETENTION_PREFIX.length).split(".");
  if (policy === "detailed") {
    b.unsupported.push(l.key);
    return;
  }
  if ((policy !== "global" && policy !== "basic") || age === undefined) bad(l, "not a retention policy key (management.sample_retention_policies.global|basic.minute|hour|day|<seconds>)");
  const ageSeconds = AGE_NAMES[age] ?? Number(age);
  if (!Number.isInteger(ageSeconds) || ageSeconds < 1) bad(l, `'${age}' is not an age (minute, hour, day or seconds)`);
  const intervalSeconds = int(l);
  if (intervalSeconds < 1 || intervalSeconds > ageSeconds) bad(l, "not an interval of 1 second or more within the age");
  const current = (b.out.sampleRetention ?? { global: null, basic: null }) as ConeyConfig["sampleRetention"];
  const levels = [...(current[policy] ?? []), { ageSeconds, intervalSeconds }].sort((x, y) => x.ageSeconds - y.ageSeconds);
  b.out.sampleRetention = { ...current, [policy]: levels };
}

/** Keys with a per-name suffix: `loopback_users.<user>`, `auth_oauth2.signing_keys.<kid>`. */
function prefixed(l: Line, b: Build): boolean {
  if (l.key.startsWith("loopback_users.")) {
    const user = l.key.slice("loopback_users.".length);
    if (bool(l)) b.loopback.add(user);
    else b.loopback.delete(user);
    b.loopbackTouched = true;
    return true;
  }
  if (l.key.startsWith(RETENTION_PREFIX)) {
    retentionLevel(l, b);
    return true;
  }
  if (l.key.startsWith("auth_oauth2.signing_keys.")) {
    const kid = l.key.slice("auth_oauth2.signing_keys.".length);
    b.out.oauthKeyFiles = [...((b.out.oauthKeyFiles as string[] | undefined) ?? []), `${kid}=${l.value}`];
    return true;
  }
  return false;
}

/** Reads rabbitmq.conf text; `defaults` gives the loopback users a file's entries change. */
export function readRabbitConf(text: string, defaults: Pick<ConeyConfig, "loopbackUsers">): RabbitConf {
  const b: Build = { out: {}, unsupported: [], loopback: new Set(defaults.loopbackUsers), loopbackTouched: false, binds: new Map(), verify: null, failIfNoPeerCert: null, mgmtTls: new Map() };
  for (const l of parseConfLines(text)) {
    const apply = KEYS[l.key];
    if (apply) apply(l, b);
    else if (!prefixed(l, b)) b.unsupported.push(l.key);
  }
  if (b.loopbackTouched) b.out.loopbackUsers = [...b.loopback];
  // One address for every listener: used when they agree; a listener asking for another is named.
  const addresses = [...new Set(b.binds.values())];
  if (addresses.length === 1) b.out.bind = addresses[0]!;
  else if (addresses.length > 1) for (const [key, address] of b.binds) if (address !== addresses[0]) b.unsupported.push(`${key} (Coney binds every listener to one address, ${addresses[0]})`);
  // Client certificates: Coney requires and checks them (verify_peer + fail_if_no_peer_cert) or not at all.
  if (b.verify === true && b.failIfNoPeerCert === true) b.out.tlsVerifyPeer = true;
  else if (b.verify === true) b.unsupported.push("ssl_options.verify = verify_peer without ssl_options.fail_if_no_peer_cert = true");
  else if (b.verify === false) b.out.tlsVerifyPeer = false;
  // The management listener's TLS files: Coney serves HTTPS with the AMQPS certificate, so these
  // are used when ssl_options names none, and must otherwise be the same files.
  for (const [key, file] of b.mgmtTls) {
    const k = key as "tlsCert" | "tlsKey" | "tlsCa";
    if (b.out[k] === undefined) b.out[k] = file;
    else if (b.out[k] !== file) b.unsupported.push(`management.ssl.${{ tlsCert: "certfile", tlsKey: "keyfile", tlsCa: "cacertfile" }[k]} (a different file from ssl_options: Coney uses one certificate)`);
  }
  return { settings: b.out as Partial<ConeyConfig>, unsupported: b.unsupported };
}

/** Whether a --config file is in rabbitmq.conf's format rather than Coney's JSON. */
export function isRabbitConf(file: string, text: string): boolean {
  if (file.endsWith(".json")) return false;
  if (file.endsWith(".conf")) return true;
  return !text.trimStart().startsWith("{");
}
