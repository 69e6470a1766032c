/**
 * A new queue of a spread cluster whose home claim is not yet decided in etcd (docs/CLUSTERING.md,
 * "One name declared on two nodes at once"): what is routed to it is held here — not enqueued, not
 * delivered, not confirmed — until the claim's transaction answers.
 *
 * - won: every held message is enqueued into the queue, in order, and its publishers are confirmed
 *   once the store has it (as if it had arrived then);
 * - lost: every held message is forwarded, in order, over the port to the winner's queue, and its
 *   publishers are confirmed once the winner reports it stored (nacked if the link is down or the
 *   winner refuses it);
 * - the queue deleted first: the held messages go with it, confirmed, as RabbitMQ confirms a
 *   message that reached a queue deleted afterwards (`gone`).
 *
 * The publish path sees it as a port it forwarded to (ForwardedPublishes): a publish that reached a
 * held queue is PUBLISH_STORED and its confirm waits on `whenStored`. Invariant: positions are
 * 1, 2, … in hold order; every wait is answered exactly once, after the outcome is known.
 * A single node and `--workers` never make one: their queues' only cost is a null check.
 */
import type { Message } from "../message.js";
import type { ForwardedPublishes } from "./forwarded-publishes.js";
import type { QueueLeaderPort } from "./queue-leader-port.js";
import type { QueueJournal, SyncWaiter } from "./queue-journal.js";
import type { QueueSpec } from "./queue-spec.js";

interface Wait {
  readonly waiter: SyncWaiter;
  readonly token: number;
  readonly first: number;
  readonly last: number;
}

/** Where a held message ends: the queue's own enqueue (won), or the winner's port (lost). */
type Outcome =
  | { readonly kind: "won"; readonly refused: ReadonlySet<number>; readonly journal: QueueJournal | null }
  | { readonly kind: "lost"; readonly port: QueueLeaderPort; readonly positions: readonly number[] }
  | { readonly kind: "gone"; readonly ok: boolean };

export class ClaimHold {
  private held: Message[] = [];
  private waits: Wait[] = [];
  private outcome: Outcome | null = null;

  constructor(private readonly forwards: ForwardedPublishes) {}

  /** How many messages it holds (shown nowhere: the queue's counts start when the claim is won). */
  get size(): number {
    return this.held.length;
  }

  /** The queue's enqueue while its claim is pending: held; the publish's confirm waits (whenStored). */
  hold(message: Message): true {
    this.held.push(message);
    this.forwards.noteForward(this, this.held.length);
    return true;
  }

  /** ForwardedPublishes' wait for positions `first`…`last` (a publish that reached this queue). */
  whenStored(waiter: SyncWaiter, token: number, first: number, last: number): void {
    const w = { waiter, token, first, last };
    if (this.outcome === null) this.waits.push(w);
    else this.answer(w, this.outcome);
  }

  /** The claim was won: `enqueue` is the queue's own (its hold already cleared), in hold order. */
  won(enqueue: (m: Message) => boolean, journal: QueueJournal | null): void {
    const refused = new Set<number>();
    for (let i = 0; i < this.held.length; i++) if (!enqueue(this.held[i]!)) refused.add(i + 1);
    this.settle({ kind: "won", refused, journal });
  }

  /** The claim was lost: each held message goes, in order, over `port` to the winner's `queue`. */
  lost(port: QueueLeaderPort, queue: QueueSpec & { readonly vhost: string }): void {
    const positions = this.held.map((m) => port.forward(queue, m));
    this.settle({ kind: "lost", port, positions });
  }

  /**
   * The held messages go nowhere: `ok` when the queue was deleted before its claim was decided
   * (they went with it, confirmed), not ok when the winner's queue could not be held here (nacked).
   */
  gone(ok: boolean): void {
    for (const m of this.held) m.lease?.release();
    this.settle({ kind: "gone", ok });
  }

  private settle(outcome: Outcome): void {
    this.outcome = outcome;
    this.held = [];
    const waits = this.waits;
    this.waits = [];
    for (const w of waits) this.answer(w, outcome);
  }

  private answer(w: Wait, o: Outcome): void {
    if (o.kind === "gone") return w.waiter.synced(w.token, o.ok);
    if (o.kind === "lost") return o.port.whenStored(w.waiter, w.token, o.positions[w.first - 1]!, o.positions[w.last - 1]!);
    for (let p = w.first; p <= w.last; p++) if (o.refused.has(p)) return w.waiter.synced(w.token, false);
    if (o.journal === null) w.waiter.synced(w.token, true);
    else o.journal.whenSynced(w.waiter, w.token);
  }
}
