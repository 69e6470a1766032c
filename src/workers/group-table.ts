/**
 * The group table of `coney --workers N` (docs/CLUSTERING.md, "One machine"): which worker leads
 * each queue group, under which epoch. Pure: the primary (primary.ts) keeps one, persists it
 * (workers-file.ts) and sends it to every worker; these functions compute each next table.
 *
 * Invariants every function keeps:
 * - a group has at most one worker; a group's epoch only grows, and grows each time the group
 *   gets a new leader (so a store write under an old epoch can be told apart and refused);
 * - `version` grows by one per change, so a worker can ack the table it applied;
 * - the spread is even: over the live workers, group counts differ by at most one after
 *   `spread` and `rebalance`.
 */

/** One group's line: its leading worker (null while nobody leads it, between a revoke and an assign) and its epoch. */
export interface GroupSlot {
  readonly worker: number | null;
  readonly epoch: number;
}

export interface GroupTable {
  readonly version: number;
  /** Indexed by group number: `groups[g]` is group `g<g>`. */
  readonly groups: readonly GroupSlot[];
}

/** A group leaving one worker for another in a rebalance. */
export interface GroupMove {
  readonly group: number;
  readonly from: number;
  readonly to: number;
}

/** The name of group `g` (a directory name under `<data>/groups/`, per the design). */
export const groupName = (g: number): string => `g${g}`;

/** Groups each live worker leads now. */
function loads(groups: readonly GroupSlot[], live: readonly number[]): Map<number, number> {
  const load = new Map<number, number>();
  for (const w of live) load.set(w, 0);
  for (const s of groups) if (s.worker !== null && load.has(s.worker)) load.set(s.worker, load.get(s.worker)! + 1);
  return load;
}

/** The live worker leading the fewest groups; ties to the lowest index (deterministic). */
function leastLoaded(load: Map<number, number>): number {
  let best = -1;
  let bestLoad = Infinity;
  for (const [w, n] of load) if (n < bestLoad || (n === bestLoad && w < best)) [best, bestLoad] = [w, n];
  return best;
}

function sortedLive(live: readonly number[]): number[] {
  const out = [...new Set(live)].sort((a, b) => a - b);
  if (out.length === 0) throw new Error("a group table needs at least one live worker");
  return out;
}

/**
 * Gives every group without a live leader (never assigned, its worker dead or not live) to the
 * least-loaded live worker, with a new epoch. Groups whose worker is live keep it and their epoch.
 * With no live worker, such groups are left without a leader (same epoch) until one is back.
 */
export function spread(table: GroupTable, live: readonly number[]): GroupTable {
  const workers = [...new Set(live)].sort((a, b) => a - b);
  const load = loads(table.groups, workers);
  let changed = false;
  const groups = table.groups.map((s) => {
    if (s.worker !== null && load.has(s.worker)) return s;
    // No live worker at all (every one dead at once): the group waits without a leader.
    if (workers.length === 0) {
      if (s.worker === null) return s;
      changed = true;
      return { worker: null, epoch: s.epoch };
    }
    const to = leastLoaded(load);
    load.set(to, load.get(to)! + 1);
    changed = true;
    return { worker: to, epoch: s.epoch + 1 };
  });
  return changed ? { version: table.version + 1, groups } : table;
}

/** The first table: `groupCount` groups, none led yet (epoch 0), spread over the live workers (each at epoch 1). */
export function initialTable(groupCount: number, live: readonly number[]): GroupTable {
  if (!Number.isInteger(groupCount) || groupCount < 1) throw new Error(`queue groups: ${groupCount} is not a positive integer`);
  const empty: GroupTable = { version: 0, groups: Array.from({ length: groupCount }, () => ({ worker: null, epoch: 0 })) };
  return spread(empty, live);
}

/**
 * A table read back at the primary's start (workers.json): every group's epoch is raised by one
 * (whatever led it before is gone with the old primary, so the new leader needs a new epoch),
 * every leader dropped, and the groups spread anew over this start's workers.
 */
export function restartedTable(saved: GroupTable, live: readonly number[]): GroupTable {
  const released: GroupTable = { version: saved.version, groups: saved.groups.map((s) => ({ worker: null, epoch: s.epoch })) };
  return spread(released, live);
}

/** Worker `dead` is gone (its exit seen): its groups go to the least-loaded live workers, each with a new epoch. */
export function withoutWorker(table: GroupTable, dead: number, live: readonly number[]): GroupTable {
  return spread(table, live.filter((w) => w !== dead));
}

/**
 * The moves that even the spread out: while one live worker leads more than another by two or
 * more, one of its groups moves to the least-loaded one: one whose `home` is that worker if it has
 * one, else its highest-numbered. Moves are planned, not applied:
 * a move between two live workers is a revoke (the old leader closes the group) and then an
 * assign (`revoke` and `assign`), so two processes never hold one group.
 */
export function planRebalance(table: GroupTable, live: readonly number[], home: ((group: number) => number) | null = null): GroupMove[] {
  const workers = sortedLive(live);
  const load = loads(table.groups, workers);
  const owned = new Map<number, number[]>(workers.map((w) => [w, []]));
  table.groups.forEach((s, g) => {
    if (s.worker !== null) owned.get(s.worker)?.push(g);
  });
  const moves: GroupMove[] = [];
  for (;;) {
    const to = leastLoaded(load);
    let from = -1;
    for (const [w, n] of load) if (from === -1 || n > load.get(from)! || (n === load.get(from)! && w < from)) from = w;
    if (load.get(from)! - load.get(to)! < 2) return moves;
    // A group whose home (its worker in the first table) is `to` goes first: a restarted worker
    // gets back what was taken from it, and the others keep their own.
    const list = owned.get(from)!;
    let homeward = -1;
    if (home !== null) for (let i = list.length - 1; i >= 0 && homeward === -1; i--) if (home(list[i]!) === to) homeward = i;
    const group = homeward === -1 ? list.pop()! : list.splice(homeward, 1)[0]!;
    load.set(from, load.get(from)! - 1);
    load.set(to, load.get(to)! + 1);
    moves.push({ group, from, to });
  }
}

/**
 * The moves of a rebalance asked by an operator (`coneyctl rebalance_queues`, after RabbitMQ's
 * `rabbitmq-queues rebalance`, which evens out queue *leaders* per node): `perGroup[g]` is how many
 * queues group g holds. While the busiest live worker (in queues) holds a non-empty group smaller
 * than its lead over the least busy one, its largest such group moves there: each move narrows
 * the spread (the sum of squared loads falls), so the plan ends. Groups move whole: a group's
 * queues share one store.
 */
export function planQueueRebalance(table: GroupTable, live: readonly number[], perGroup: readonly number[]): GroupMove[] {
  const workers = sortedLive(live);
  const load = new Map<number, number>(workers.map((w) => [w, 0]));
  const owned = new Map<number, number[]>(workers.map((w) => [w, []]));
  table.groups.forEach((s, g) => {
    if (s.worker === null || !load.has(s.worker)) return;
    load.set(s.worker, load.get(s.worker)! + (perGroup[g] ?? 0));
    owned.get(s.worker)!.push(g);
  });
  const moves: GroupMove[] = [];
  for (;;) {
    const to = leastLoaded(load);
    let from = -1;
    for (const [w, n] of load) if (from === -1 || n > load.get(from)!) from = w;
    const gap = load.get(from)! - load.get(to)!;
    let best = -1;
    for (const g of owned.get(from)!) {
      const n = perGroup[g] ?? 0;
      if (n > 0 && n < gap && (best === -1 || n > (perGroup[best] ?? 0))) best = g;
    }
    if (best === -1) return moves;
    const n = perGroup[best]!;
    owned.get(from)!.splice(owned.get(from)!.indexOf(best), 1);
    owned.get(to)!.push(best);
    load.set(from, load.get(from)! - n);
    load.set(to, load.get(to)! + n);
    moves.push({ group: best, from, to });
  }
}

/** The moved groups without a leader (same epoch): sent first, and acked by each old leader once it closed them. */
export function revoke(table: GroupTable, moves: readonly GroupMove[]): GroupTable {
  if (moves.length === 0) return table;
  const groups = [...table.groups];
  for (const m of moves) {
    const s = groups[m.group]!;
    if (s.worker !== m.from) throw new Error(`group ${groupName(m.group)} is led by ${s.worker}, not ${m.from}`);
    groups[m.group] = { worker: null, epoch: s.epoch };
  }
  return { version: table.version + 1, groups };
}

/** The revoked groups given to their new leaders, each with a new epoch. */
export function assign(table: GroupTable, moves: readonly GroupMove[]): GroupTable {
  if (moves.length === 0) return table;
  const groups = [...table.groups];
  for (const m of moves) {
    const s = groups[m.group]!;
    if (s.worker !== null) throw new Error(`group ${groupName(m.group)} is still led by ${s.worker}: revoke it first`);
    groups[m.group] = { worker: m.to, epoch: s.epoch + 1 };
  }
  return { version: table.version + 1, groups };
}

/** The groups worker `w` leads in `table`. */
export function groupsOf(table: GroupTable, w: number): number[] {
  const out: number[] = [];
  table.groups.forEach((s, g) => {
    if (s.worker === w) out.push(g);
  });
  return out;
}
