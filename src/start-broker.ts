/**
 * The composition root: builds the Broker from configuration, restores or bootstraps its
 * definitions, and starts the listeners. `startBroker` is also the programmatic API for
 * embedding Coney (e.g. in another project's tests): pass port 0 to get ephemeral ports.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { listenAmqp, type AmqpListener } from "./amqp/amqp-listener.js";
import { bootstrapDefaults } from "./broker/bootstrap.js";
import { Broker } from "./broker/broker.js";
import { exportDefinitions, importDefinitions, type Definitions } from "./broker/definitions.js";
import { DefinitionsFile } from "./store/definitions-file.js";
import { MessageStore } from "./store/message-store.js";
import { recoverMessages } from "./store/store-recovery.js";
import type { PagingLimits } from "./store/stored-queue-log.js";
import { VERSION } from "./broker/product.js";
import { defaultConfig, type ConeyConfig } from "./config/config.js";
import { createLogger, type Logger } from "./logging/logger.js";
import { listenHttp, type HttpListener } from "./http/http-server.js";
import { listenMetrics, type MetricsListener } from "./metrics/index.js";
import { TokenVerifier } from "./auth/oauth/token-verifier.js";
import { LoginThrottle } from "./auth/login-throttle.js";
import { ResourceAlarms } from "./broker/alarms/resource-alarms.js";
import type { ListenerCertificate } from "./tls/certificate-expiry.js";
import { tlsFilesOf, tlsServerOptions } from "./tls/tls-files.js";
import type { StoreReplica } from "./store/store-replica.js";
import type { ClusterView } from "./broker/cluster-view.js";
import { startMqttListeners } from "./mqtt/mqtt-startup.js";

export interface RunningBroker {
  readonly amqpPort: number;
  readonly httpPort: number | null;
  /** The Prometheus listener's port, null when disabled. */
  readonly prometheusPort: number | null;
  /** The AMQPS listener's port, null when no TLS certificate is configured. */
  readonly amqpsPort: number | null;
  /** The MQTT, MQTTS and MQTT-over-WebSocket listeners' ports; null when disabled or not bound. */
  readonly mqttPort: number | null;
  readonly mqttsPort: number | null;
  readonly webMqttPort: number | null;
  /** Memory and disk alarms; their limits can be changed at run time. */
  readonly alarms: ResourceAlarms;
  readonly broker: Broker;
  readonly config: ConeyConfig;
  close(): Promise<void>;
}

export interface StartOptions extends Partial<ConeyConfig> {
  logger?: Logger;
  /** Message store tuning (tests use small segments). */
  messageStore?: { segmentBytes?: number; paging?: PagingLimits; compactEveryMs?: number };
  /** A cluster leader's replication (src/cluster): told every byte the store and definitions write. */
  replica?: StoreReplica & { definitionsWritten(json: string): void };
  /** A cluster's members, for /api/nodes. */
  clusterView?: ClusterView;
}

export async function startBroker(options: StartOptions = {}): Promise<RunningBroker> {
  const { logger: givenLogger, messageStore: storeOptions, replica, clusterView, ...overrides } = options;
  const config: ConeyConfig = { ...defaultConfig(), ...overrides };
  const logger = givenLogger ?? createLogger(config.logLevel);
  mkdirSync(config.dataDir, { recursive: true });

  const store = new MessageStore({ dir: join(config.dataDir, "messages"), logger, ...storeOptions });
  const broker = new Broker({ journal: store });
  const definitions = new DefinitionsFile(config.dataDir, () => exportDefinitions(broker, { durableOnly: true, version: VERSION }));
  const alarms = new ResourceAlarms({ memHighWatermark: config.memHighWatermark, diskFreeLimit: config.diskFreeLimit }, config.dataDir);
  alarms.start(config.alarmInterval);
  definitions.failures = {
    failed: (err) => {
      logger.error("definitions could not be saved; the previous file stays in place and the save is retried", { err, file: definitions.path });
      alarms.diskWriteFailed("definitions");
    },
    recovered: () => {
      logger.info("definitions saved again", { file: definitions.path });
      alarms.diskWriteRecovered("definitions");
    },
  };
  const saved = definitions.read();
  if (saved) {
    // Restoring writes nothing back: the file already holds exactly this.
    definitions.muted = true;
    importDefinitions(broker, saved);
    definitions.muted = false;
    logger.info("definitions restored", { file: definitions.path, vhosts: broker.vhosts.size, users: broker.users.list().length });
  } else {
    bootstrapDefaults(broker, config);
  }
  broker.definitions = definitions;
  if (config.loadDefinitions) {
    // RabbitMQ's load_definitions: imported at every boot, merged over what was saved.
    importDefinitions(broker, JSON.parse(readFileSync(config.loadDefinitions, "utf8")) as Definitions);
    logger.info("definitions loaded", { file: config.loadDefinitions });
  }
  definitions.put();
  // Messages come back after the definitions: only durable queues that still exist get theirs.
  const recovered = recoverMessages(store);
  // A confirmed message must not outlive the declaration of its queue: definitions go to disk first.
  store.beforeSync = () => definitions.flush();
  if (replica) {
    // Attached after recovery: followers get the files as recovery left them, by a full sync.
    store.replica = replica;
    definitions.onWrite = (json) => replica.definitionsWritten(json);
  }
  if (recovered.segments > 0) logger.info("messages recovered", { ...recovered });
  if (broker.authenticate("guest", "guest")) {
    logger.warn("the default user 'guest' exists with its default password; replace it before production use (see README, Production)");
  }

  const tokens = config.oauthResourceServerId === null
    ? null
    : new TokenVerifier({ resourceServerId: config.oauthResourceServerId, keyFiles: config.oauthKeyFiles, hmacSecrets: config.oauthHmacSecrets, jwksUrl: config.oauthJwksUrl });
  const tls = tlsFilesOf(config);
  const loginThrottle = new LoginThrottle();
  const settings = {
    channelMax: config.channelMax,
    frameMax: config.frameMax,
    heartbeat: config.heartbeat,
    maxMessageSize: config.maxMessageSize,
    loopbackUsers: config.loopbackUsers,
    handshakeTimeout: config.handshakeTimeout,
    clusterName: config.clusterName,
    tokens,
    alarms,
    maxConnections: config.maxConnections,
    loginThrottle,
  };
  const amqp: AmqpListener = await listenAmqp(broker, settings, config.amqpPort, config.bind, logger);
  logger.info("AMQP 0-9-1 listener started", { port: amqp.port, bind: config.bind || "*" });
  const certificates: ListenerCertificate[] = [];
  const extraListeners: Array<{ protocol: string; port: number }> = [];
  const amqps: AmqpListener | null = tls ? await listenAmqp(broker, settings, config.amqpsPort, config.bind, logger, tlsServerOptions(tls)) : null;
  if (amqps && tls) {
    certificates.push({ protocol: "amqp/ssl", port: amqps.port, file: tls.cert });
    extraListeners.push({ protocol: "amqp/ssl", port: amqps.port });
    logger.info("AMQPS listener started", { port: amqps.port, bind: config.bind || "*", verifyPeer: tls.verifyPeer });
  }
  const mqtt = await startMqttListeners(broker, config, loginThrottle, logger, tls ? tlsServerOptions(tls) : null, alarms);
  if (mqtt.mqttPort !== null) extraListeners.push({ protocol: "mqtt", port: mqtt.mqttPort });
  if (mqtt.mqttsPort !== null && tls) {
    extraListeners.push({ protocol: "mqtt/ssl", port: mqtt.mqttsPort });
    certificates.push({ protocol: "mqtt/ssl", port: mqtt.mqttsPort, file: tls.cert });
  }
  if (mqtt.webMqttPort !== null) extraListeners.push({ protocol: "http/web-mqtt", port: mqtt.webMqttPort });
  const http: HttpListener | null =
    config.httpPort === null
      ? null
      : await listenHttp(
          broker,
          { port: config.httpPort, bind: config.bind, config, cluster: clusterView ?? null, amqpPort: amqp.port, tokens, alarms, loginThrottle, tls: config.httpTls ? tls : null, certificates, listeners: extraListeners },
          logger,
        );
  if (http) logger.info("management API listener started", { port: http.port, bind: config.bind || "*" });
  let metrics: MetricsListener | null = null;
  if (config.prometheusPort !== null) {
    try {
      metrics = await listenMetrics(
        // A cluster's leader runs this broker: it leads, and the leader is always in the in-sync set.
        { broker, alarms, dataDir: config.dataDir, node: config.nodeName, cluster: config.clusterName, ...(clusterView ? { clusterRole: () => ({ leader: true, inSync: true }) } : {}) },
        { port: config.prometheusPort, bind: config.bind, tls: config.httpTls ? tls : null },
        logger,
      );
    } catch (err) {
      // A taken port must not leave the other listeners running behind a failed start.
      await http?.close();
      alarms.stop();
      await mqtt.close();
      await amqps?.close();
      await amqp.close();
      await store.close();
      throw err;
    }
  }
  if (metrics) logger.info("Prometheus metrics listener started", { port: metrics.port, bind: config.bind || "*", tls: config.httpTls && tls !== null });

  let closed = false;
  return {
    amqpPort: amqp.port,
    httpPort: http?.port ?? null,
    prometheusPort: metrics?.port ?? null,
    amqpsPort: amqps?.port ?? null,
    mqttPort: mqtt.mqttPort,
    mqttsPort: mqtt.mqttsPort,
    webMqttPort: mqtt.webMqttPort,
    alarms,
    broker,
    config,
    async close() {
      if (closed) return;
      closed = true;
      await http?.close();
      await metrics?.close();
      alarms.stop();
      await mqtt.close();
      await amqps?.close();
      await amqp.close();
      await store.close();
      logger.info("message store closed", { ...store.stats });
      definitions.flush();
      logger.info("broker stopped");
    },
  };
}
