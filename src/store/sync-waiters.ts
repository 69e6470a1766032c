/**
 * Who waits for the next group commit: publisher confirms and tx.commits (SyncWaiter + token),
 * kept as two parallel arrays so registering one costs two pushes and no object.
 * Invariant: `waiters[i]` is told `tokens[i]`, exactly once, in registration order.
 */
import type { SyncWaiter } from "../broker/index.js";

export class SyncWaiters {
  private waiters: SyncWaiter[] = [];
  private tokens: number[] = [];

  get length(): number {
    return this.waiters.length;
  }

  add(waiter: SyncWaiter, token: number): void {
    this.waiters.push(waiter);
    this.tokens.push(token);
  }

  /** Hands over everyone registered so far (a batch's waiters); this list starts empty again. */
  take(): SyncWaiters {
    const batch = new SyncWaiters();
    batch.waiters = this.waiters;
    batch.tokens = this.tokens;
    this.waiters = [];
    this.tokens = [];
    return batch;
  }

  /** Moves `later`'s waiters behind this list's (a failed batch also fails the records appended meanwhile). */
  append(later: SyncWaiters): void {
    const taken = later.take();
    for (let i = 0; i < taken.waiters.length; i++) this.add(taken.waiters[i]!, taken.tokens[i]!);
  }

  tell(ok: boolean): void {
    const waiters = this.waiters;
    const tokens = this.tokens;
    for (let i = 0; i < waiters.length; i++) waiters[i]!.synced(tokens[i]!, ok);
  }
}
