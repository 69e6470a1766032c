/** What the primary answers a worker's `start` request with (primary.ts → worker-main.ts). */
import type { ConeyConfig } from "../config/config.js";

export interface WorkerStart {
  readonly index: number;
  readonly workers: number;
  /** How often the worker sends its heartbeat. */
  readonly heartbeatMs: number;
  /** The configuration of this worker's broker: shared ports picked, its own node name, Prometheus port and files. */
  readonly config: ConeyConfig;
}
