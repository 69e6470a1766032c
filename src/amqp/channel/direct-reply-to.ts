/**
 * The channel side of direct reply-to: the pseudo-consumer created by consuming
 * "amq.rabbitmq.reply-to" (no-ack only, one per channel, as RabbitMQ requires).
 */
import { DirectReplyRegistry, type ReplyTarget, type Message } from "../../broker/index.js";
import type { ChannelHost, ChannelOutput } from "./channel-host.js";
import { writeDelivery } from "./delivery-frames.js";

/** What a reply consumer needs of its channel (the Channel class provides it). */
export interface ReplyChannel {
  readonly host: ChannelHost;
  /** The host's output, kept by the channel. */
  readonly output: ChannelOutput;
  readonly number: number;
  readonly state: "open" | "closing";
  nextDeliveryTag: number;
}

export class DirectReplyConsumer implements ReplyTarget {
  readonly key: string;
  readonly replyAddress: string;

  constructor(private readonly channel: ReplyChannel, readonly tag: string) {
    this.key = channel.host.broker.directReply.register(this);
    this.replyAddress = DirectReplyRegistry.address(this.key);
  }

  deliverReply(message: Message): void {
    const ch = this.channel;
    if (ch.state !== "open") return;
    writeDelivery(ch.output, ch.number, this.tag, ch.nextDeliveryTag++, false, message);
  }
}
