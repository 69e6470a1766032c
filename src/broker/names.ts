/** Name rules shared by every transport: reserved prefixes, length, server-generated names. */
import { randomBytes } from "node:crypto";
import { BrokerError } from "../errors/broker-error.js";

/** AMQP shortstr limit; names travel as shortstr, so HTTP must refuse longer ones too. */
export const MAX_NAME_BYTES = 255;

export function checkNameLength(kind: "queue" | "exchange" | "vhost" | "user" | "policy", name: string): void {
  if (Buffer.byteLength(name, "utf8") > MAX_NAME_BYTES) {
    throw new BrokerError("badRequest", `${kind} name is too long: ${Buffer.byteLength(name, "utf8")} bytes, the limit is ${MAX_NAME_BYTES}`);
  }
}

/** RabbitMQ reserves "amq." for its own objects: declaring a new one is refused (rabbit_channel:check_name). */
export function checkNotReserved(kind: "queue" | "exchange", name: string): void {
  if (name.startsWith("amq.")) {
    throw new BrokerError("accessRefused", `${kind} name '${name}' contains reserved prefix 'amq.*'`);
  }
}

/** A server-named queue, like RabbitMQ's "amq.gen-" followed by 22 url-safe base64 characters. */
export function generateQueueName(): string {
  return `amq.gen-${randomBytes(16).toString("base64url")}`;
}

/** A server-generated consumer tag, like RabbitMQ's "amq.ctag-…". */
export function generateConsumerTag(): string {
  return `amq.ctag-${randomBytes(16).toString("base64url")}`;
}
