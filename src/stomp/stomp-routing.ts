/**
 * Where a destination sends and reads, in domain terms: the exchange and routing key a SEND
 * publishes with, and the queue a SUBSCRIBE consumes from — declaring what RabbitMQ declares
 * (/queue/q durable; a queue of its own per /topic or /exchange subscription, bound to the
 * exchange) through the same Broker operations and permission checks as AMQP.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Broker, ClientContext } from "../broker/index.js";
import { queueArguments } from "./queue-arguments.js";
import { TOPIC_EXCHANGE, type Destination } from "./stomp-destination.js";

/** A subscription's queue: its name, and whether it was made for the subscription alone. */
export interface SubscriptionQueue {
  readonly name: string;
  readonly own: { readonly name: string; readonly durable: boolean } | null;
}

/** Declares /queue/q as RabbitMQ does (durable, not auto-delete unless the headers say so). */
export function declareNamedQueue(broker: Broker, ctx: ClientContext, vhost: string, queue: string, headers: Map<string, string>): void {
  broker.declareQueue(ctx, vhost, { name: queue, durable: headers.get("durable") !== "false", autoDelete: headers.get("auto-delete") === "true", exclusiveOwner: headers.get("exclusive") === "true" ? ctx.owner : null, arguments: queueArguments(headers) }, false);
}

/** The exchange and key a destination publishes with (temp queues are resolved by the caller). */
export function publishTarget(d: Destination): { exchange: string; key: string } {
  switch (d.kind) {
    case "topic":
      return { exchange: TOPIC_EXCHANGE, key: d.key };
    case "exchange":
      return { exchange: d.exchange, key: d.key };
    case "queue":
    case "amq-queue":
    case "reply-queue":
      return { exchange: "", key: d.queue };
    case "temp-queue":
      throw new Error("a temp queue is resolved by its session");
  }
}

/** The name of a /topic or /exchange subscription's queue: x-queue-name, a stable one for a durable subscription with an id, else a fresh one. */
function subscriptionQueueName(destination: string, id: string, durable: boolean, headers: Map<string, string>): string {
  const named = headers.get("x-queue-name");
  if (named !== undefined && named !== "") return named;
  const tail = durable ? createHash("md5").update(`${destination}\u0000${id}`).digest("base64url") : randomBytes(16).toString("base64url");
  return `stomp-subscription-${tail}`;
}

/** The queue a SUBSCRIBE to `d` consumes from, declared and bound as needed. */
export function subscriptionQueue(broker: Broker, ctx: ClientContext, vhost: string, d: Destination, destination: string, id: string, headers: Map<string, string>): SubscriptionQueue {
  switch (d.kind) {
    case "queue":
      declareNamedQueue(broker, ctx, vhost, d.queue, headers);
      return { name: d.queue, own: null };
    case "amq-queue":
    case "reply-queue":
      return { name: d.queue, own: null };
    case "topic":
    case "exchange": {
      const durable = headers.get("durable") === "true" || headers.get("persistent") === "true";
      const name = subscriptionQueueName(destination, id, durable, headers);
      const autoDelete = headers.get("auto-delete") !== "false";
      const exclusive = headers.get("exclusive") === "true";
      broker.declareQueue(ctx, vhost, { name, durable, autoDelete, exclusiveOwner: exclusive ? ctx.owner : null, arguments: queueArguments(headers) }, false);
      const { exchange, key } = publishTarget(d);
      broker.bindQueue(ctx, vhost, name, exchange, key, {});
      return { name, own: { name, durable } };
    }
    case "temp-queue":
      throw new Error("a temp queue is resolved by its session");
  }
}
