/**
 * Direct reply-to (RabbitMQ's amq.rabbitmq.reply-to): an RPC client consumes the pseudo-queue
 * "amq.rabbitmq.reply-to" in no-ack mode; its requests carry a reply-to rewritten to
 * "amq.rabbitmq.reply-to.<key>", and a reply published to the default exchange with that
 * routing key goes straight to the requesting channel, with no queue in between.
 */
import { randomBytes } from "node:crypto";
import type { Message } from "./message.js";

export const REPLY_TO_QUEUE = "amq.rabbitmq.reply-to";
const PREFIX = `${REPLY_TO_QUEUE}.`;

export interface ReplyTarget {
  deliverReply(message: Message): void;
}

export class DirectReplyRegistry {
  private readonly targets = new Map<string, ReplyTarget>();

  /** Registers a reply consumer; returns its key (the part after the prefix). */
  register(target: ReplyTarget): string {
    const key = randomBytes(18).toString("base64url");
    this.targets.set(key, target);
    return key;
  }

  unregister(key: string): void {
    this.targets.delete(key);
  }

  static address(key: string): string {
    return PREFIX + key;
  }

  /** Delivers a reply addressed by routing key; false when its requester is gone. */
  deliver(routingKey: string, message: Message): boolean {
    const target = this.targets.get(routingKey.slice(PREFIX.length));
    if (!target) return false;
    target.deliverReply(message);
    return true;
  }
}
