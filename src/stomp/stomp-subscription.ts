/**
 * One SUBSCRIBE: the queue consumer that turns a queue's entries into MESSAGE frames for its
 * connection. `ack:auto` consumes without acks; `client` and `client-individual` hold each
 * delivery, by its delivery tag, until ACK or NACK (`client` acknowledges cumulatively, so the
 * held deliveries are kept in delivery order: a Map iterates in insertion order). At most
 * `prefetch` deliveries are held at a time (the prefetch-count header; 0 = no limit, RabbitMQ's
 * default), and none are taken while the connection's output is backed up.
 */
import type { Queue, QueueConsumer, QueueEntry } from "../broker/index.js";

export type AckMode = "auto" | "client" | "client-individual";

/** What a subscription needs of its connection. */
export interface SubscriptionHost {
  readonly owner: object;
  readonly writable: boolean;
  deliver(s: StompSubscription, queue: Queue, entry: QueueEntry): void;
  subscriptionCancelled(s: StompSubscription): void;
}

export class StompSubscription implements QueueConsumer<Queue> {
  readonly exclusive = false;
  readonly priority = 0;
  readonly noAck: boolean;
  /** Deliveries held for ACK/NACK, by delivery tag, in delivery order. */
  readonly unacked = new Map<number, QueueEntry>();

  constructor(
    private readonly host: SubscriptionHost,
    /** The subscription id (the `id` header; 1.0 without one: the destination). */
    readonly id: string,
    readonly queue: Queue,
    readonly ackMode: AckMode,
    readonly prefetch: number,
    /** A queue made for this subscription only (/topic, /exchange), deleted with it unless durable. */
    readonly own: { readonly name: string; readonly durable: boolean } | null,
    /** The consumer tag shown in the management API. */
    readonly tag: string,
  ) {
    this.noAck = ackMode === "auto";
  }

  get owner(): object {
    return this.host.owner;
  }

  canTake(): boolean {
    return this.host.writable && (this.noAck || this.prefetch === 0 || this.unacked.size < this.prefetch);
  }

  deliver(queue: Queue, entry: QueueEntry): void {
    this.host.deliver(this, queue, entry);
  }

  cancelledByQueue(_queue: Queue): void {
    this.host.subscriptionCancelled(this);
  }

  /** ACK of `tag`: settles it (client-individual) or it and every earlier one (client). False if not held. */
  ack(tag: number): boolean {
    if (!this.unacked.has(tag)) return false;
    if (this.ackMode === "client-individual") {
      this.queue.settle(this.unacked.get(tag)!);
      this.unacked.delete(tag);
    } else {
      for (const [t, e] of this.unacked) {
        if (t > tag) break;
        this.queue.settle(e);
        this.unacked.delete(t);
      }
    }
    this.queue.dispatch();
    return true;
  }

  /** NACK: requeued (or, `requeue:false`, discarded: dead-lettered when the queue says so); cumulative for `client`. */
  nack(tag: number, requeue: boolean): boolean {
    if (!this.unacked.has(tag)) return false;
    const entries: QueueEntry[] = [];
    if (this.ackMode === "client-individual") {
      entries.push(this.unacked.get(tag)!);
      this.unacked.delete(tag);
    } else {
      for (const [t, e] of this.unacked) {
        if (t > tag) break;
        entries.push(e);
        this.unacked.delete(t);
      }
    }
    if (requeue) this.queue.requeue(entries);
    else for (const e of entries) this.queue.discard(e);
    this.queue.dispatch();
    return true;
  }

  /** Stops consuming; held deliveries go back to the queue. */
  cancel(): void {
    this.queue.removeConsumer(this);
    if (this.unacked.size > 0) {
      const entries = [...this.unacked.values()];
      this.unacked.clear();
      this.queue.requeue(entries);
    }
  }
}
