/** What the primary and a worker tell each other: the answer to `start` (primary.ts → worker-main.ts) and to `figures`. */
import type { ConeyConfig } from "../config/config.js";
import type { PeerNode } from "../http/peer-nodes.js";

export interface WorkerStart {
  readonly index: number;
  readonly workers: number;
  /** How often the worker sends its heartbeat. */
  readonly heartbeatMs: number;
  /** The configuration of this worker's broker: shared ports picked, its own node name, Prometheus port and files. */
  readonly config: ConeyConfig;
}

/** A worker's answer to `figures` (another worker's /api/nodes or /api/overview asked): read in its own process. */
export type WorkerFigures = Pick<PeerNode, "record" | "listeners">;
