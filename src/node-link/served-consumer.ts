/**
 * A consumer of another node, registered on a queue this node leads (docs/CLUSTERING.md, "A
 * delivery that crosses nodes", step 2): it takes entries while the connecting node's credit (its
 * client's prefetch, or a window) allows and the link's socket is not backed up, sends each as a
 * DELIVER frame, and holds it until that node settles it by the entry id the frame carried (an id
 * of its own: held-deliveries.ts). When the link closes every entry it holds goes back to its
 * queue, redelivered, as for a closed channel.
 *
 * Invariant: `held.size` ≤ `window` — the connecting node's client never holds more than it asked for.
 */
import type { Queue, QueueConsumer, QueueEntry } from "../broker/index.js";
import { SETTLE_ACK, SETTLE_REQUEUE } from "../broker/index.js";
import type { FieldTable } from "../broker/values/field-value.js";
import { HeldDeliveries, MAX_HELD } from "./held-deliveries.js";

/** What a served consumer needs of its link. */
export interface ServingLink {
  readonly backedUp: boolean;
  /** `entryId`: what the connecting node settles it by. */
  writeDeliver(consumerId: number, entryId: number, entry: QueueEntry): void;
  cancelledByQueue(consumerId: number, reason: string): void;
}

export class ServedConsumer implements QueueConsumer<Queue> {
  readonly noAck = false;
  /**
   * A lent body (values/body-lease.ts) stays counted while served: the link's writer holds it until
   * written (link-writer.ts), and the entry's hold ends with its ack here, as an AMQP channel's does.
   */
  readonly countsBodyHolds = true;
  private readonly held = new HeldDeliveries<QueueEntry>();
  private active = true;
  private readonly window: number;

  constructor(
    private readonly link: ServingLink,
    readonly id: number,
    readonly queue: Queue,
    readonly tag: string,
    readonly exclusive: boolean,
    readonly priority: number,
    window: number,
    readonly owner: object,
    /** The consume's arguments, read by the queue as a local channel's consumer's (a stream's x-stream-offset). */
    readonly args: FieldTable | null = null,
  ) {
    this.window = Math.min(window, MAX_HELD);
  }

  canTake(): boolean {
    return this.active && this.held.size < this.window && !this.link.backedUp;
  }

  deliver(_queue: Queue, entry: QueueEntry): void {
    this.link.writeDeliver(this.id, this.held.add(entry), entry);
  }

  /** What it holds for the connecting node (a rare path: a planned hand-over of the queue). */
  heldEntries(_queue: Queue, into: QueueEntry[]): void {
    this.held.each((e) => into.push(e));
  }

  cancelledByQueue(_queue: Queue): void {
    this.active = false;
    this.link.cancelledByQueue(this.id, "queue deleted");
  }

  /** One entry of a SETTLE frame; unknown entry ids (already settled) are ignored. `settled()` follows the frame's last. */
  settle(entryId: number, op: number): void {
    const e = this.held.take(entryId);
    if (e === undefined) return;
    const q = this.queue;
    if (op === SETTLE_ACK) {
      q.settle(e);
      e.message.lease?.release();
    } else if (op === SETTLE_REQUEUE) q.requeue([e]);
    else q.discard(e);
  }

  /** A SETTLE frame's entries are settled: the window they freed is filled once, not once per entry. */
  settled(): void {
    if (this.active) this.queue.dispatch();
  }

  /** CANCEL: no more deliveries; what it holds stays held until settled or the link closes. */
  cancel(): void {
    if (!this.active) return;
    this.active = false;
    this.queue.removeConsumer(this);
  }

  /** The link closed: cancelled, and everything held goes back to the queue (redelivered). */
  end(): void {
    this.cancel();
    if (this.held.size === 0) return;
    const entries = this.held.takeAll();
    if (!this.queue.isDeleted) this.queue.requeue(entries);
  }

  get holds(): boolean {
    return this.held.size > 0;
  }
}
