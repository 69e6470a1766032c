/**
 * The message stores of one worker of `coney --workers N` (docs/CLUSTERING.md, "Built: group
 * stores under the workers"): the store of each queue group it leads now, at
 * `<data>/groups/g<i>/messages` (its streams at `<data>/groups/g<i>/streams`), opened when the
 * group is assigned here and closed — flushed and fsynced — when it is taken away, and the
 * worker's own store (`<data>/nodes/w<i>/messages`) for what belongs to no group (the delayed
 * exchange's hidden queues), which never moves. One journal (grouped-journal.ts) fronts them all.
 *
 * Invariant (the group table's rule, group-keeper.ts): a group's store is open in at most one
 * process. A worker opens it only once the table names it, and the primary names it only after
 * the previous leader acknowledged closing it, or exited.
 */
import { join } from "node:path";
import type { Logger } from "../logging/logger.js";
import { GroupedJournal } from "../store/grouped-journal.js";
import { MessageStore } from "../store/message-store.js";
import { groupMessagesDir, MESSAGES_DIR } from "../store/queue-groups-file.js";
import { recoverMessages, type RecoveryReport } from "../store/store-recovery.js";
import type { MovableGroupStores } from "../node-persistence.js";

export interface WorkerGroupStoresOptions {
  /** The data dir of the whole broker: the groups' stores are under its `groups/`. */
  readonly dataDir: string;
  /** The worker's own broker data dir (`<data>/nodes/w<i>`). */
  readonly nodeDir: string;
  /** G. */
  readonly groups: number;
  readonly segmentBytes: number;
  readonly logger: Logger;
}

export class WorkerGroupStores implements MovableGroupStores {
  readonly journal: GroupedJournal;
  private readonly nodeStore: MessageStore;
  private readonly open = new Map<number, MessageStore>();
  private flushDefinitions: (() => boolean) | null = null;

  constructor(private readonly o: WorkerGroupStoresOptions) {
    this.nodeStore = this.store(join(o.nodeDir, MESSAGES_DIR));
    this.journal = new GroupedJournal(Array.from({ length: o.groups }, () => null), this.nodeStore);
  }

  opened(flushDefinitions: () => boolean): RecoveryReport {
    this.flushDefinitions = flushDefinitions;
    this.nodeStore.beforeSync = flushDefinitions;
    return recoverMessages(this.nodeStore);
  }

  has(group: number): boolean {
    return this.open.has(group);
  }

  /** Opens group `group`'s store and hands it to the journal; its queues are then made local here, and `recover` fills them. */
  openGroup(group: number): void {
    if (this.open.has(group)) return;
    const store = this.store(groupMessagesDir(this.o.dataDir, this.o.groups, group));
    store.beforeSync = this.flushDefinitions;
    this.open.set(group, store);
    this.journal.place(group, store);
  }

  /** Reads group `group`'s store into the queues that now hold logs of it (each queue's `recovered` follows). */
  recover(group: number): RecoveryReport {
    return recoverMessages(this.open.get(group)!);
  }

  /** Closes group `group`'s store (its last batch written and fsynced, its waiters answered); its queues were handed over first. */
  async closeGroup(group: number): Promise<void> {
    const store = this.open.get(group);
    if (store === undefined) return;
    this.open.delete(group);
    // Synced before it leaves the journal: a confirm waiting for records appended before the
    // hand-over (a link's run reports STORED a moment later) must find this store among the
    // unsynced ones until they are on disk, never be answered without it.
    await store.sync();
    this.journal.place(group, null);
    await store.close();
  }

  async close(): Promise<void> {
    await Promise.all([...this.open.keys()].map((g) => this.closeGroup(g)));
    await this.nodeStore.close();
  }

  private store(dir: string): MessageStore {
    return new MessageStore({ dir, logger: this.o.logger, segmentBytes: this.o.segmentBytes });
  }
}
