/**
 * Where a queue leads (docs/CLUSTERING.md, "Placement"): the leader locator a queue resolves to,
 * the node that locator picks, and the queue group a name hashes to. Pure functions, no state:
 * the future `defs` leader calls them at declare and records the answer; nothing here is wired
 * to a declare yet, because today one node leads every queue (see "Build order" there).
 *
 * The locator as RabbitMQ 3.10 resolves it (rabbit_queue_location:leader_locator): the
 * `queue-leader-locator` policy key wins over the `x-queue-leader-locator` argument, then the
 * `queue_leader_locator` setting; `random` and `least-leaders` are deprecated spellings of
 * `balanced`; anything else means `client-local`.
 */
import { hashString } from "../exchange/hash-ring.js";

export type LeaderLocator = "client-local" | "balanced";

/** The values RabbitMQ 3.10 accepts for the argument and the policy key (the last two deprecated, = balanced). */
export const LEADER_LOCATOR_VALUES: readonly string[] = ["client-local", "balanced", "random", "least-leaders"];

function normalise(v: unknown): LeaderLocator {
  return v === "balanced" || v === "random" || v === "least-leaders" ? "balanced" : "client-local";
}

/** The locator of a queue: its policy's key, else its argument, else the configured default. */
export function leaderLocatorOf(args: Readonly<Record<string, unknown>>, policy: Readonly<Record<string, unknown>>, configured: string | undefined): LeaderLocator {
  const chosen = policy["queue-leader-locator"] ?? args["x-queue-leader-locator"] ?? configured;
  return normalise(chosen);
}

/** A node a queue could lead on: its name, whether it runs, and how many queues it leads now. */
export interface PlacementNode {
  readonly name: string;
  readonly running: boolean;
  readonly leaders: number;
}

/**
 * The node a new queue leads on. `client-local`: the node the declaring client is on (`self`).
 * `balanced`: the running node leading the fewest queues (every node when none runs), ties to
 * the first in `nodes`' order. RabbitMQ 3.10 picks at random past 1000 queues because counting
 * its queues' leaders is costly; the caller here keeps the counts, so the choice stays O(nodes).
 */
export function chooseLeaderNode(locator: LeaderLocator, self: string, nodes: readonly PlacementNode[]): string {
  if (locator === "client-local" || nodes.length === 0) return self;
  const running = nodes.filter((n) => n.running);
  let best: PlacementNode | null = null;
  for (const n of running.length > 0 ? running : nodes) if (best === null || n.leaders < best.leaders) best = n;
  return best!.name;
}

/**
 * The queue group a queue's name hashes to, in [0, groups): stable across processes and versions
 * (a queue's group is recorded at declare; the hash decides ties and the groups of queues
 * declared before any group was assigned).
 */
export function queueGroupOf(vhost: string, name: string, groups: number): number {
  if (!Number.isInteger(groups) || groups < 1) throw new RangeError(`queue groups must be a positive integer, got ${groups}`);
  return hashString(`${vhost}\u0000${name}`) % groups;
}
