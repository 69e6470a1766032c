/**
 * A basic.consume subscription: the queue-facing side of a channel's consumer. Capacity
 * follows RabbitMQ's qos semantics: a per-consumer prefetch (basic.qos global=false, fixed when
 * the consumer is created) and the channel-wide limit (global=true), and nothing while the
 * connection's socket is backed up. A delivery takes the channel's next delivery tag and, unless
 * no-ack, stays in the channel's `unacked` until settled (settlement.ts).
 */
import type { Queue, QueueConsumer, QueueEntry } from "../../broker/index.js";
import type { FieldTable } from "../../broker/values/field-value.js";
import { encodeBasicCancel } from "../codec/generated.js";
import type { ChannelHost, ChannelOutput } from "./channel-host.js";
import type { ChannelStats } from "./channel-stats.js";
import { writeDelivery } from "./delivery-frames.js";
import type { UnackedDeliveries } from "./unacked-deliveries.js";

/** What a consumer needs of its channel (the Channel class provides it). */
export interface ConsumerChannel {
  readonly host: ChannelHost;
  /** The host's output, kept by the channel. */
  readonly output: ChannelOutput;
  readonly number: number;
  readonly state: "open" | "closing";
  /** Channel-wide prefetch (basic.qos global=true); 0 = unlimited. */
  readonly prefetchCount: number;
  nextDeliveryTag: number;
  /** By delivery tag, in tag order. */
  readonly unacked: UnackedDeliveries;
  readonly consumers: Map<string, ChannelConsumer>;
  readonly stats: ChannelStats;
  /**
   * While this channel's own queue.delete waits for its answer: the tags of the basic.cancel
   * notifications to send after its delete-ok (queue-methods.ts), as RabbitMQ orders them; null otherwise.
   */
  cancelsAfterAnswer: string[] | null;
}

export class ChannelConsumer implements QueueConsumer {
  unackedCount = 0;
  /** deliver() encodes the message into the connection's output at once: bodies may be lent. */
  readonly borrowsBodies = true;
  /** Its writes hold a lent body until written; an ack (settlement.ts) or a no-ack delivery releases the entry's hold. */
  readonly countsBodyHolds = true;
  /** The queue lends bodies (a stream): large ones are copied into the output, not referenced. */
  private readonly copyBodies: boolean;

  constructor(
    readonly channel: ConsumerChannel,
    readonly queue: Queue,
    readonly tag: string,
    readonly noAck: boolean,
    readonly exclusive: boolean,
    readonly priority: number,
    readonly prefetch: number,
    readonly args: Record<string, unknown>,
  ) {
    this.copyBodies = queue.lendsBodies;
  }

  get owner(): object {
    return this.channel.host;
  }

  canTake(): boolean {
    const ch = this.channel;
    if (!ch.host.canDeliver || ch.state !== "open") return false;
    if (this.noAck) return true;
    return (this.prefetch === 0 || this.unackedCount < this.prefetch) && (ch.prefetchCount === 0 || ch.unacked.size < ch.prefetchCount);
  }

  /** basic.deliver + content, tracked until acked unless no-ack. */
  deliver(queue: Queue, entry: QueueEntry): void {
    const ch = this.channel;
    const tag = ch.nextDeliveryTag++;
    if (!this.noAck) {
      ch.unacked.add(tag, queue, entry, this);
      this.unackedCount++;
    }
    ch.stats.delivered(this.noAck, entry.redelivered);
    writeDelivery(ch.output, ch.number, this.tag, tag, entry.redelivered, entry.message, this.copyBodies);
    // No-ack: the queue forgets the entry now; the write's own hold keeps the body until sent.
    if (this.noAck) entry.message.lease?.release();
  }

  /** For consumer.created: asked only while the broker's events want it. */
  describe(): { channel: string; user: string; prefetchCount: number; arguments: FieldTable } {
    const host = this.channel.host;
    return { channel: `${host.name} (${this.channel.number})`, user: host.user, prefetchCount: this.prefetch, arguments: this.args as FieldTable };
  }

  /** Its deliveries of `queue` not yet settled (a rare path: a planned hand-over of the queue). */
  heldEntries(queue: Queue, into: QueueEntry[]): void {
    for (const [, u] of this.channel.unacked) if (u.queue === queue && u.consumer === this) into.push(u.entry);
  }

  /** The queue was deleted: with consumer_cancel_notify the client hears basic.cancel. */
  cancelledByQueue(_queue: Queue): void {
    const ch = this.channel;
    if (ch.consumers.get(this.tag) !== this) return;
    ch.consumers.delete(this.tag);
    const caps = ch.host.clientProperties["capabilities"];
    if (caps && typeof caps === "object" && !Array.isArray(caps) && (caps as Record<string, unknown>)["consumer_cancel_notify"] === true) {
      if (ch.cancelsAfterAnswer !== null) ch.cancelsAfterAnswer.push(this.tag);
      else sendCancel(ch, this.tag);
    }
  }
}

/** basic.cancel from the broker (consumer_cancel_notify). */
export function sendCancel(ch: ConsumerChannel, tag: string): void {
  encodeBasicCancel(ch.output.out, ch.number, { consumerTag: tag, nowait: true });
  ch.output.maybeFlush();
}

/**
 * Runs `del` (a queue.delete on `ch`) with the channel's cancel notifications held; the returned
 * function sends them, once the delete-ok is written (or the delete failed). RabbitMQ writes the
 * deleting channel's delete-ok before the basic.cancel of its own consumer of that queue (seen on
 * 3.10 with a frame-logging proxy): a client that closes when told of the cancel (amqplib's
 * channel_api "cancelled consumer") has had its delete-ok first, also when the answer waits for
 * the other nodes (answered-everywhere.ts).
 */
export function withCancelsAfterAnswer<T>(ch: ConsumerChannel, del: () => T): { value: T; release: () => void } {
  const held: string[] = [];
  ch.cancelsAfterAnswer = held;
  const release = (): void => {
    if (ch.cancelsAfterAnswer === held) ch.cancelsAfterAnswer = null;
    for (const tag of held.splice(0)) sendCancel(ch, tag);
  };
  try {
    return { value: del(), release };
  } catch (err) {
    release();
    throw err;
  }
}
