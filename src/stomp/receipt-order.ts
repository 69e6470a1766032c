/**
 * RECEIPTs in the order their frames came. A SEND whose message the store wrote for a durable
 * queue is receipted only once the store has synced it (as rabbitmq_stomp receipts a SEND on the
 * publisher confirm); a receipt asked behind it waits for it. While nothing waits, a receipt
 * leaves at once and nothing is recorded.
 */
import type { Broker, SyncWaiter } from "../broker/index.js";

interface Owed {
  /** null: a stored SEND without a receipt header (nothing to send, but later receipts wait for it). */
  readonly receipt: string | null;
  done: boolean;
}

export class ReceiptOrder implements SyncWaiter {
  private readonly owed: Owed[] = [];
  /** The sync token of owed[0]. */
  private headToken = 0;

  constructor(
    private readonly broker: Broker,
    private readonly send: (receiptId: string) => void,
  ) {}

  /** A frame asked for a receipt (or a SEND was stored); `stored`: wait for the store's sync. */
  owe(receipt: string | null, stored: boolean): void {
    if (!stored && this.owed.length === 0) {
      if (receipt !== null) this.send(receipt);
      return;
    }
    const token = this.headToken + this.owed.length;
    this.owed.push({ receipt, done: !stored });
    if (stored) this.broker.whenStored(this, token);
  }

  /** A round trip (a delete on the worker that leads the queue) that later receipts wait for, whatever its outcome. */
  waitFor(p: Promise<unknown>): void {
    const token = this.headToken + this.owed.length;
    this.owed.push({ receipt: null, done: false });
    const done = (): void => this.synced(token, true);
    p.then(done, done);
  }

  /**
   * A SUBSCRIBE or UNSUBSCRIBE's receipt under `coney --workers N` waits until every worker applied
   * the queue and binding it made or removed (TopologyMirror.settled; docs/CLUSTERING.md,
   * "Answered once everyone knows"). A single node has no mirror: nothing waits.
   */
  waitForFollowers(): void {
    const mirror = this.broker.mirror;
    if (mirror?.settled !== undefined) this.waitFor(mirror.settled());
  }

  synced(token: number, _ok: boolean): void {
    const a = this.owed[token - this.headToken];
    if (a === undefined) return;
    a.done = true;
    let n = 0;
    while (n < this.owed.length && this.owed[n]!.done) n++;
    if (n === 0) return;
    this.headToken += n;
    for (const o of this.owed.splice(0, n)) if (o.receipt !== null) this.send(o.receipt);
  }
}
