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
  /** Each group's store, then (when given) the node's own store; null: a group this node does not hold now. */
  private readonly slots: (MessageStore | null)[];
  readonly nodeGroup?: number;

  /**
   * `stores`: one per group, null for a group whose store is not open here (`coney --workers N`
   * opens and closes them as groups move: `place`). `nodeStore`: the store of what belongs to no
   * group (QueueJournal.nodeGroup), kept in the slot after the groups.
   */
  constructor(stores: readonly (MessageStore | null)[], nodeStore: MessageStore | null = null) {
    this.groupCount = stores.length;
    this.slots = nodeStore === null ? [...stores] : [...stores, nodeStore];
    if (nodeStore !== null) this.nodeGroup = stores.length;
    this.listed = this.slots.map(() => false);
    this.slots.forEach((store, group) => {
      if (store !== null) this.attach(store, group);
    });
  }

  private readonly groupCount: number;

  /** The open stores. */
  get stores(): readonly MessageStore[] {
    return this.slots.filter((s): s is MessageStore => s !== null);
  }

  /**
   * Opens (a store) or closes (null) group `group`'s slot. A store taken out must be closed by the
   * caller (its last flush answers its waiters); one put in is recovered by the caller once its
   * queues exist here.
   */
  place(group: number, store: MessageStore | null): void {
    const old = this.slots[group];
    if (old === undefined) throw new RangeError(`queue group ${group} does not exist (this node has ${this.groupCount})`);
    if (old !== null) {
      old.member = null;
      old.lostRecords = null;
      if (this.listed[group]) {
        this.listed[group] = false;
        this.unsynced.splice(this.unsynced.indexOf(old), 1);
      }
    }
    this.slots[group] = store;
    if (store !== null) this.attach(store, group);
  }

  private attach(store: MessageStore, group: number): void {
    store.lostRecords = this.handler;
    store.member = {
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
    } satisfies GroupMember;
  }

  get groups(): number {
    return this.groupCount;
  }

  get lostRecords(): LostRecordsHandler | null {
    return this.handler;
  }

  set lostRecords(handler: LostRecordsHandler | null) {
    this.handler = handler;
    for (const s of this.slots) if (s !== null) s.lostRecords = handler;
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
    if (pending.length === 0) return this.anyStore().whenSynced(waiter, token);
    if (pending.length === 1) return pending[0]!.whenSynced(waiter, token);
    const all = new AllSynced(waiter, token, pending.length);
    // whenSynced only schedules a flush: `pending` does not change under this loop.
    for (const s of pending) s.whenSynced(all, 0);
  }

  private storeOf(group: number): MessageStore {
    const store = this.slots[group];
    if (store === undefined) throw new RangeError(`queue group ${group} does not exist (this node has ${this.groupCount})`);
    // A queue is local only while its group's store is open here (the placement's rule): reaching this is a bug.
    if (store === null) throw new Error(`queue group ${group}'s store is not open on this node`);
    return store;
  }

  /** An open store to answer a waiter when nothing is unsynced (answered after its next flush, never inside the caller's call). */
  private anyStore(): MessageStore {
    for (const s of this.slots) if (s !== null) return s;
    throw new Error("no message store is open on this node");
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
