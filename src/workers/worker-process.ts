/**
 * What every worker process of `coney --workers N` does, whatever it runs (worker-main.ts: a
 * broker of the worker groups; spread-worker-main.ts: a spread-cluster node): its IPC endpoint to
 * the primary, the start request, its logger and heartbeat, and its stop.
 *
 * It stops on the primary's `stop`, on SIGTERM, and when its IPC channel closes (the primary is
 * gone, even killed -9: no worker outlives it, so none writes a store the primary hands to
 * another). SIGINT is left to the primary: a Ctrl-C reaches the whole process group. A start that
 * fails prints one line (a port it cannot bind: listeners/bind-failure.ts) and exits 1; one whose
 * port, picked by the primary for port 0, was taken meanwhile tells the primary first (src/listeners/port-picks.ts).
 */
import type { ConeyConfig } from "../config/config.js";
import { createLogger, type Logger } from "../logging/logger.js";
import { bindFailureText } from "../listeners/bind-failure.js";
import { IpcEndpoint, isEnvelope, PRIMARY } from "./ipc-endpoint.js";
import { workerName } from "./workers-file.js";
import { asTakenPickedPort } from "../listeners/port-picks.js";

/** A stop that hangs (an etcd call, a store that does not close) must not keep a worker without its primary alive. */
const STOP_LIMIT_MS = 15_000;

/** What a worker's body is given once the primary answered `start`. */
export interface StartedWorker<S> {
  readonly index: number;
  readonly endpoint: IpcEndpoint;
  readonly start: S;
  readonly logger: Logger;
  /** A stop was asked (the body, once open, closes what it opened and returns). */
  readonly stopping: boolean;
  /** What a stop closes from now on. */
  closeWith(open: { close(): Promise<void> }): void;
}

/** Runs this process as worker CONEY_WORKER_INDEX: `body` opens what it runs and sends `ready`. */
export function runWorkerProcess<S extends { readonly config: ConeyConfig; readonly heartbeatMs: number; readonly pickedPorts: readonly number[] }>(body: (w: StartedWorker<S>) => Promise<void>): void {
  const index = Number(process.env["CONEY_WORKER_INDEX"]);
  const endpoint = new IpcEndpoint(workerName(index), (e) => {
    if (process.connected) process.send!(e);
  });
  process.on("message", (m: unknown) => {
    if (isEnvelope(m)) endpoint.receive(m);
  });
  let open: { close(): Promise<void> } | null = null;
  let logger: Logger | null = null;
  let stopping = false;
  let config: ConeyConfig | null = null;
  let picked: readonly number[] = [];
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    logger?.info("worker stopping", { why });
    setTimeout(() => process.exit(1), STOP_LIMIT_MS).unref();
    (open?.close() ?? Promise.resolve()).then(
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

  const run = async (): Promise<void> => {
    const start = (await endpoint.request(PRIMARY, "start", null, 30_000)) as S;
    config = start.config;
    picked = start.pickedPorts;
    const log = createLogger(config.logLevel, undefined, { node: config.nodeName }, { format: config.logFormat });
    logger = log;
    setInterval(() => endpoint.send(PRIMARY, "heartbeat"), start.heartbeatMs);
    await body({
      index,
      endpoint,
      start,
      logger: log,
      get stopping() {
        return stopping;
      },
      closeWith: (o) => {
        open = o;
      },
    });
  };
  run().catch(async (err: unknown) => {
    // A port the primary picked, taken meanwhile by another process: told, so the primary picks again (src/listeners/port-picks.ts).
    const taken = asTakenPickedPort(err, picked);
    if (taken !== null) {
      logger?.warn("a port picked for port 0 is taken; the primary picks again", { port: taken.port, protocol: taken.protocol });
      await endpoint.request(PRIMARY, "port-taken", { port: taken.port, protocol: taken.protocol }, 5000).catch(() => undefined);
      process.exit(1);
    }
    const bind = config === null ? null : bindFailureText(err, config);
    process.stderr.write(`coney worker: ${bind ?? (err instanceof Error && err.stack ? err.stack : String(err))}\n`);
    process.exit(1);
  });
}
