/**
 * Which node leads a queue, for a node that is one of several each leading some queues
 * (`coney --workers N`; docs/CLUSTERING.md, "One machine"). The node's composition implements it
 * (src/workers) and hands it to Broker.placeQueuesWith; a single node has none, and every queue
 * it declares is its own.
 */
import type { QueueLeaderPort } from "./queue-leader-port.js";
import type { QueueSpec } from "./queue-spec.js";

export interface QueuePlacement {
  /**
   * The port to the queue's leader when another node leads it; null when this node does. `spec`
   * (at a declare) lets a placement read the queue's arguments (its leader locator, its type);
   * it may throw a BrokerError to refuse the declare.
   */
  leaderOf(vhost: string, name: string, spec?: QueueSpec): QueueLeaderPort | null;
  /** The port to node `node` (an exclusive queue's owner, owner-elsewhere.ts); null for this node. */
  portOf(node: string): QueueLeaderPort | null;
  /**
   * The group a queue joins when the placement decides it (`coney --workers N`: the name hash, as
   * every worker computes it alone, whatever a definitions file recorded); absent: the node's own
   * choice (queue-groups.ts).
   */
  groupOf?(vhost: string, name: string): number;
}
