/** The exchange types a vhost can create, by the name clients declare them with. */
import type { ExchangeSpec, Exchange } from "./exchange.js";
import { ConsistentHashExchange } from "./consistent-hash-exchange.js";
import { DelayedMessageExchange } from "./delayed-message-exchange.js";
import { DirectExchange } from "./direct-exchange.js";
import { FanoutExchange } from "./fanout-exchange.js";
import { HeadersExchange } from "./headers-exchange.js";
import { TopicExchange } from "./topic-exchange.js";

type ExchangeConstructor = new (vhost: string, spec: Omit<ExchangeSpec, "type">) => Exchange;

interface ExchangeType {
  readonly ctor: ExchangeConstructor;
  readonly description: string;
  /** Refuses a declaration whose arguments the type cannot take (RabbitMQ's exchange type validate/1). */
  readonly validate?: (spec: ExchangeSpec) => void;
}

export const EXCHANGE_TYPES: ReadonlyMap<string, ExchangeType> = new Map<string, ExchangeType>([
  ["direct", { ctor: DirectExchange, description: "AMQP direct exchange, as per the AMQP specification" }],
  ["fanout", { ctor: FanoutExchange, description: "AMQP fanout exchange, as per the AMQP specification" }],
  ["headers", { ctor: HeadersExchange, description: "AMQP headers exchange, as per the AMQP specification" }],
  ["topic", { ctor: TopicExchange, description: "AMQP topic exchange, as per the AMQP specification" }],
  ["x-consistent-hash", { ctor: ConsistentHashExchange, description: "Consistent Hashing Exchange", validate: (spec) => ConsistentHashExchange.validate(spec) }],
  ["x-delayed-message", { ctor: DelayedMessageExchange, description: "Delayed Message Exchange", validate: (spec) => DelayedMessageExchange.validate(spec) }],
]);

export function createExchange(vhost: string, spec: ExchangeSpec): Exchange | null {
  const t = EXCHANGE_TYPES.get(spec.type);
  return t ? new t.ctor(vhost, spec) : null;
}

