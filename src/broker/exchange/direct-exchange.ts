/** Direct exchange: a message goes to the bindings whose key equals its routing key (one Map lookup). */
import type { MessageProperties } from "../values/message-properties.js";
import { Exchange, type Destination, type ExchangeBinding } from "./exchange.js";

export class DirectExchange extends Exchange {
  readonly type: string = "direct";
  private readonly byKey = new Map<string, ExchangeBinding[]>();

  protected addRoute(b: ExchangeBinding): void {
    const list = this.byKey.get(b.routingKey);
    if (list) list.push(b);
    else this.byKey.set(b.routingKey, [b]);
  }

  protected removeRoute(b: ExchangeBinding): void {
    const list = this.byKey.get(b.routingKey);
    if (!list) return;
    const i = list.indexOf(b);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.byKey.delete(b.routingKey);
  }

  route(routingKey: string, _properties: MessageProperties, out: Destination[]): void {
    const list = this.byKey.get(routingKey);
    if (list) for (let i = 0; i < list.length; i++) out.push(list[i]!.destination);
  }
}
