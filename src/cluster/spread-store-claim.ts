/**
 * The etcd transactions that decide who writes a store of a spread cluster (docs/CLUSTERING.md,
 * "Stage 2"). Each puts `owner` under the caller's lease and, in the same transaction, an in-sync
 * set listing only the caller (the other followers may hold bytes no writer confirmed; they re-sync
 * and are listed again by the writer). The transaction's revision is the writer's epoch.
 *
 * - A node claims its own store when nobody writes it and etcd lists it as holding every confirmed
 *   byte (or lists nobody: a new store), or when `owner` is still its own key of a previous life.
 * - A node adopts an orphaned store when nobody writes it, its home is not registered, and the
 *   in-sync set it read (at that revision, so nothing changed since) lists it.
 */
import { withTimeout, type EtcdSession } from "./etcd-session.js";
import type { SpreadKeys, StoreInSync, StoreOwner } from "./spread-keys.js";

export type OwnClaim = { readonly kind: "claimed"; readonly epoch: number } | { readonly kind: "held"; readonly by: string } | { readonly kind: "not-listed" };

function firstValue(res: { kvs: Array<{ value: Buffer; mod_revision: string }> }): { raw: string; revision: number } | null {
  const kv = res.kvs[0];
  return kv ? { raw: kv.value.toString(), revision: Number(kv.mod_revision) } : null;
}

/** Claims `me`'s own store for `owner` (this process's writer of it). */
export async function claimOwnStore(session: EtcdSession, keys: SpreadKeys, me: string, owner: StoreOwner): Promise<OwnClaim> {
  const c = session.client;
  const ownerKey = keys.storeOwner(me);
  const inSyncKey = keys.storeInSync(me);
  for (let attempt = 0; attempt < 5; attempt++) {
    const read = await withTimeout(c.if(ownerKey, "Create", ">", -1).then(c.get(ownerKey), c.get(inSyncKey)).commit(), session.callTimeout, "read a store's owner");
    const held = firstValue(read.responses[0]!.response_range);
    const inSync = firstValue(read.responses[1]!.response_range);
    const mine: StoreInSync = { owner: me, epoch: 0, nodes: [me] };
    // The hand-back request (if any) is answered by this claim: it goes in the same step.
    const puts = [c.put(ownerKey).value(JSON.stringify(owner)).lease(session.leaseId), c.put(inSyncKey).value(JSON.stringify(mine)), c.delete().key(keys.storeHandback(me))];
    let res;
    if (held !== null) {
      const by = (JSON.parse(held.raw) as StoreOwner).node;
      if (by !== me) return { kind: "held", by };
      // Our own key of a previous life: nobody else can have won since (they need it gone).
      res = await withTimeout(c.if(ownerKey, "Mod", "==", held.revision).then(...puts).commit(), session.callTimeout, "take back a store's owner key");
    } else {
      const listed = inSync === null || (JSON.parse(inSync.raw) as StoreInSync).nodes.includes(me);
      if (!listed) return { kind: "not-listed" };
      res = await withTimeout(c.if(ownerKey, "Create", "==", 0).and(inSyncKey, "Mod", "==", inSync?.revision ?? 0).then(...puts).commit(), session.callTimeout, "claim a store");
    }
    if (res.succeeded) return { kind: "claimed", epoch: Number(res.header.revision) };
  }
  throw new Error(`could not claim store ${me}: its keys kept changing`);
}

/** Adopts the orphaned `store` for `owner`, if the in-sync set is still the one read at `inSyncRevision`; the epoch, or null if lost. */
export async function adoptStore(session: EtcdSession, keys: SpreadKeys, store: string, owner: StoreOwner, inSyncRevision: number): Promise<number | null> {
  const c = session.client;
  const value: StoreInSync = { owner: owner.node, epoch: 0, nodes: [owner.node] };
  const res = await withTimeout(
    c
      .if(keys.storeOwner(store), "Create", "==", 0)
      .and(keys.member(store), "Create", "==", 0)
      // Its home is back and asked for it (the adopter released it for that home to claim): not an orphan.
      .and(keys.storeHandback(store), "Create", "==", 0)
      .and(keys.storeInSync(store), "Mod", "==", inSyncRevision)
      .then(c.put(keys.storeOwner(store)).value(JSON.stringify(owner)).lease(session.leaseId), c.put(keys.storeInSync(store)).value(JSON.stringify(value)))
      .commit(),
    session.callTimeout,
    "adopt a store",
  );
  return res.succeeded ? Number(res.header.revision) : null;
}

/**
 * The adopter gives `store` back to its home: `owner` and the adopter's `members/<store>` go, if it
 * still writes it. `handback` stays (under the home's lease) until the home's claim deletes it, so no
 * other follower adopts the store in between.
 */
export async function releaseStore(session: EtcdSession, keys: SpreadKeys, store: string, epoch: number): Promise<boolean> {
  const c = session.client;
  const res = await withTimeout(
    c.if(keys.storeOwner(store), "Mod", "==", epoch).then(c.delete().key(keys.storeOwner(store)), c.delete().key(keys.member(store))).commit(),
    session.callTimeout,
    "release a store",
  );
  return res.succeeded === true;
}
