/**
 * The primary's keeper of the group table (group-table.ts): every change is stored in
 * `<data>/workers.json` first, then sent to every live worker as a `table` request, which the
 * worker answers once it applied it. Changes run one at a time, in order.
 *
 * The rule it keeps: two processes never lead one group. A dead worker's groups are reassigned
 * only after its exit was seen (the primary stands in for a lease, and a process's exit is
 * certain). A group moved between two live workers (a rebalance) is first revoked, and assigned to
 * its new worker only once the old one acknowledged the revoke, or was killed and seen to exit.
 */
import type { Logger } from "../logging/logger.js";
import { assign, planQueueRebalance, planRebalance, revoke, spread, withoutWorker, type GroupMove, type GroupTable } from "./group-table.js";
import type { IpcEndpoint } from "./ipc-endpoint.js";
import { saveTable, workerName } from "./workers-file.js";

export interface GroupKeeperOptions {
  readonly initial: GroupTable;
  /** Where workers.json is kept; null: in memory only (`--in-memory`). */
  readonly dataDir: string | null;
  readonly endpoint: IpcEndpoint;
  /** How long a worker may take to apply a table before it is killed (a revoke it does not confirm). */
  readonly ackMs: number;
  /** How many worker slots there are: group g's home is worker g mod this (the first table's spread); absent: no home. */
  readonly workers?: number;
  readonly logger: Logger;
  /** The workers whose process runs now. */
  live(): number[];
  /** SIGKILLs worker `w`; resolves once its exit was seen. */
  kill(w: number): Promise<void>;
}

export class GroupKeeper {
  private table: GroupTable;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly o: GroupKeeperOptions) {
    this.table = o.initial;
    if (o.dataDir !== null) saveTable(o.dataDir, this.table);
  }

  get current(): GroupTable {
    return this.table;
  }

  /** Resolves once every change asked so far has been stored and sent. */
  settled(): Promise<void> {
    return this.chain;
  }

  /** Worker `w` exited: its groups go to the live workers, each under a new epoch. */
  workerGone(w: number): void {
    this.enqueue(async () => {
      const before = this.table;
      await this.publish(withoutWorker(before, w, this.o.live()), []);
      if (this.table !== before) this.o.logger.warn("queue groups of an exited worker reassigned", { worker: workerName(w), version: this.table.version });
    });
  }

  /** Worker `w` is up: it gets the table, leaderless groups are assigned, and the spread evened out. */
  workerReady(w: number): void {
    this.enqueue(async () => {
      await this.sendTo(w, this.table).catch((err: unknown) => this.o.logger.warn("a worker did not take the group table", { worker: workerName(w), err }));
      await this.publish(spread(this.table, this.o.live()), []);
      await this.evenOut();
    });
  }

  /**
   * `coneyctl rebalance_queues` / `POST /api/rebalance/queues`: leaderless groups assigned and the
   * queues (given `queuesPerGroup`; else the groups) evened out among `live` (the running
   * workers), each move a revoke then an assign.
   * Resolves with the moves once the last assign is stored and sent.
   */
  rebalance(live: readonly number[], queuesPerGroup: readonly number[] | null = null): Promise<GroupMove[]> {
    return new Promise((resolve, reject) => {
      this.enqueue(async () => {
        try {
          await this.publish(spread(this.table, live), []);
          resolve(await this.evenOut(live, queuesPerGroup));
        } catch (err) {
          reject(err as Error);
        }
      });
    });
  }

  /** Evens out groups per worker, or (given how many queues each group holds) queues per worker. */
  private async evenOut(live: readonly number[] = this.o.live(), queuesPerGroup: readonly number[] | null = null): Promise<GroupMove[]> {
    if (live.length === 0) return [];
    const moves = queuesPerGroup === null ? planRebalance(this.table, live, this.o.workers === undefined ? null : (g) => g % this.o.workers!) : planQueueRebalance(this.table, live, queuesPerGroup);
    if (moves.length === 0) return moves;
    await this.publish(revoke(this.table, moves), [...new Set(moves.map((m) => m.from))]);
    await this.publish(assign(this.table, moves), []);
    this.o.logger.info("queue groups rebalanced", { moves: moves.map((m) => ({ group: `g${m.group}`, from: workerName(m.from), to: workerName(m.to) })), version: this.table.version });
    return moves;
  }

  private enqueue(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch((err: unknown) => this.o.logger.error("the group table could not be changed", { err }));
  }

  private sendTo(w: number, table: GroupTable): Promise<unknown> {
    return this.o.endpoint.request(workerName(w), "table", table, this.o.ackMs);
  }

  /**
   * Stores `next` and sends it to every live worker; waits for the acks of `awaited` (a revoke's
   * old leaders), killing any that does not answer in time. A table that could not be stored is
   * not sent: a worker never acts on a table the primary could lose.
   */
  private async publish(next: GroupTable, awaited: readonly number[]): Promise<void> {
    if (next === this.table && awaited.length === 0) return;
    if (this.o.dataDir !== null) saveTable(this.o.dataDir, next);
    this.table = next;
    const waits: Promise<void>[] = [];
    for (const w of this.o.live()) {
      const sent = this.sendTo(w, next);
      if (!awaited.includes(w)) {
        sent.catch((err: unknown) => this.o.logger.debug("a worker did not ack the group table", { worker: workerName(w), err }));
        continue;
      }
      waits.push(
        sent.then(
          () => undefined,
          async (err: unknown) => {
            if (!this.o.live().includes(w)) return; // it exited: its groups are released with it
            this.o.logger.warn("a worker did not confirm releasing its queue groups; killing it", { worker: workerName(w), err });
            await this.o.kill(w);
          },
        ),
      );
    }
    await Promise.all(waits);
  }
}
