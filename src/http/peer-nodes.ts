/**
 * The other nodes of one broker, as /api/nodes shows them: the workers of `coney --workers N`
 * (src/workers hands an implementation to the API; the API never imports it). Each node's figures
 * are read in its own process, so the list is asked for, not held.
 */
import type { PeerRecords } from "./peer-records.js";

export interface PeerNode {
  readonly name: string;
  readonly running: boolean;
  /** What is known of the node: its process figures (as nodeRecord's) when it answered in time, and Coney's extensions. */
  readonly record: Readonly<Record<string, unknown>>;
  /** Its bound listeners, as it answered (empty for this node and for one that did not answer): /api/overview lists them. */
  readonly listeners: ReadonlyArray<PeerListener>;
}

/** A listener of another node. */
export interface PeerListener {
  readonly protocol: string;
  readonly port: number;
  /**
   * The address it listens on, as that node knows it (its `--bind`, "::" for every interface).
   * Absent: the same as this node's (the workers of one machine share one `--bind`); a spread
   * cluster's nodes each have their own, and listing this node's for them named one host's
   * address for every node (seen with a node per network namespace, docs/CLUSTERING.md "On
   * machines of their own").
   */
  readonly ip?: string;
}

export interface PeerNodes {
  /** The other workers' connections, channels, consumers and overview figures (peer-records.ts). */
  readonly records?: PeerRecords;
  /** Every node of the broker, this one included (its `record` then holds only the extensions). */
  list(): Promise<PeerNode[]>;
  /**
   * The nodes holding a copy of the store of node `home` (it included) and those of them running:
   * a spread cluster's replicated stores, shown as a queue's `members` and `online`, and whether a
   * copy is on another machine than the writer's (`replica_placement`). Absent: a stream's only
   * member is its leader.
   */
  storeCopies?(home: string): { readonly members: readonly string[]; readonly online: readonly string[]; readonly placement?: string };
  /**
   * `POST /api/rebalance/queues`: the queue groups evened out over the running nodes (`coney
   * --workers N`: the primary's group table); resolves once this node follows the new table.
   * Absent: nothing to move.
   */
  rebalance?(): Promise<void>;
}
