/**
 * The composition root: builds the Broker from configuration, restores or bootstraps its
 * definitions, and starts the listeners. `startBroker` is also the programmatic API for
 * embedding Coney (e.g. in another project's tests): pass port 0 to get ephemeral ports.
 */
import { listenAmqp, type AmqpListener } from "./amqp/amqp-listener.js";
import { amqp1Side } from "./amqp1/amqp1-startup.js";
import { SlabPool } from "./listeners/slab-pool.js";
import { LARGE_SLAB } from "./listeners/slab-reads.js";
import { Broker, clusterNameOf, EventExchange, ResourceAlarms, type ClusterView } from "./broker/index.js";
import type { AuditTap } from "./audit/audit-log.js";
import { openPersistence, type MovableGroupStores } from "./node-persistence.js";
import type { PagingLimits } from "./store/stored-queue-log.js";
import { defaultConfig, type ConeyConfig } from "./config/config.js";
import { createLogger, type Logger } from "./logging/logger.js";
import { SideListeners, type RetryPolicy } from "./listeners/side-listeners.js";
import type { StreamWorkerPorts } from "./stream/stream-worker-ports.js";
import type { ListenerStatus, ListenerStatuses } from "./listeners/listener-status.js";
import { LoginThrottle } from "./auth/login-throttle.js";
import { noteCertificate, type ListenerCertificate } from "./tls/certificate-expiry.js";
import { tlsFilesOf, tlsServerOptions } from "./tls/tls-files.js";
import type { NodeFileTap, StoreReplica } from "./store/store-replica.js";
import { createFederation } from "./federation/federation-startup.js";
import { Shovels } from "./shovel/shovels.js";
import type { ClientIdPeers } from "./mqtt/client-id-peers.js";
import type { PeerNodes } from "./http/peer-nodes.js";
import { PeerMetrics } from "./metrics/peer-metrics.js";
import type { RetainedStore } from "./mqtt/retained-store.js";

export interface RunningBroker {
  readonly amqpPort: number;
  /** The management listener's port; null when disabled, or while it cannot bind (it is retried). */
  readonly httpPort: number | null;
  /** The Prometheus listener's port, null when disabled or not bound yet. */
  readonly prometheusPort: number | null;
  /** The AMQPS listener's port, null when no TLS certificate is configured or not bound yet. */
  readonly amqpsPort: number | null;
  /** The MQTT, MQTTS and MQTT-over-WebSocket listeners' ports; null when disabled or not bound yet. */
  readonly mqttPort: number | null;
  readonly mqttsPort: number | null;
  readonly webMqttPort: number | null;
  readonly webMqttsPort: number | null;
  /** The stream protocol listeners' ports (plain and TLS); null when disabled or not bound yet. */
  readonly streamPort: number | null;
  readonly streamTlsPort: number | null;
  /** The STOMP, STOMP-over-TLS and Web STOMP listeners' ports; null when disabled or not bound yet. */
  readonly stompPort: number | null;
  readonly stompsPort: number | null;
  readonly webStompPort: number | null;
  /** Every listener, bound or being retried (src/listeners). */
  readonly listeners: ListenerStatuses;
  /** The node's dynamic shovels (src/shovel). */
  readonly shovels: Shovels;
  /** Memory and disk alarms; their limits can be changed at run time. */
  readonly alarms: ResourceAlarms;
  readonly broker: Broker;
  readonly config: ConeyConfig;
  /** Forgets MQTT's retained messages (kept beside the broker's model by the MQTT front, src/mqtt). */
  clearRetainedMessages(): void;
  /** MQTT's retained messages (null without MQTT listeners): `coney --workers N` relays them between workers. */
  readonly retainedMessages: RetainedStore | null;
  close(): Promise<void>;
}

export interface StartOptions extends Partial<ConeyConfig> {
  logger?: Logger;
  /** Message store tuning (tests use small segments). */
  messageStore?: { segmentBytes?: number; paging?: PagingLimits; compactEveryMs?: number; commitBytes?: number; holdMs?: number };
  /** A cluster leader's replication (src/cluster): told every byte the store, definitions and audit trail write. */
  replica?: StoreReplica & AuditTap & NodeFileTap & { definitionsWritten(json: string): void };
  /** A cluster's members, for /api/nodes. */
  clusterView?: ClusterView;
  /** How side listeners that cannot bind are retried (tests shorten it). */
  listenerRetry?: RetryPolicy;
  /**
   * The pool AMQP reads return their slabs to (src/listeners/slab-pool.ts); null: none. Default: a
   * pool on a node outside a cluster (a cluster's links and replication are not counted holders),
   * poisoning returned slabs when CONEY_POISON_READS=1 (the test suite sets it).
   */
  readSlabs?: SlabPool | null;
  /**
   * A worker of `coney --workers N` (src/workers) joins the others around the restore of its
   * definitions: `beforeRestore` (queue placement set, the others' links being reached: restored
   * queues other workers lead become RemoteQueues) and `afterRestore` (its own queues served to the
   * others; changes from now on are relayed, the restore itself is not a change). Both run before
   * any client listener opens.
   */
  nodeHooks?: { beforeRestore(broker: Broker): Promise<void>; afterRestore(broker: Broker): Promise<void>; close(): Promise<void> };
  /** The other workers of `coney --workers N` (src/workers), for /api/nodes. */
  peers?: PeerNodes;
  /** The other workers of `coney --workers N`, for MQTT client-id takeover across them. */
  clientIdPeers?: ClientIdPeers;
  /** A worker of `coney --workers N`: its own stream port and the others' (src/stream/stream-worker-ports.ts). */
  streamWorkers?: StreamWorkerPorts;
  /** A worker of `coney --workers N`: the queue groups' stores it opens and closes as groups move (node-persistence.ts). */
  groupStores?: MovableGroupStores;
}

/**
 * Free read slabs kept for reuse: 128 MiB at most, and at most an eighth of the memory alarm's
 * limit. Too few, and a busy broker reads into new slabs while returned ones go to the collector:
 * at 1 MB bodies a 32 MiB cap made one slab in five new, 200 MB/s of fresh external memory that
 * V8 answered with a collection about every 100 ms (docs/PERFORMANCE.md, "Seventh pass"). The
 * pool also trims itself to demand every few seconds (SlabPool.trimToDemand).
 */
function readSlabsKept(memLimit: number): number {
  return Math.max(16, Math.min(512, Math.floor(memLimit / 8 / LARGE_SLAB)));
}

export async function startBroker(options: StartOptions = {}): Promise<RunningBroker> {
  const { logger: givenLogger, messageStore: storeOptions, replica, clusterView, listenerRetry, readSlabs, peers, nodeHooks, clientIdPeers, streamWorkers, groupStores, ...overrides } = options;
  const config: ConeyConfig = { ...defaultConfig(), ...overrides };
  // Embedding runs one broker in the caller's process: N worker processes are the `coney`
  // command's layout (src/workers), which forks its own entry script.
  if (config.workers > 1) throw new Error(`startBroker runs one broker in this process; workers: ${config.workers} is the coney command's --workers (docs/CLUSTERING.md, "One machine")`);
  const logger = givenLogger ?? createLogger(config.logLevel, undefined, {}, { format: config.logFormat });
  // A broker that stores nothing watches no disk (ResourceAlarms); its figures read the working directory's.
  const diskDir = config.inMemory ? "." : config.dataDir;
  const alarms = new ResourceAlarms({ memHighWatermark: config.memHighWatermark, diskFreeLimit: config.diskFreeLimit }, config.inMemory ? null : config.dataDir);
  alarms.start(config.alarmInterval);
  let persistence: ReturnType<typeof openPersistence>;
  try {
    persistence = openPersistence({ config, logger, alarms, ...(storeOptions ? { storeOptions } : {}), ...(replica ? { replica } : {}), ...(groupStores ? { groupStores } : {}) });
  } catch (err) {
    alarms.stop(); // a data dir that cannot be used (its queue groups, store/queue-groups-file.ts) stops the start
    throw err;
  }
  const broker = new Broker(persistence.journal ? { journal: persistence.journal } : { queueGroups: config.queueGroups ?? 1 });
  broker.connections.node = config.nodeName;
  broker.events.onListenerError = (err) => logger.error("a broker event listener failed", { err });
  broker.parameterComponents.onNotifyError = (component, err) => logger.error("a runtime parameter component failed to apply a change", { component, err });
  // Feature components register before the saved definitions come back, so their parameters are accepted.
  const shovels = new Shovels(broker, () => clusterNameOf(broker.globalParameters, config.clusterName), logger, alarms);
  shovels.register();
  const federation = createFederation(broker, config.clusterName, logger, alarms);
  federation.register();
  if (nodeHooks) {
    try {
      await nodeHooks.beforeRestore(broker);
    } catch (err) {
      alarms.stop();
      await persistence.close();
      throw err;
    }
  }
  persistence.open(broker);
  await nodeHooks?.afterRestore(broker);
  const eventExchange = config.eventExchange ? new EventExchange(broker, config.eventExchangeVhost ?? config.defaultVhost) : null;
  eventExchange?.start();
  if (broker.authenticate("guest", "guest")) {
    logger.warn("the default user 'guest' exists with its default password; replace it before production use (see README, Production)");
  }

  const tokens = config.oauthResourceServerId === null
    ? null
    : new (await import("./auth/oauth/token-verifier.js")).TokenVerifier({ resourceServerId: config.oauthResourceServerId, keyFiles: config.oauthKeyFiles, hmacSecrets: config.oauthHmacSecrets, jwksUrl: config.oauthJwksUrl });
  const tls = tlsFilesOf(config);
  const loginThrottle = new LoginThrottle();
  const settings = {
    channelMax: config.channelMax,
    frameMax: config.frameMax,
    heartbeat: config.heartbeat,
    maxMessageSize: config.maxMessageSize,
    loopbackUsers: config.loopbackUsers,
    handshakeTimeout: config.handshakeTimeout,
    consumerTimeout: config.consumerTimeout,
    clusterName: config.clusterName,
    tokens,
    alarms,
    maxConnections: config.maxConnections,
    loginThrottle,
    // AMQP 1.0 on the same port, negotiated by the protocol header (issue 44, src/amqp1).
    amqp10Handover: amqp1Side(broker, config, logger, loginThrottle, tokens, alarms),
  };
  // The AMQP listener is essential: a broker that cannot bind it does not start (src/listeners).
  let amqp: AmqpListener;
  try {
    const slabs = readSlabs !== undefined ? readSlabs : replica || clusterView ? null : new SlabPool({ slabBytes: LARGE_SLAB, maxFree: readSlabsKept(alarms.figures.memLimit), poison: process.env["CONEY_POISON_READS"] === "1" });
    amqp = await listenAmqp(broker, settings, config.amqpPort, config.bind, logger, null, slabs);
  } catch (err) {
    alarms.stop();
    await persistence.close();
    throw err;
  }
  logger.info("AMQP 0-9-1 listener started", { port: amqp.port, bind: config.bind || "*" });
  // Every other listener is a side listener: retried in the background, never a reason to stop.
  const side = new SideListeners(logger, listenerRetry);
  const listeners = (): ListenerStatus[] => [{ protocol: "amqp", port: amqp.port, up: true, reason: null }, ...side.statuses()];
  const certificates: ListenerCertificate[] = [];
  const bind = config.bind || "*";
  if (tls) {
    await side.add({
      protocol: "amqp/ssl",
      port: config.amqpsPort,
      open: () => listenAmqp(broker, settings, config.amqpsPort, config.bind, logger, tlsServerOptions(tls)),
      opened: (l) => {
        noteCertificate(certificates, { protocol: "amqp/ssl", port: l.port, file: tls.cert });
        logger.info("AMQPS listener started", { port: l.port, bind, verifyPeer: tls.verifyPeer });
      },
    });
  }
  // The HTTP, Prometheus, MQTT and OAuth modules (Fastify, ws, mqtt-packet, jose) are loaded only
  // when configured: a broker without them (a test broker) starts in a fraction of the time.
  const mqttWanted = config.mqttPort !== null || config.webMqttPort !== null || (tls !== null && (config.mqttsPort !== null || config.webMqttsPort !== null));
  const mqtt = !mqttWanted ? null : (await import("./mqtt/mqtt-startup.js")).mqttSide({ broker, config, loginThrottle, tokens, alarms, logger, replicated: replica && persistence.journal ? { tap: replica, journal: persistence.journal } : null, tls: tls ? { options: tlsServerOptions(tls), certFile: tls.cert } : null, certificates, clientIdPeers: clientIdPeers ?? null });
  for (const spec of mqtt?.listeners ?? []) await side.add(spec);
  const streamWanted = config.streamPort !== null || (tls !== null && config.streamTlsPort !== null);
  const stream = !streamWanted ? null : (await import("./stream/stream-startup.js")).streamSide({ broker, config, cluster: clusterView ?? null, loginThrottle, tokens, logger, tls: tls ? { options: tlsServerOptions(tls), certFile: tls.cert } : null, certificates, ...(streamWorkers ? { workers: streamWorkers } : {}) });
  for (const spec of stream?.listeners ?? []) await side.add(spec);
  // STOMP (src/stomp): loaded only when a STOMP listener is configured.
  const stompWanted = config.stompPort !== null || config.webStompPort !== null || (tls !== null && config.stompsPort !== null);
  const stompListeners = !stompWanted ? [] : (await import("./stomp/stomp-startup.js")).stompSide({ broker, config, loginThrottle, tokens, logger, tls: tls ? { options: tlsServerOptions(tls), certFile: tls.cert } : null, certificates });
  for (const spec of stompListeners) await side.add(spec);
  // The aggregate scrape (/metrics/cluster) asks the other nodes over the API's seam; this node answers its query beside the API's (metrics/peer-metrics.ts).
  const peerMetrics = peers?.records ? new PeerMetrics(peers.records, config.nodeName, async () => (await peers.list()).map((p) => p.name)) : null;
  const apiPeers = peers && peerMetrics ? { ...peers, records: peerMetrics } : peers;
  const httpPort = config.httpPort;
  if (httpPort !== null) {
    const httpTls = config.httpTls ? tls : null;
    await side.add({
      protocol: httpTls ? "https" : "http",
      port: httpPort,
      open: async () => (await import("./http/http-server.js")).listenHttp(broker, { port: httpPort, bind: config.bind, config, cluster: clusterView ?? null, tokens, alarms, loginThrottle, tls: httpTls, certificates, listeners, audit: persistence.audit, shovels, federation: { records: () => federation.records(config.nodeName), restart: (vhost, id) => federation.restart(vhost, id) }, ...(apiPeers ? { peers: apiPeers } : {}) }, logger),
      opened: (l) => logger.info("management API listener started", { port: l.port, bind }),
    });
  }
  const prometheusPort = config.prometheusPort;
  if (prometheusPort !== null) {
    const metricsTls = config.httpTls ? tls : null;
    await side.add({
      protocol: metricsTls ? "https/prometheus" : "http/prometheus",
      port: prometheusPort,
      open: async () =>
        (await import("./metrics/index.js")).listenMetrics(
          // A cluster's leader runs this broker: it leads, and the leader is always in the in-sync set.
          { broker, alarms, dataDir: diskDir, node: config.nodeName, cluster: config.clusterName, listeners, federationLinks: () => federation.figures(), shovels: () => shovels.list(), ...(clusterView ? { clusterRole: () => ({ leader: true, inSync: true }) } : {}) },
          { port: prometheusPort, bind: config.bind, tls: metricsTls },
          logger,
          peerMetrics,
        ),
      opened: (l) => logger.info("Prometheus metrics listener started", { port: l.port, bind, tls: metricsTls !== null }),
    });
  }

  // Links start once the node is up: messages are recovered, the listeners bound.
  shovels.start();
  federation.start();
  let closed = false;
  return {
    amqpPort: amqp.port,
    get httpPort() {
      return side.portOf("http") ?? side.portOf("https");
    },
    get prometheusPort() {
      return side.portOf("http/prometheus") ?? side.portOf("https/prometheus");
    },
    get amqpsPort() {
      return side.portOf("amqp/ssl");
    },
    get mqttPort() {
      return side.portOf("mqtt");
    },
    get mqttsPort() {
      return side.portOf("mqtt/ssl");
    },
    get webMqttPort() {
      return side.portOf("http/web-mqtt");
    },
    get webMqttsPort() {
      return side.portOf("https/web-mqtt");
    },
    get stompPort() {
      return side.portOf("stomp");
    },
    get stompsPort() {
      return side.portOf("stomp/ssl");
    },
    get webStompPort() {
      return side.portOf("http/web-stomp");
    },
    get streamPort() {
      return side.portOf("stream");
    },
    get streamTlsPort() {
      return side.portOf("stream/ssl");
    },
    listeners,
    shovels,
    alarms,
    broker,
    config,
    clearRetainedMessages() {
      mqtt?.node.retained.clear();
    },
    retainedMessages: mqtt?.node.retained ?? null,
    async close() {
      if (closed) return;
      closed = true;
      await shovels.stop();
      await side.close();
      await federation.stop();
      // MQTT connections were shut down with their listeners: the retained messages are final.
      mqtt?.node.close();
      alarms.stop();
      await amqp.close();
      broker.halt();
      eventExchange?.stop();
      await nodeHooks?.close();
      await persistence.close();
      logger.info("broker stopped");
    },
  };
}
