/**
 * The queue journal of a node with several queue groups (docs/CLUSTERING.md, "Per group"): one
 * MessageStore per group, each in `<data>/groups/g<i>/` with its own segments, side files,
 * streams, group commit and recovery. A queue's log (and a stream's) comes from its group's
 * store only; the domain sees one QueueJournal whatever G is.
 *
 * A single group (G = 1, the default) is not run through here: the node's journal is then the
 * MessageStore itself, exactly as before groups existed.
 *
 * Confirms: Broker.publish compares `appends` before and after enqueueing; here it counts
 * appends of every group (`GroupMember.appended`, O(1) per append). A waiter is told once every
 * group store with appends not yet synced has synced them (the stores a publish wrote to are
 * among those): `unsynced` lists exactly those stores, kept as they append and sync, so a confirm
 * waits on the few busy groups, never scans all G. One store: the waiter goes to it unwrapped;
 * several: one countdown object per confirm, told ok only when every one synced.
 */
import type { LostRecordsHandler, QueueJournal, QueueLog, SyncWaiter } from "../broker/index.js";
import type { StreamLog } from "../broker/index.js";
import type { MessageStore } from "./message-store.js";
import type { GroupMember } from "./group-member.js";

export class GroupedJournal implements QueueJournal {
  appends = 0;
  private handler: LostRecordsHandler | null = null;
  /** Stores with appends not yet synced; invariant: exactly those whose `listed` flag is set. */
  private readonly unsynced: MessageStore[] = [];
  private readonly listed: boolean[];

  constructor(readonly stores: readonly MessageStore[]) {
    this.listed = stores.map(() => false);
    stores.forEach((store, group) => {
      const member: GroupMember = {
        group,
        appended: () => {
          this.appends++;
          if (this.listed[group]) return;
          this.listed[group] = true;
          this.unsynced.push(store);
        },
        allSynced: () => {
          if (!this.listed[group]) return;
          this.listed[group] = false;
          this.unsynced.splice(this.unsynced.indexOf(store), 1);
        },
      };
      store.member = member;
    });
  }

  get groups(): number {
    return this.stores.length;
  }

  get lostRecords(): LostRecordsHandler | null {
    return this.handler;
  }

  set lostRecords(handler: LostRecordsHandler | null) {
    this.handler = handler;
    for (const s of this.stores) s.lostRecords = handler;
  }

  forQueue(vhost: string, name: string, maxPriority: number, group: number): QueueLog {
    return this.storeOf(group).forQueue(vhost, name, maxPriority);
  }

  forStream(vhost: string, name: string, segmentBytes: number, filterBytes: number | undefined, group: number): StreamLog {
    return this.storeOf(group).forStream(vhost, name, segmentBytes, filterBytes);
  }

  whenSynced(waiter: SyncWaiter, token: number): void {
    const pending = this.unsynced;
    // Nothing unsynced: still answered after a flush (never from inside the caller's own call).
    if (pending.length === 0) return this.stores[0]!.whenSynced(waiter, token);
    if (pending.length === 1) return pending[0]!.whenSynced(waiter, token);
    const all = new AllSynced(waiter, token, pending.length);
    // whenSynced only schedules a flush: `pending` does not change under this loop.
    for (const s of pending) s.whenSynced(all, 0);
  }

  private storeOf(group: number): MessageStore {
    const store = this.stores[group];
    if (store === undefined) throw new RangeError(`queue group ${group} does not exist (this node has ${this.stores.length})`);
    return store;
  }
}

/** One waiter told once every store it was registered with has answered; ok only if all were. */
class AllSynced implements SyncWaiter {
  private ok = true;

  constructor(
    private readonly waiter: SyncWaiter,
    private readonly token: number,
    private remaining: number,
  ) {}

  synced(_token: number, ok: boolean): void {
    if (!ok) this.ok = false;
    if (--this.remaining === 0) this.waiter.synced(this.token, this.ok);
  }
}
