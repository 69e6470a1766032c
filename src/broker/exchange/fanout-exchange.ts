/** Fanout exchange: every bound destination gets every message; keys and headers are ignored. */
import type { MessageProperties } from "../values/message-properties.js";
import { Exchange, type Destination, type ExchangeBinding } from "./exchange.js";

export class FanoutExchange extends Exchange {
  readonly type = "fanout";
  private destinations: Destination[] = [];

  protected addRoute(b: ExchangeBinding): void {
    this.destinations.push(b.destination);
  }

  protected removeRoute(b: ExchangeBinding): void {
    const i = this.destinations.indexOf(b.destination);
    if (i >= 0) this.destinations.splice(i, 1);
  }

  route(_routingKey: string, _properties: MessageProperties, out: Destination[]): void {
    const d = this.destinations;
    for (let i = 0; i < d.length; i++) out.push(d[i]!);
  }
}
