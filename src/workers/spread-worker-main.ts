/**
 * A worker process of `coney --workers N --etcd-endpoints … --cluster-mode spread` (node:cluster
 * runs this script; primary.ts forks it; docs/CLUSTERING.md, "Workers as spread-cluster nodes"):
 * asks the primary what to run, then runs one spread-cluster node (cluster/spread-node.ts) with its
 * own name, data dir and link port, on the client ports every worker shares, and sends a heartbeat.
 * Membership, placement, definitions, the links to every other node (this machine's workers and
 * the other machines') and the stores' replication are the spread cluster's own: the primary
 * only forks, watches and restarts.
 *
 * It stops on the primary's `stop`, on SIGTERM, and when its IPC channel closes (the primary is
 * gone): no worker outlives its primary. SIGINT is left to the primary.
 */
import { createLogger, type Logger } from "../logging/logger.js";
import { IpcEndpoint, isEnvelope, PRIMARY } from "./ipc-endpoint.js";
import { workerName } from "./workers-file.js";
import type { SpreadWorkerStart } from "./worker-start.js";
import { bindFailureText } from "../listeners/bind-failure.js";
import type { SpreadNode } from "../cluster/spread-node.js";

/** A stop that hangs (an etcd call, a store that does not close) must not keep a worker without its primary alive. */
const STOP_LIMIT_MS = 15_000;

let startConfig: SpreadWorkerStart["config"] | null = null;

async function runSpreadWorker(): Promise<void> {
  const index = Number(process.env["CONEY_WORKER_INDEX"]);
  const endpoint = new IpcEndpoint(workerName(index), (e) => {
    if (process.connected) process.send!(e);
  });
  process.on("message", (m: unknown) => {
    if (isEnvelope(m)) endpoint.receive(m);
  });
  let node: SpreadNode | null = null;
  let logger: Logger | null = null;
  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    logger?.info("worker stopping", { why });
    setTimeout(() => process.exit(1), STOP_LIMIT_MS).unref();
    (node?.close() ?? Promise.resolve()).then(
      () => process.exit(0),
      (err: unknown) => {
        logger?.error("error while stopping", { err });
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => {});
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("disconnect", () => {
    endpoint.close("the primary is gone");
    stop("the primary is gone");
  });
  endpoint.handle("stop", () => stop("asked by the primary"));

  const start = (await endpoint.request(PRIMARY, "start", null, 30_000)) as SpreadWorkerStart;
  const { config } = start;
  startConfig = config;
  logger = createLogger(config.logLevel, undefined, { node: config.nodeName }, { format: config.logFormat });
  setInterval(() => endpoint.send(PRIMARY, "heartbeat"), start.heartbeatMs);
  // etcd3 is loaded only here, as main.ts loads it for a single spread node: an optional package, so its absence is said in one line.
  const { SpreadNode } = await import("../cluster/spread-node.js").catch((err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    const missing = code === "ERR_MODULE_NOT_FOUND" ? ["etcd3", "cockatiel"].find((name) => (err as Error).message.includes(`'${name}'`)) : undefined;
    if (missing === undefined) throw err;
    process.stderr.write(`coney worker: clustering (--etcd-endpoints) needs the optional package "${missing}", which is not installed: run "npm install etcd3" beside coney\n`);
    process.exit(1);
  });
  node = new SpreadNode(config, logger, start.ownStreamPort);
  await node.start();
  if (stopping) return;
  logger.info("worker serving as a spread-cluster node", { node: config.nodeName, data_dir: config.dataDir, pid: process.pid });
  endpoint.send(PRIMARY, "ready");
}

runSpreadWorker().catch((err: unknown) => {
  const bind = startConfig === null ? null : bindFailureText(err, startConfig);
  process.stderr.write(`coney worker: ${bind ?? (err instanceof Error && err.stack ? err.stack : String(err))}\n`);
  process.exit(1);
});
