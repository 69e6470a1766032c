/**
 * A basic.consume subscription: the queue-facing side of a channel's consumer. Capacity
 * follows RabbitMQ's qos semantics: a per-consumer prefetch (basic.qos global=false, fixed when
 * the consumer is created) and the channel-wide limit (global=true), and nothing while the
 * connection's socket is backed up.
 */
import type { Queue } from "../../broker/queue/queue.js";
import type { QueueConsumer } from "../../broker/queue/queue-consumer.js";
import type { QueueEntry } from "../../broker/queue/queue-entry.js";
import type { Channel } from "./channel.js";

export class ChannelConsumer implements QueueConsumer {
  unackedCount = 0;

  constructor(
    readonly channel: Channel,
    readonly queue: Queue,
    readonly tag: string,
    readonly noAck: boolean,
    readonly exclusive: boolean,
    readonly priority: number,
    readonly prefetch: number,
    readonly args: Record<string, unknown>,
  ) {}

  get owner(): object {
    return this.channel.conn;
  }

  canTake(): boolean {
    const ch = this.channel;
    if (!ch.conn.canDeliver || ch.state !== "open") return false;
    if (this.noAck) return true;
    return (this.prefetch === 0 || this.unackedCount < this.prefetch) && (ch.prefetchCount === 0 || ch.unacked.size < ch.prefetchCount);
  }

  deliver(queue: Queue, entry: QueueEntry): void {
    this.channel.deliver(this, queue, entry);
  }

  cancelledByQueue(_queue: Queue): void {
    this.channel.consumerCancelledByQueue(this);
  }
}
