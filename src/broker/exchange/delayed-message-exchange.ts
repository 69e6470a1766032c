/**
 * The x-delayed-message exchange (the rabbitmq-delayed-message-exchange plugin; LavinMQ has the
 * same contract): it routes like the type named by its `x-delayed-type` argument (direct,
 * fanout, topic, headers or x-consistent-hash), by delegating to an exchange of that type, but a
 * message published to it with an `x-delay` header of more than 0 ms is held and routed only
 * when due. The holding is DelayedMessages (delayed-messages.ts), attached by the broker when the
 * exchange is created (it needs the vhost's queue host); the broker's publish asks `delayed`,
 * which is null on every other exchange, so they pay one null check.
 */
import { BrokerError } from "../../errors/broker-error.js";
import type { FieldTable } from "../values/field-value.js";
import type { MessageProperties } from "../values/message-properties.js";
import { ConsistentHashExchange } from "./consistent-hash-exchange.js";
import { DirectExchange } from "./direct-exchange.js";
import { Exchange, type Destination, type ExchangeBinding, type ExchangeSpec } from "./exchange.js";
import { FanoutExchange } from "./fanout-exchange.js";
import { HeadersExchange } from "./headers-exchange.js";
import { TopicExchange } from "./topic-exchange.js";

type RoutingConstructor = new (vhost: string, spec: Omit<ExchangeSpec, "type">) => Exchange;

/** The types a delayed exchange may route by. */
const ROUTING_TYPES: ReadonlyMap<string, RoutingConstructor> = new Map<string, RoutingConstructor>([
  ["direct", DirectExchange],
  ["fanout", FanoutExchange],
  ["headers", HeadersExchange],
  ["topic", TopicExchange],
  ["x-consistent-hash", ConsistentHashExchange],
]);

export class DelayedMessageExchange extends Exchange {
  readonly type = "x-delayed-message";
  /** The exchange of type x-delayed-type that does the routing. */
  readonly routing: Exchange;

  constructor(vhost: string, spec: Omit<ExchangeSpec, "type">) {
    super(vhost, spec);
    const ctor = ROUTING_TYPES.get(String(spec.arguments["x-delayed-type"]));
    if (!ctor) throw new Error("x-delayed-type not validated");
    this.routing = new ctor(vhost, spec);
  }

  /** The plugin's validate: x-delayed-type names an existing type, and not itself. */
  static validate(spec: ExchangeSpec): void {
    const t = spec.arguments["x-delayed-type"];
    if (t === "x-delayed-message") throw new BrokerError("preconditionFailed", "Invalid argument, 'x-delayed-message' can't be used for 'x-delayed-type'");
    if (typeof t !== "string") throw new BrokerError("preconditionFailed", "Invalid argument, 'x-delayed-type' must be an existing exchange type");
    if (!ROUTING_TYPES.has(t)) throw new BrokerError("commandInvalid", `unknown exchange type '${t}'`);
    if (t === "x-consistent-hash") ConsistentHashExchange.validate(spec);
  }

  /** The x-delayed-type this exchange routes by. */
  get delayedType(): string {
    return this.routing.type;
  }

  override validateBinding(routingKey: string, args: FieldTable): void {
    this.routing.validateBinding(routingKey, args);
  }

  override dispose(): void {
    this.delayed?.dispose();
  }

  protected addRoute(b: ExchangeBinding): void {
    this.routing.bind(b);
  }

  protected removeRoute(b: ExchangeBinding): void {
    this.routing.unbind(b);
  }

  route(routingKey: string, properties: MessageProperties, out: Destination[]): void {
    this.routing.route(routingKey, properties, out);
  }
}
