/**
 * The channel side of direct reply-to: the pseudo-consumer created by consuming
 * "amq.rabbitmq.reply-to" (no-ack only, one per channel, as RabbitMQ requires).
 */
import { DirectReplyRegistry, type ReplyTarget } from "../../broker/direct-reply.js";
import type { Message } from "../../broker/message.js";
import { encodeBasicDeliver } from "../codec/generated.js";
import type { Channel } from "./channel.js";

export class DirectReplyConsumer implements ReplyTarget {
  readonly key: string;
  readonly replyAddress: string;

  constructor(private readonly channel: Channel, readonly tag: string) {
    this.key = channel.conn.broker.directReply.register(this);
    this.replyAddress = DirectReplyRegistry.address(this.key);
  }

  deliverReply(message: Message): void {
    const ch = this.channel;
    if (ch.state !== "open") return;
    encodeBasicDeliver(ch.conn.out, ch.number, {
      consumerTag: this.tag,
      deliveryTag: ch.nextDeliveryTag++,
      redelivered: false,
      exchange: message.exchange,
      routingKey: message.routingKey,
    });
    ch.writeContent(message);
  }
}
