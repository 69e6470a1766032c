/**
 * Direct reply-to (RabbitMQ's amq.rabbitmq.reply-to): an RPC client consumes the pseudo-queue
 * "amq.rabbitmq.reply-to" in no-ack mode; its requests carry a reply-to rewritten to
 * "amq.rabbitmq.reply-to.<key>", and a reply published to the default exchange with that
 * routing key goes straight to the requesting channel, with no queue in between.
 *
 * On a node that is one of several (`coney --workers N`, reachOthers) a key is
 * "<node tag>.<random>", as RabbitMQ encodes the requester's node in it: a reply whose key names
 * another node is handed to the forwarder, which carries it to that node (the inter-node link's
 * DIRECT_REPLY), where it is delivered like a local one — or dropped when its requester is gone,
 * as RabbitMQ drops a reply to a closed channel.
 */
import { randomBytes } from "node:crypto";
import type { Message } from "./message.js";

export const REPLY_TO_QUEUE = "amq.rabbitmq.reply-to";
const PREFIX = `${REPLY_TO_QUEUE}.`;

export interface ReplyTarget {
  deliverReply(message: Message): void;
}

/** Carries a reply to the node whose tag its key names; false when that node is unknown or unreachable. */
export interface ReplyForwarder {
  forward(nodeTag: string, message: Message): boolean;
}

/** A node name as it appears in a reply key: url-safe base64, so it holds no "." and no character a queue name refuses. */
export const replyNodeTag = (node: string): string => Buffer.from(node).toString("base64url");

export class DirectReplyRegistry {
  private readonly targets = new Map<string, ReplyTarget>();
  private tag = "";
  private forwarder: ReplyForwarder | null = null;

  /** This node is one of several: keys carry its tag, replies to another node's keys go to `forwarder`. */
  reachOthers(node: string, forwarder: ReplyForwarder): void {
    this.tag = replyNodeTag(node);
    this.forwarder = forwarder;
  }

  /** Registers a reply consumer; returns its key (the part after the prefix). */
  register(target: ReplyTarget): string {
    const random = randomBytes(18).toString("base64url");
    const key = this.tag === "" ? random : `${this.tag}.${random}`;
    this.targets.set(key, target);
    return key;
  }

  unregister(key: string): void {
    this.targets.delete(key);
  }

  static address(key: string): string {
    return PREFIX + key;
  }

  /**
   * Delivers a reply addressed by routing key; false when its requester is known to be gone (here,
   * or its node unreachable). A reply handed to another node counts as delivered: that node drops
   * it if its requester went meanwhile.
   */
  deliver(routingKey: string, message: Message): boolean {
    const key = routingKey.slice(PREFIX.length);
    if (this.forwarder !== null) {
      const dot = key.indexOf(".");
      const tag = dot > 0 ? key.slice(0, dot) : "";
      if (tag !== this.tag) return tag !== "" && this.forwarder.forward(tag, message);
    }
    const target = this.targets.get(key);
    if (!target) return false;
    target.deliverReply(message);
    return true;
  }
}
