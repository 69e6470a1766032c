/** What the primary and a worker tell each other: the answer to `start` (primary.ts → worker-main.ts) and to `figures`. */
import type { ConeyConfig } from "../config/config.js";
import type { PeerNode } from "../http/peer-nodes.js";
import type { WorkerLinks } from "./worker-queues.js";
import type { GroupTable } from "./group-table.js";

export interface WorkerStart {
  readonly index: number;
  readonly workers: number;
  /** How often the worker sends its heartbeat. */
  readonly heartbeatMs: number;
  /** The configuration of this worker's broker: shared ports picked, its own node name, Prometheus port and files. */
  readonly config: ConeyConfig;
  /** Where the workers' links are, their secret and every worker's node name (worker-queues.ts). */
  readonly links: WorkerLinks;
  /** Every worker's own stream port, by index (null: no stream listener): Metadata names a stream's leader by it. */
  readonly streamPorts: Array<number | null>;
  /** The group table as the primary holds it now (later ones come as `table` requests). */
  readonly table: GroupTable;
  /** The whole broker's data dir, where the groups' stores are (`groups/g<i>/`); null: nothing is stored (`--in-memory`). */
  readonly groupsDataDir: string | null;
  /** The ports the primary picked for port 0: one found taken is told (`port-taken`), not retried (src/listeners/port-picks.ts). */
  readonly pickedPorts: readonly number[];
}

/** A worker's answer to `figures` (another worker's /api/nodes or /api/overview asked): read in its own process. */
export type WorkerFigures = Pick<PeerNode, "record" | "listeners">;

/** The answer to `start` for a worker that is a spread-cluster node (spread-worker-main.ts; docs/CLUSTERING.md, "Workers as spread-cluster nodes"). */
export interface SpreadWorkerStart {
  readonly index: number;
  readonly heartbeatMs: number;
  /** Its spread node's configuration: shared client ports picked, its own node name, data dir, link and Prometheus ports. */
  readonly config: ConeyConfig;
  /** Its own stream port (null: no stream listener), which its member record names for Metadata. */
  readonly ownStreamPort: number | null;
  /** As WorkerStart's. */
  readonly pickedPorts: readonly number[];
}
