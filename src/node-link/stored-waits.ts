/**
 * The connecting node's side of STORED/REFUSED (docs/CLUSTERING.md, "A publish that crosses
 * nodes", step 6): confirms waiting for positions on one link, the positions the leader refused,
 * and the sizes of what is in flight (the credit in use).
 *
 * Invariants: waits are kept in the order of their `last` position (a later wait never waits for
 * less), so each STORED resolves a prefix; a refused range is reported before the STORED that
 * covers it, and dropped once every wait it could concern is resolved.
 */
import type { SyncWaiter } from "../broker/index.js";

/** A resolved wait's place in the columns (so the waiter is not kept alive by them). */
const NO_WAITER: SyncWaiter = { synced: () => {} };

export class StoredWaits {
  /** Positions handed out (the last forwarded message's). */
  sent = 0;
  /** Every position up to this one is stored (or refused). */
  storedThrough = 0;
  inFlightBytes = 0;
  private readonly sizes: number[] = [];
  private sizesHead = 0;
  /** The waits, as parallel columns (no object per publish): waiter, token, first and last position. */
  private waiters: SyncWaiter[] = [];
  private tokens: number[] = [];
  private firsts: number[] = [];
  private lasts: number[] = [];
  private waitsHead = 0;
  /** [from, to] pairs, in order. */
  private refused: number[] = [];
  private lost = false;

  get inFlight(): number {
    return this.sent - this.storedThrough;
  }

  /** A message of `bytes` was forwarded: its position. */
  next(bytes: number): number {
    this.sizes.push(bytes);
    this.inFlightBytes += bytes;
    return ++this.sent;
  }

  wait(waiter: SyncWaiter, token: number, first: number, last: number): void {
    if (this.lost) return waiter.synced(token, false);
    if (last <= this.storedThrough) return waiter.synced(token, !this.refusedIn(first, last));
    this.waiters.push(waiter);
    this.tokens.push(token);
    this.firsts.push(first);
    this.lasts.push(last);
  }

  refuse(from: number, to: number): void {
    this.refused.push(from, to);
  }

  /** STORED: every position up to `through` is settled. */
  stored(through: number): void {
    if (through <= this.storedThrough) return;
    const n = through - this.storedThrough;
    this.storedThrough = through;
    for (let i = 0; i < n && this.sizesHead < this.sizes.length; i++) this.inFlightBytes -= this.sizes[this.sizesHead++]!;
    if (this.sizesHead > 1024 && this.sizesHead * 2 > this.sizes.length) {
      this.sizes.splice(0, this.sizesHead);
      this.sizesHead = 0;
    }
    const waiters = this.waiters;
    const lasts = this.lasts;
    while (this.waitsHead < waiters.length && lasts[this.waitsHead]! <= through) {
      const i = this.waitsHead++;
      const waiter = waiters[i]!;
      waiters[i] = NO_WAITER; // the columns keep no resolved waiter alive until they are cleared
      waiter.synced(this.tokens[i]!, this.refused.length === 0 || !this.refusedIn(this.firsts[i]!, lasts[i]!));
    }
    if (this.waitsHead === waiters.length) this.clearWaits();
    else if (this.waitsHead > 1024 && this.waitsHead * 2 > waiters.length) {
      const h = this.waitsHead;
      this.waiters = waiters.slice(h);
      this.tokens = this.tokens.slice(h);
      this.firsts = this.firsts.slice(h);
      this.lasts = lasts.slice(h);
      this.waitsHead = 0;
    }
    if (this.refused.length > 0) this.refused = this.refused.filter((_, i, r) => r[i - (i % 2) + 1]! > through);
  }

  /** The link is lost: every waiting confirm is a nack; later ones too. */
  lose(): void {
    this.lost = true;
    const waiters = this.waiters.slice(this.waitsHead);
    const tokens = this.tokens.slice(this.waitsHead);
    this.clearWaits();
    for (let i = 0; i < waiters.length; i++) waiters[i]!.synced(tokens[i]!, false);
  }

  private clearWaits(): void {
    this.waiters.length = 0;
    this.tokens.length = 0;
    this.firsts.length = 0;
    this.lasts.length = 0;
    this.waitsHead = 0;
  }

  private refusedIn(first: number, last: number): boolean {
    const r = this.refused;
    for (let i = 0; i < r.length; i += 2) if (r[i]! <= last && r[i + 1]! >= first) return true;
    return false;
  }
}
