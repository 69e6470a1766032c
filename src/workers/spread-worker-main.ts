/**
 * A worker process of `coney --workers N --etcd-endpoints … --cluster-mode spread` (node:cluster
 * runs this script; primary.ts forks it; docs/CLUSTERING.md, "Workers as spread-cluster nodes"):
 * asks the primary what to run, then runs one spread-cluster node (cluster/spread-node.ts) with its
 * own name, data dir and link port, on the client ports every worker shares, and sends a heartbeat.
 * Membership, placement, definitions, the links to every other node (this machine's workers and
 * the other machines') and the stores' replication are the spread cluster's own: the primary
 * only forks, watches and restarts.
 *
 * Its IPC endpoint, start, heartbeat and stop (no worker outlives its primary) are worker-process.ts's.
 */
import type { SpreadWorkerStart } from "./worker-start.js";
import { ownVersion } from "../broker/index.js";
import { PRIMARY } from "./ipc-endpoint.js";
import { runWorkerProcess } from "./worker-process.js";

runWorkerProcess<SpreadWorkerStart>(async (w) => {
  const { endpoint, start, logger } = w;
  const { config } = start;
  // etcd3 is loaded only here, as main.ts loads it for a single spread node: an optional package, so its absence is said in one line.
  const { SpreadNode } = await import("../cluster/spread-node.js").catch((err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    const missing = code === "ERR_MODULE_NOT_FOUND" ? ["etcd3", "cockatiel"].find((name) => (err as Error).message.includes(`'${name}'`)) : undefined;
    if (missing === undefined) throw err;
    process.stderr.write(`coney worker: clustering (--etcd-endpoints) needs the optional package "${missing}", which is not installed: run "npm install etcd3" beside coney\n`);
    process.exit(1);
  });
  const node = new SpreadNode(config, logger, start.ownStreamPort);
  w.closeWith(node);
  await node.start();
  if (w.stopping) return;
  logger.info("worker serving as a spread-cluster node", { node: config.nodeName, data_dir: config.dataDir, pid: process.pid });
  endpoint.send(PRIMARY, "ready", ownVersion());
});
