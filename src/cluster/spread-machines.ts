/**
 * Machine-aware copies of a spread cluster's stores (docs/CLUSTERING.md, "Workers as spread-cluster
 * nodes", "Copies on other machines"). Under `coney --workers N --cluster-mode spread` a machine
 * runs N nodes, and a copy on a node of the writer's own machine dies with that machine. This module
 * owns the rule that keeps a confirmed message off one machine alone:
 * - a node's *machine* is the host part of its name (after the last `@`, as RabbitMQ's node names
 *   carry their host: `coney-w1@db1` is on `db1`); a name without `@` is a machine of its own;
 * - a store's writer confirms only while its in-sync followers (those etcd lists, so one of them can
 *   adopt the store) span `wanted` machines other than its own, or every other machine that is
 *   live — one with a node connected to the writer's replication listener and not demoted for
 *   keeping confirms waiting (follower-pace.ts) — when fewer are;
 * - so with no other machine live it falls back to copies on its own machine (its other workers),
 *   and `/api/queues` says so (`replica_placement`).
 * Pure functions: the replication leader asks them once per batch it would confirm.
 */

/** The machine node `node` runs on: the host part of its name, or the name itself when it has none. */
export function machineOf(node: string): string {
  const at = node.lastIndexOf("@");
  return at < 0 ? node : node.slice(at + 1);
}

/** The distinct machines of `nodes`. */
export function machinesOf(nodes: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const n of nodes) out.add(machineOf(n));
  return out;
}

/**
 * Other machines a store's in-sync copies must span (before the fall-back to the live ones): a
 * majority of the known machines counting the writer's (`floor(M / 2)`), as the node count's
 * default is a majority of the known nodes. 0 when every known node is on one machine.
 */
export function machinesWanted(known: Iterable<string>): number {
  const m = machinesOf(known).size;
  return m < 2 ? 0 : Math.floor(m / 2);
}

/**
 * The default `--min-in-sync-replicas` over `knownNodes` nodes on machines of which `wanted`
 * others are wanted (machinesWanted): with every node on one machine, a
 * majority of the nodes counting the writer (`floor(known / 2)`, the replicated cluster's rule);
 * over several machines, as many followers as other machines are wanted. The machine rule then
 * asks for them on other machines while any is live, so a machine lost takes no confirmed message
 * with it and the survivors keep confirming on the copies they still have (one machine of two
 * lost, a node-count majority of four workers could never be met again).
 */
export function defaultMinInSync(knownNodes: number, wanted: number): number {
  return wanted === 0 ? Math.floor(Math.max(knownNodes, 1) / 2) : wanted;
}

/** What the rule reads of a connected follower: a demoted one (silent past the ack bound) does not make its machine live. */
export interface LinkedFollower {
  readonly demoted: boolean;
}

/**
 * Whether a writer on `writerMachine` may confirm with `inSync` listed in sync, while the followers
 * in `connected` are linked to it: the in-sync followers span at least `wanted` other machines, or
 * every other machine that has a connected follower not demoted when fewer do. It runs per confirmed batch
 * (never per message), over a handful of names.
 */
export function copiesPlaced(writerMachine: string, wanted: number, inSync: ReadonlySet<string>, connected: ReadonlyMap<string, LinkedFollower>): boolean {
  if (wanted === 0) return true;
  let live = 0;
  let held = 0;
  // Distinct machines counted without a set: the lists are a handful of nodes.
  const seen: string[] = [];
  for (const [name, link] of connected) {
    if (link.demoted) continue;
    const m = machineOf(name);
    if (m === writerMachine || seen.includes(m)) continue;
    seen.push(m);
    live++;
  }
  const need = Math.min(wanted, live);
  if (need === 0) return true;
  seen.length = 0;
  for (const name of inSync) {
    const m = machineOf(name);
    if (m === writerMachine || seen.includes(m)) continue;
    seen.push(m);
    if (++held >= need) return true;
  }
  return false;
}

export type ReplicaPlacement = "other-machines" | "same-machine" | "none";

/**
 * How a store's in-sync copies are placed, as `/api/queues` shows it: `other-machines` when one is
 * on a machine other than its writer's, `same-machine` when all are on the writer's machine (the
 * fall-back while no other machine is live), `none` when no follower is in sync.
 */
export function replicaPlacement(writer: string, inSync: readonly string[]): ReplicaPlacement {
  const own = machineOf(writer);
  let followers = 0;
  for (const n of inSync) {
    if (n === writer) continue;
    if (machineOf(n) !== own) return "other-machines";
    followers++;
  }
  return followers > 0 ? "same-machine" : "none";
}
