/**
 * The default exchange (""): every queue is bound to it implicitly with its own name as the
 * routing key (AMQP 0-9-1 §2.1.2.4 / spec "default exchange"). It keeps no bindings; routing is
 * one lookup in the vhost's queue table. Explicit bind/unbind are refused by the vhost.
 */
import type { MessageProperties } from "../values/message-properties.js";
import type { Queue } from "../queue/queue-type.js";
import { Exchange, type Destination, type ExchangeBinding } from "./exchange.js";

export class DefaultExchange extends Exchange {
  readonly type = "direct";

  constructor(vhost: string, private readonly queues: ReadonlyMap<string, Queue>) {
    super(vhost, { name: "", durable: true, autoDelete: false, internal: false, arguments: {} });
  }

  protected addRoute(_b: ExchangeBinding): void {
    throw new Error("the default exchange takes no explicit bindings");
  }

  protected removeRoute(_b: ExchangeBinding): void {}

  route(routingKey: string, _properties: MessageProperties, out: Destination[]): void {
    const q = this.queues.get(routingKey);
    if (q) out.push(q);
  }
}
