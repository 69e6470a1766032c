/**
 * Who waits for the store's group commits: publisher confirms and tx.commits (SyncWaiter +
 * token), each with the store's append position when it registered (everything appended up to
 * there must be on disk before it is told). Kept as parallel arrays so registering one costs
 * three pushes and no object.
 * Invariants: positions ascend in registration order; `waiters[i]` is told `tokens[i]`, exactly
 * once, in registration order.
 */
import type { SyncWaiter } from "../broker/index.js";
import { coveredCount } from "./commit-cap.js";

export class SyncWaiters {
  private waiters: SyncWaiter[] = [];
  private tokens: number[] = [];
  private positions: number[] = [];

  get length(): number {
    return this.waiters.length;
  }

  add(waiter: SyncWaiter, token: number, position: number): void {
    this.waiters.push(waiter);
    this.tokens.push(token);
    this.positions.push(position);
  }

  /**
   * Hands over those registered at or before append position `upTo` (all by default): a batch's
   * waiters. The rest stay, in order, for a later batch.
   */
  take(upTo = Infinity): SyncWaiters {
    const batch = new SyncWaiters();
    const k = coveredCount(this.positions, upTo);
    if (k === this.waiters.length) {
      batch.waiters = this.waiters;
      batch.tokens = this.tokens;
      batch.positions = this.positions;
      this.waiters = [];
      this.tokens = [];
      this.positions = [];
    } else if (k > 0) {
      batch.waiters = this.waiters.splice(0, k);
      batch.tokens = this.tokens.splice(0, k);
      batch.positions = this.positions.splice(0, k);
    }
    return batch;
  }

  /** Moves `later`'s waiters behind this list's (a failed batch also fails the records appended meanwhile). */
  append(later: SyncWaiters): void {
    const taken = later.take();
    for (let i = 0; i < taken.waiters.length; i++) this.add(taken.waiters[i]!, taken.tokens[i]!, taken.positions[i]!);
  }

  tell(ok: boolean): void {
    const waiters = this.waiters;
    const tokens = this.tokens;
    for (let i = 0; i < waiters.length; i++) waiters[i]!.synced(tokens[i]!, ok);
  }
}
