/**
 * What a queue's management record says of the copies of its messages in a spread cluster
 * (docs/CLUSTERING.md, "Copies on other machines"): a classic or quorum queue's messages are in its
 * home's store, copied to that store's in-sync followers, so the record carries RabbitMQ's fields
 * of a replicated queue — `members` (the nodes with a copy) and `online` (those running) — and
 * Coney's `replica_placement`: `other-machines`, `same-machine` (the fall-back while no other
 * machine is live) or `none`. Absent outside a spread cluster (PeerNodes.storeCopies).
 */
import type { PeerNodes } from "./peer-nodes.js";

export function addStoreCopies(r: Record<string, unknown>, home: string, peers: PeerNodes | null | undefined): void {
  const copies = peers?.storeCopies?.(home);
  if (copies === undefined) return;
  r["members"] = [...copies.members];
  r["online"] = [...copies.online];
  addPlacement(r, copies);
}

/** Coney's `replica_placement`, when the copies say it (a stream's record too). */
export function addPlacement(r: Record<string, unknown>, copies: { readonly placement?: string } | null | undefined): void {
  if (copies?.placement !== undefined) r["replica_placement"] = copies.placement;
}
