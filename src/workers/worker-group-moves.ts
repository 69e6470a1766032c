/**
 * A worker following the group table (docs/CLUSTERING.md, "Built: group stores under the
 * workers"): for every table the primary sends, the groups taken away from this worker are given
 * up, the queues of groups led elsewhere are held over the link to their leader, and the groups
 * assigned here are opened. Tables are applied one at a time, in order; each resolves — and so is
 * acknowledged to the primary (worker-groups.ts) — only once the groups it took away are closed.
 *
 * Giving a group up: each of its local queues is handed over (its consumers here get
 * `basic.cancel`, as a lost link gives; a return of a message delivered before stays in the store)
 * and replaced by a RemoteQueue to the new leader, or to a down port while the group has none
 * (publishes nacked, consumes refused) — then the group's store is closed: written and fsynced,
 * every waiting confirm answered. Only then is the revoke acknowledged, so the next leader never
 * opens a store another process still writes.
 *
 * Taking a group: its store is opened, each of its queues (held as a RemoteQueue until now; every
 * definition is known on every worker) becomes a local queue, and the store is recovered into
 * them — every confirmed message of the group, delivered ones flagged redelivered.
 */
import { carryOnHandOver, handQueueOver, leaderPortOf, leadQueueHere, openCarriedLogs, restoreCarried, type Broker, type Queue } from "../broker/index.js";
import type { Logger } from "../logging/logger.js";
import { groupName, groupsOf, type GroupTable } from "./group-table.js";
import type { WorkerGroupStores } from "./worker-group-stores.js";
import type { GroupLeaders, WorkerQueues } from "./worker-queues.js";

export class WorkerGroupMoves implements GroupLeaders {
  private table: GroupTable;
  /** Groups led here now: their stores are open (or, with nothing stored, their queues are local). */
  private readonly led = new Set<number>();
  private chain: Promise<void> = Promise.resolve();
  private started = false;
  private closed = false;

  constructor(
    private readonly broker: Broker,
    private readonly queues: WorkerQueues,
    private readonly index: number,
    initial: GroupTable,
    /** Null with nothing stored (`--in-memory`): a moved group's messages do not move. */
    private readonly stores: WorkerGroupStores | null,
    private readonly logger: Logger,
  ) {
    this.table = initial;
    queues.groups = this;
  }

  get count(): number {
    return this.table.groups.length;
  }

  leadsHere(g: number): boolean {
    return this.led.has(g);
  }

  workerOf(g: number): number | null {
    return this.table.groups[g]?.worker ?? null;
  }

  /** A table from the primary; resolves once it is applied (the groups it took away closed). Before `start`, only kept. */
  apply(table: GroupTable): Promise<void> {
    if (table.version < this.table.version) return this.chain;
    this.table = table;
    if (!this.started) return Promise.resolve();
    return this.enqueue();
  }

  /**
   * Once the definitions are restored and followed (worker-main.ts): the groups of the latest table
   * are opened. Before, every group's queues are held as RemoteQueues: a group's store must not be
   * recovered before every queue of it is known here, or its messages would be taken for a deleted
   * queue's.
   */
  start(): Promise<void> {
    this.started = true;
    return this.enqueue();
  }

  /** How many queues each group holds (every worker knows every queue): what a rebalance evens out. */
  queuesPerGroup(): number[] {
    const counts = new Array<number>(this.count).fill(0);
    for (const { group } of this.queuesOf(null, true)) counts[group]!++;
    for (const { group } of this.queuesOf(null, false)) counts[group]!++;
    return counts;
  }

  /** Resolves once every table received so far is applied. */
  settled(): Promise<void> {
    return this.chain;
  }

  /** Stops following (the broker closes; its stores are closed with it). */
  close(): Promise<void> {
    this.closed = true;
    return this.chain;
  }

  private enqueue(): Promise<void> {
    this.chain = this.chain.then(() => this.applyLatest()).catch((err: unknown) => this.logger.error("a queue group move failed", { err }));
    return this.chain;
  }

  private async applyLatest(): Promise<void> {
    if (this.closed) return;
    const table = this.table;
    const mine = new Set(groupsOf(table, this.index));
    for (const g of [...this.led]) if (!mine.has(g)) await this.giveUp(g);
    if (this.closed) return;
    this.follow();
    for (const g of mine) if (!this.led.has(g)) this.take(g, table.groups[g]!.epoch);
  }

  /** Every non-exclusive queue of group `g` here (an exclusive queue stays with its connection). */
  private queuesOf(g: number | null, local: boolean): Array<{ vhost: string; queue: Queue; group: number }> {
    const out: Array<{ vhost: string; queue: Queue; group: number }> = [];
    for (const v of this.broker.vhosts.values()) {
      for (const q of v.queues.values()) {
        if (q.exclusiveOwner !== null || q.leadsElsewhere === local) continue;
        const group = this.queues.groupOf(v.name, q.name);
        if (g === null || group === g) out.push({ vhost: v.name, queue: q, group });
      }
    }
    return out;
  }

  private async giveUp(g: number): Promise<void> {
    this.led.delete(g);
    const port = this.queues.portOfGroup(g);
    const moved = this.queuesOf(g, true);
    for (const { vhost, queue } of moved) handQueueOver(this.broker, this.broker.forwards, vhost, queue, port);
    // What only memory holds goes into the store before it closes (operations/queue-carry.ts): the next leader recovers it.
    let carried = 0;
    if (this.stores !== null) for (const { vhost, queue } of moved) carried += carryOnHandOver(this.stores.journal, vhost, queue, g);
    await this.stores?.closeGroup(g);
    // The table names no leader during a move (revoked) or only this worker's own down port: "to" is null then.
    this.logger.info("queue group given up", { group: groupName(g), queues: moved.length, carried, to: port.up ? port.node : null });
  }

  /** The RemoteQueues of groups led elsewhere, each held over its group's leader now. */
  private follow(): void {
    for (const { vhost, queue, group } of this.queuesOf(null, false)) {
      if (this.led.has(group)) continue;
      const port = this.queues.portOfGroup(group);
      if (leaderPortOf(queue) === port) continue;
      this.broker.leadQueueElsewhere(vhost, { name: queue.name, durable: queue.durable, autoDelete: queue.autoDelete, exclusiveOwner: null, arguments: queue.arguments, group: null }, port);
    }
  }

  private take(g: number, epoch: number): void {
    const started = Date.now();
    this.stores?.openGroup(g);
    this.led.add(g);
    const taken = this.queuesOf(g, false).map(({ vhost, queue }) => ({ vhost, queue: leadQueueHere(this.broker, vhost, queue) }));
    // Non-durable queues' messages carried by the previous leader (operations/queue-carry.ts) need a log to be recovered into.
    const carry = this.stores !== null ? openCarriedLogs(this.stores.journal, taken, g) : [];
    const report = this.stores?.recover(g) ?? null;
    const carried = restoreCarried(carry);
    for (const { queue } of taken) queue.recovered();
    this.logger.info("queue group opened", { group: groupName(g), epoch, queues: taken.length, messages: report?.messages ?? 0, carried, ms: Date.now() - started });
  }
}
