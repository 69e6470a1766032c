/** The `coney` command: load configuration, start the broker, stop cleanly on SIGTERM/SIGINT. */
import { loadConfigWithWarnings, type LoadedConfig } from "./config/load-config.js";
import { createLogger } from "./logging/logger.js";
import { startBroker } from "./start-broker.js";
import { QueueGroupsMismatch } from "./store/queue-groups-file.js";
import type { Logger } from "./logging/logger.js";
import { bindFailureText } from "./listeners/bind-failure.js";
import { takeBackFromWorkers } from "./workers/workers-to-single-node.js";

export async function main(argv: string[]): Promise<void> {
  let loaded: LoadedConfig;
  try {
    loaded = loadConfigWithWarnings(argv, process.env);
  } catch (err) {
    const e = err as { code?: string; exitCode?: number; message?: string };
    if (e.code === "commander.helpDisplayed" || e.code === "commander.version") process.exit(0);
    process.stderr.write(`coney: ${e.message ?? String(err)}\n`);
    process.exit(64);
  }
  const { config, unsupported } = loaded;
  const logger = createLogger(config.logLevel, undefined, {}, { format: config.logFormat });
  // One line naming every rabbitmq.conf key Coney ignores, so none goes unnoticed.
  if (unsupported.length > 0) logger.warn(`config file ${config.configFile}: settings Coney does not support, ignored: ${unsupported.join(", ")}`, { unsupported });
  // `coney --workers N` (N > 1): this process becomes the primary of N broker processes
  // (src/workers, docs/CLUSTERING.md). Loaded only then: with one worker nothing of it runs.
  if (config.workers > 1) return (await import("./workers/run-primary.js")).runPrimary(config, logger);
  // Signal handlers go in before anything starts: a SIGTERM right after the "Coney started"
  // line (or during startup) must stop the broker cleanly, not kill it by default action.
  let running: { close(): Promise<void> } | null = null;
  let stopRequested: string | null = null;
  let stopping = false;
  const stop = (signal: string): void => {
    if (running === null) {
      stopRequested = signal;
      return;
    }
    if (stopping) return;
    stopping = true;
    logger.info("stopping", { signal });
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error("error while stopping", { err });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  if (config.etcdEndpoints.length > 0 && config.clusterMode === "spread") {
    // A spread cluster (a preview; docs/CLUSTERING.md, "A spread cluster over etcd"): every node serves and homes its own queues.
    const { SpreadNode } = await loadSpread();
    const node = new SpreadNode(config, logger);
    await node.start().catch((err: unknown) => refuseStart(err, logger, config));
    running = node;
    logger.info("Coney started", { node: config.nodeName, cluster: config.clusterName, cluster_mode: "spread", amqp_port: node.amqpPort, http_port: node.httpPort, data_dir: config.dataDir });
  } else if (config.etcdEndpoints.length > 0) {
    // A cluster node (docs/CLUSTERING.md): it becomes a broker only while it leads. Loaded only
    // here, so a single node never loads etcd3 and gRPC (start time, memory, descriptors).
    const { ClusterNode } = await loadCluster();
    const node = new ClusterNode(config, logger);
    await node.start().catch((err: unknown) => refuseStart(err, logger, config));
    running = node;
    logger.info("Coney started", { node: config.nodeName, cluster: config.clusterName, amqp_port: node.clientPorts.amqp, http_port: node.clientPorts.http ?? null, data_dir: config.dataDir });
  } else {
    // A workers data dir is taken back into a single node's layout first (workers/workers-to-single-node.ts).
    const broker = await Promise.resolve()
      .then(() => (config.inMemory ? null : takeBackFromWorkers(config.dataDir, config.queueGroups, logger)))
      .then(() => startBroker({ ...config, logger }))
      .catch((err: unknown) => refuseStart(err, logger, config));
    running = broker;
    logger.info("Coney started", { amqp_port: broker.amqpPort, http_port: broker.httpPort, prometheus_port: broker.prometheusPort, data_dir: config.inMemory ? null : config.dataDir });
    if (config.inMemory) logger.warn("in memory: definitions and messages are not stored and last only as long as this process (--in-memory)");
  }
  if (stopRequested !== null) stop(stopRequested);
}

/**
 * The cluster's etcd client (etcd3, with gRPC and protobufjs) is an optional peer dependency:
 * a project that embeds Coney or only uses coney/testing installs none of it. A node asked to
 * cluster without it exits with the command that installs it, not with a module trace.
 */
async function loadCluster(): Promise<typeof import("./cluster/cluster-node.js")> {
  return withEtcdClient(() => import("./cluster/cluster-node.js"));
}

async function loadSpread(): Promise<typeof import("./cluster/spread-node.js")> {
  return withEtcdClient(() => import("./cluster/spread-node.js"));
}

async function withEtcdClient<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const missing = missingPackage(err, ["etcd3", "cockatiel"]);
    if (missing === null) throw err;
    process.stderr.write(`coney: clustering (--etcd-endpoints) needs the optional package "${missing}", which is not installed: run "npm install etcd3" beside coney\n`);
    process.exit(1);
  }
}

/** Which of `names` a failed import could not find, or null when it failed for another reason. */
function missingPackage(err: unknown, names: readonly string[]): string | null {
  if (!(err instanceof Error) || (err as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") return null;
  return names.find((name) => err.message.includes(`'${name}'`)) ?? null;
}

/**
 * Operators' errors at start, not crashes, end without a stack: a port that cannot be bound
 * (listeners/bind-failure.ts) exits 1 with one line; a data dir whose queue groups differ from the
 * setting (store/queue-groups-file.ts) is logged and exits 78 (EX_CONFIG). Anything else goes on up.
 */
function refuseStart(err: unknown, logger: Logger, config: LoadedConfig["config"]): never {
  const bind = bindFailureText(err, config);
  if (bind !== null) {
    process.stderr.write(`coney: ${bind}\n`);
    process.exit(1);
  }
  if (!(err instanceof QueueGroupsMismatch)) throw err;
  logger.error(`cannot start: ${err.message}`);
  process.exit(78);
}
