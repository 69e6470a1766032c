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

/** Whether `config` makes the workers spread-cluster nodes (the only cluster mode workers run in). */
export function workersAsSpreadNodes(config: ConeyConfig): boolean {
  return config.etcdEndpoints.length > 0 && config.clusterMode === "spread";
}

/**
 * Worker `index`'s node name: `-w<i>` added before the `@host` of the configured name
 * (`coney@db1` → `coney-w0@db1`, `coney-w1@db1`), at the end of a name without one. The name is its
 * identity in etcd (its member key, its store's keys), so a restarted worker is the same node; two
 * machines need different configured names, as two spread nodes always do.
 */
export function spreadWorkerName(nodeName: string, index: number): string {
  const at = nodeName.indexOf("@");
  const suffix = `-${workerName(index)}`;
  return at < 0 ? `${nodeName}${suffix}` : `${nodeName.slice(0, at)}${suffix}${nodeName.slice(at)}`;
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
    nodeName: spreadWorkerName(config.nodeName, index),
    dataDir: join(config.dataDir, "spread", workerName(index)),
    clusterPort: spreadWorkerLinkPort(config.clusterPort, index, workers),
  };
}
