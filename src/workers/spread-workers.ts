/**
 * `coney --workers N --etcd-endpoints … --cluster-mode spread` (docs/CLUSTERING.md, "Workers as
 * spread-cluster nodes"): each worker process is a node of the spread cluster of its own. This
 * module owns what the primary gives each such worker: its node name, its data dir, its link port.
 * Client ports stay shared through the primary (worker-ports.ts); the Prometheus and own stream
 * ports are spread per worker as for `--workers N` alone.
 */
import { join } from "node:path";
import type { ConeyConfig } from "../config/config.js";
import { workerName } from "./workers-file.js";
import { workerNodeName } from "./worker-node-name.js";

/** Whether `config` makes the workers spread-cluster nodes (the only cluster mode workers run in). */
export function workersAsSpreadNodes(config: ConeyConfig): boolean {
  return config.etcdEndpoints.length > 0 && config.clusterMode === "spread";
}

/** The link port of worker `index`: `--cluster-port` + index, or 0 (each worker binds an ephemeral port of its own). */
export function spreadWorkerLinkPort(clusterPort: number, index: number, workers: number): number {
  if (clusterPort === 0) return 0;
  if (clusterPort + workers - 1 > 65535) throw new Error(`--cluster-port ${clusterPort}: worker ${workers - 1} would listen past port 65535 (each worker i links on the port + i)`);
  return clusterPort + index;
}

/**
 * The configuration worker `index` runs its spread node with. Its store, definitions and the
 * replicas it follows live under `<data>/spread/w<i>/`, apart from the queue groups of
 * `--workers N` alone (`<data>/groups/`), so a data dir used in both ways mixes no stores.
 */
export function spreadWorkerConfig(config: ConeyConfig, index: number, workers: number): Pick<ConeyConfig, "nodeName" | "dataDir" | "clusterPort"> {
  return {
    nodeName: workerNodeName(config.nodeName, index),
    dataDir: join(config.dataDir, "spread", workerName(index)),
    clusterPort: spreadWorkerLinkPort(config.clusterPort, index, workers),
  };
}
