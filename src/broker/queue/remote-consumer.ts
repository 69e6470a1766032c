/**
 * One consumer on this node of a queue led by another node (docs/CLUSTERING.md, "A delivery that
 * crosses nodes"): the leader delivers under a window of credit — the consumer's prefetch, or a
 * fixed window for a consumer without one — and each entry is settled back by its id. What
 * arrives while the consumer cannot take it (a channel-wide prefetch shared with other
 * consumers, a socket backed up) waits here, in order, until RemoteQueue.dispatch() is called as
 * the consumer gains capacity; the window bounds that buffer.
 *
 * Invariant: the leader never has more than `window` entries outstanding for this consumer, so
 * the client never holds more than its prefetch and this buffer never more than the window.
 */
import type { Message } from "../message.js";
import type { QueueConsumer } from "./queue-consumer.js";
import type { QueueEntry } from "./queue-entry.js";
import { SETTLE_ACK, type RemoteConsumerSink } from "./queue-leader-port.js";
import type { Queue } from "./queue-type.js";

/** A consumer without a prefetch gets this many deliveries ahead (the design's window, 1,000). */
export const NO_PREFETCH_WINDOW = 1000;

/** A delivery from the leader, as the consumer's channel holds it: settling it needs the consumer's id on the port. */
export class RemoteEntry implements QueueEntry {
  returns = 0;
  expiresAt = 0;
  constructor(
    readonly consumerId: number,
    public message: Message,
    readonly seq: number,
    public redelivered: boolean,
    public deliveryCount: number,
  ) {}
}

/** What a remote consumer asks of its queue. */
export interface RemoteConsumerQueue extends Queue {
  /** The consumer is gone (cancelled by the leader or the link lost): forget it. */
  consumerEnded(state: RemoteConsumerState): void;
  /** An entry was handed to a no-ack consumer: settle it on the leader at once. */
  settleOnLeader(consumerId: number, entryId: number, op: typeof SETTLE_ACK): void;
}

export class RemoteConsumerState implements RemoteConsumerSink {
  id = 0;
  private readonly waiting: RemoteEntry[] = [];
  private head = 0;

  constructor(private readonly queue: RemoteConsumerQueue, readonly consumer: QueueConsumer<Queue>) {}

  delivered(entryId: number, redelivered: boolean, deliveryCount: number, message: Message): void {
    const e = new RemoteEntry(this.id, message, entryId, redelivered, deliveryCount);
    if (this.head === this.waiting.length && this.consumer.canTake()) this.handOver(e);
    else this.waiting.push(e);
  }

  /** Hands what waits to the consumer while it can take it. */
  drain(): void {
    const w = this.waiting;
    while (this.head < w.length && this.consumer.canTake()) this.handOver(w[this.head++]!);
    if (this.head === w.length && this.head > 0) {
      w.length = 0;
      this.head = 0;
    }
  }

  cancelledByLeader(_reason: string): void {
    // Never handed over: the frame's hold on a lent body ends (handOver(0) also ends a fresh lease's routing).
    const w = this.waiting;
    for (let i = this.head; i < w.length; i++) w[i]!.message.lease?.handOver(0);
    this.waiting.length = 0;
    this.head = 0;
    this.queue.consumerEnded(this);
    this.consumer.cancelledByQueue(this.queue);
  }

  private handOver(e: RemoteEntry): void {
    const q = this.queue;
    const noAck = this.consumer.noAck;
    // A body lent by the link's read slab (values/body-lease.ts): the entry is its one holder when
    // the consumer counts holds (it releases on ack), otherwise the consumer keeps it uncounted.
    const lease = e.message.lease;
    if (lease !== null) {
      if (this.consumer.countsBodyHolds === true) lease.handOver(1);
      else lease.pin();
    }
    if (noAck) q.stats.deliverNoAck++;
    else q.stats.deliver++;
    if (e.redelivered) q.stats.redeliver++;
    this.consumer.deliver(q, e);
    // A no-ack consumer owns it now: the leader forgets it (and its window slot comes back).
    if (noAck) q.settleOnLeader(this.id, e.seq, SETTLE_ACK);
  }
}
