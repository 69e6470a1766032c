/**
 * A binding: source exchange → destination (queue or exchange), with a routing key and
 * arguments. Identity is (source, destination, routing key, arguments), so the same key with
 * other arguments is another binding, as in RabbitMQ.
 */
import type { FieldTable } from "./values/field-value.js";
import { canonicalJson } from "./canonical-json.js";
import type { Exchange } from "./exchange/exchange.js";
import type { Queue } from "./queue/queue.js";

export type Destination = Queue | Exchange;

export class Binding {
  /** Unique within the source exchange. */
  readonly key: string;

  constructor(
    readonly source: Exchange,
    readonly destination: Destination,
    readonly routingKey: string,
    readonly args: FieldTable,
  ) {
    this.key = Binding.keyOf(destination, routingKey, args);
  }

  static keyOf(destination: Destination, routingKey: string, args: FieldTable): string {
    return `${destination.kind}\u0000${destination.name}\u0000${routingKey}\u0000${canonicalJson(args)}`;
  }

  get destinationType(): "queue" | "exchange" {
    return this.destination.kind;
  }
}
