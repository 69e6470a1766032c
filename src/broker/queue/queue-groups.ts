/**
 * The queue groups of one node (docs/CLUSTERING.md, "Placement", step 2): how many there are,
 * how many queues each holds, and which group a new queue joins. A queue's group is chosen once,
 * at declare, and recorded with its definition; it is never recomputed, so a group's store
 * (src/store, one per group) always holds every persistent message of the queues it was given.
 *
 * The choice: a group given with the declare (a definitions file restoring the recorded group)
 * is kept when it exists; otherwise the group with the fewest queues, ties going to the first
 * at or after the name's hash (`queueGroupOf`), so the same declares in the same order give the same groups. Exclusive
 * queues join no group (they live and die with their connection, on its node). The counts are
 * kept as queues come and go, so a choice costs O(G), never a walk over the queues.
 */
import { queueGroupOf } from "./placement.js";

/** The most groups a node may have: each is a store with its own files and group commit. */
export const MAX_QUEUE_GROUPS = 256;

export class QueueGroups {
  private readonly load: number[];

  constructor(readonly count: number) {
    if (!Number.isInteger(count) || count < 1 || count > MAX_QUEUE_GROUPS) throw new RangeError(`queue groups must be an integer from 1 to ${MAX_QUEUE_GROUPS}, got ${count}`);
    this.load = new Array<number>(count).fill(0);
  }

  /** The group a new queue joins (and is counted in); null for an exclusive queue. */
  place(vhost: string, name: string, exclusive: boolean, recorded: number | null | undefined): number | null {
    if (exclusive) return null;
    const g = typeof recorded === "number" && Number.isInteger(recorded) && recorded >= 0 && recorded < this.count ? recorded : this.leastLoaded(vhost, name);
    this.load[g]!++;
    return g;
  }

  /** A queue placed by `place` is gone. */
  removed(group: number | null): void {
    if (group !== null && this.load[group]! > 0) this.load[group]!--;
  }

  /** How many queues each group holds now. */
  queuesPerGroup(): readonly number[] {
    return this.load;
  }

  private leastLoaded(vhost: string, name: string): number {
    if (this.count === 1) return 0;
    const hashed = queueGroupOf(vhost, name, this.count);
    // Among the least loaded, the first at or after the name's hash (circularly).
    let best = hashed;
    for (let i = 1; i < this.count; i++) {
      const g = (hashed + i) % this.count;
      if (this.load[g]! < this.load[best]!) best = g;
    }
    return best;
  }
}

const LABELS: readonly string[] = Array.from({ length: MAX_QUEUE_GROUPS }, (_, g) => `g${g}`);

/** How a group is named where operators see it (the management API, its directory): "g3". Built once: a queue list asks per queue. */
export const groupLabel = (group: number): string => LABELS[group] ?? `g${group}`;
