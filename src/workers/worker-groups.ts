/**
 * A worker's copy of the group table (group-table.ts), as the primary last sent it, and the groups
 * it leads in it. Applying a table calls the hook of whatever opens and closes group stores
 * (issue 42's group stores, wired by the integrator); the worker acks the table only once the
 * hook resolved, which is what lets the primary hand a revoked group to another worker.
 */
import { groupsOf, type GroupTable } from "./group-table.js";

/** Told every table; resolves once the groups this worker no longer leads are closed and the new ones opened. */
export type GroupsChanged = (table: GroupTable, mine: readonly number[]) => Promise<void> | void;

export class WorkerGroups {
  private table: GroupTable | null = null;
  private mineNow: readonly number[] = [];
  private readonly hooks: GroupsChanged[] = [];

  constructor(readonly index: number) {}

  get current(): GroupTable | null {
    return this.table;
  }

  get mine(): readonly number[] {
    return this.mineNow;
  }

  onChange(hook: GroupsChanged): void {
    this.hooks.push(hook);
  }

  /** A table from the primary; an older one than held (a late delivery) is acked and ignored. */
  async apply(table: GroupTable): Promise<{ version: number }> {
    if (this.table !== null && table.version < this.table.version) return { version: this.table.version };
    this.table = table;
    this.mineNow = groupsOf(table, this.index);
    for (const hook of this.hooks) await hook(table, this.mineNow);
    return { version: table.version };
  }
}
