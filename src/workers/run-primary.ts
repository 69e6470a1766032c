/**
 * `coney --workers N` with N > 1, from main.ts: runs the primary (primary.ts) until SIGTERM or
 * SIGINT, which stop every worker gracefully before the primary exits 0. With `--etcd-endpoints`
 * and `--cluster-mode spread` each worker is a spread-cluster node (spread-worker-main.ts); with the
 * replicated mode (one leader for everything) refused, exit 64 (docs/CLUSTERING.md, "Workers as
 * spread-cluster nodes").
 */
import { fileURLToPath } from "node:url";
import type { ConeyConfig } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import { Primary } from "./primary.js";
import { PickedPortTaken } from "../listeners/port-picks.js";
import { SHARED_PORTS, type SharedPortKey } from "./worker-ports.js";
import { workersAsSpreadNodes } from "./spread-workers.js";
import { workerNodeName } from "./worker-node-name.js";
import { machineOf } from "../cluster/spread-machines.js";

/** Why `config` cannot run as workers, or null. */
export function refusal(config: ConeyConfig): string | null {
  // A replicated cluster has one leader for every queue: a second worker would have nothing to lead.
  if (config.etcdEndpoints.length > 0 && !workersAsSpreadNodes(config)) return `--workers ${config.workers} with --etcd-endpoints needs --cluster-mode spread (each worker a node homing its own queues); --cluster-mode ${config.clusterMode} has one leader for every queue, so it runs one worker`;
  return null;
}

/**
 * `CONEY_WORKERS_RESTART_DELAY_MS`: the first delay before a dead worker is restarted (default
 * 100 ms, doubled on each quick death up to 10 s or this value if larger). Tests set it to watch a
 * dead worker's groups served by the others before its restart (docs/CLUSTERING.md).
 */
function restartDelayFromEnv(): { restartDelayMs?: { first: number; max: number } } {
  const raw = process.env["CONEY_WORKERS_RESTART_DELAY_MS"];
  if (raw === undefined || raw === "") return {};
  const first = Number(raw);
  if (!Number.isInteger(first) || first < 0) throw new Error(`CONEY_WORKERS_RESTART_DELAY_MS: '${raw}' is not a number of milliseconds`);
  return { restartDelayMs: { first, max: Math.max(first, 10_000) } };
}

/**
 * `CONEY_WORKERS_FIRST_PICK` (`amqpPort=P,mqttPort=Q`): the first start's picks of these port-0
 * shared ports are replaced, so a test can hand the workers a port another process holds and watch
 * the start picked again (src/listeners/port-picks.ts). Later starts pick freely.
 */
function firstPickFromEnv(): Partial<Record<SharedPortKey, number>> {
  const raw = process.env["CONEY_WORKERS_FIRST_PICK"];
  if (raw === undefined || raw === "") return {};
  const forced: Partial<Record<SharedPortKey, number>> = {};
  for (const pair of raw.split(",")) {
    const [key, value] = pair.split("=");
    const port = Number(value);
    if (!(SHARED_PORTS as readonly string[]).includes(key ?? "") || !Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`CONEY_WORKERS_FIRST_PICK: '${pair}' is not <shared port setting>=<port>`);
    forced[key as SharedPortKey] = port;
  }
  return forced;
}

/** How many times a start is run again on fresh picks when a picked port was taken meanwhile. */
const PICK_ATTEMPTS = 5;

export async function runPrimary(config: ConeyConfig, logger: Logger): Promise<void> {
  const why = refusal(config);
  if (why !== null) {
    process.stderr.write(`coney: ${why}\n`);
    process.exit(64);
  }
  const spread = workersAsSpreadNodes(config);
  const entry = spread ? "./spread-worker-main.js" : "./worker-main.js";
  let forcedPorts: Partial<Record<SharedPortKey, number>>;
  try {
    forcedPorts = firstPickFromEnv();
  } catch (err) {
    process.stderr.write(`coney: ${(err as Error).message}\n`);
    process.exit(64);
  }
  const primaryFor = (attempt: number): Primary => new Primary({ config, logger, workerEntry: fileURLToPath(new URL(entry, import.meta.url)), ...restartDelayFromEnv(), ...(config.queueGroups !== null ? { queueGroups: config.queueGroups } : {}), ...(attempt === 1 ? { forcedPorts } : {}) });
  let primary = primaryFor(1);
  const stop = (signal: string): void => {
    logger.info("stopping", { signal });
    primary.stop().then(
      () => {
        logger.info("Coney stopped", { workers: config.workers });
        process.exit(0);
      },
      (err: unknown) => {
        logger.error("error while stopping", { err });
        process.exit(1);
      },
    );
  };
  let stopAsked = false;
  process.on("SIGTERM", () => ((stopAsked = true), stop("SIGTERM")));
  process.on("SIGINT", () => ((stopAsked = true), stop("SIGINT")));
  for (let attempt = 1; ; attempt++) {
    try {
      await primary.start();
      break;
    } catch (err) {
      // A picked port another process took between the pick and the bind: all again on fresh picks (a signal meanwhile: its stop exits).
      if (err instanceof PickedPortTaken && attempt < PICK_ATTEMPTS && !stopAsked) {
        logger.warn("a port picked for port 0 was taken before the workers bound it; starting again on fresh picks", { port: err.port, protocol: err.protocol, attempt });
        primary = primaryFor(attempt + 1);
        continue;
      }
      process.stderr.write(`coney: ${(err as Error).message}\n`);
      process.exit(1);
    }
  }
  const { shared, prometheus, stream } = primary.sharedPorts;
  // The machine rule (docs/CLUSTERING.md, "Copies on other machines") reads a node's machine from the `@host` of its name.
  if (spread && !config.nodeName.includes("@")) logger.warn("the node name has no @host: each worker counts as a machine of its own, so a confirm may wait only for copies on this machine; name it <name>@<host>", { node_name: config.nodeName });
  logger.info("Coney started", { amqp_port: shared.amqpPort, http_port: shared.httpPort, mqtt_port: shared.mqttPort, prometheus_ports: prometheus, stream_port: shared.streamPort, stream_worker_ports: stream, workers: config.workers, ...(spread ? { cluster: config.clusterName, cluster_mode: "spread", nodes: Array.from({ length: config.workers }, (_, i) => workerNodeName(config.nodeName, i)), machine: machineOf(workerNodeName(config.nodeName, 0)) } : {}), primary_pid: process.pid, data_dir: config.inMemory ? null : config.dataDir });
}
