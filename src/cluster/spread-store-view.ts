/**
 * What this node knows from etcd about the stores of a spread cluster (docs/CLUSTERING.md,
 * "Stage 2"): per store, who writes it (`owner`), the in-sync set and the revision it was written at
 * (an adopter's election is guarded by that revision), and a pending hand-back; and the known nodes,
 * whose count sets the default min-in-sync. Fed in revision order by the initial read and the watch.
 */
import type { SpreadKeys, StoreInSync, StoreOwner } from "./spread-keys.js";
import { defaultMinInSync, machinesWanted } from "./spread-machines.js";

export interface StoreState {
  owner: StoreOwner | null;
  inSync: StoreInSync | null;
  /** The mod revision of `insync` (0: absent). */
  inSyncRevision: number;
  handback: string | null;
}

export class SpreadStoreView {
  readonly stores = new Map<string, StoreState>();
  readonly known = new Set<string>();
  /** machinesWanted over `known`, kept with it: every confirmed batch reads it. */
  private wanted = 0;

  constructor(private readonly keys: SpreadKeys) {}

  /** Takes a `stores/` or `nodes/` key's value (null: deleted); false for any other key. */
  take(key: string, value: string | null, revision: number): boolean {
    if (this.keys.isKnown(key)) {
      const name = key.slice(key.lastIndexOf("/") + 1);
      if (value === null) this.known.delete(name);
      else this.known.add(name);
      this.wanted = machinesWanted(this.known);
      return true;
    }
    const k = this.keys.parseStore(key);
    if (k === null) return false;
    const s = this.of(k.store);
    if (k.part === "owner") s.owner = value === null ? null : (JSON.parse(value) as StoreOwner);
    else if (k.part === "handback") s.handback = value === null ? null : (JSON.parse(value) as { node: string }).node;
    else {
      s.inSync = value === null ? null : (JSON.parse(value) as StoreInSync);
      s.inSyncRevision = value === null ? 0 : revision;
    }
    return true;
  }

  of(store: string): StoreState {
    let s = this.stores.get(store);
    if (s === undefined) {
      s = { owner: null, inSync: null, inSyncRevision: 0, handback: null };
      this.stores.set(store, s);
    }
    return s;
  }

  /** `node` is listed as holding every confirmed byte of `store` (or nobody ever wrote a list: a new store). */
  listed(store: string, node: string): boolean {
    const s = this.stores.get(store);
    return s?.inSync == null || s.inSync.nodes.includes(node);
  }

  /** The --min-in-sync-replicas in force: the setting, or a majority counting the writer (of the known nodes, or machines: spread-machines.ts). */
  minInSync(configured: number | null): number {
    return configured ?? defaultMinInSync(this.known.size, this.wanted);
  }

  /** Other machines a store's in-sync copies must span while they are live (spread-machines.ts). */
  machinesWanted(): number {
    return this.wanted;
  }
}
