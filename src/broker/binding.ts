/**
 * A binding: source exchange → destination (queue or exchange), with a routing key and
 * arguments. Identity is (source, destination, routing key, arguments), so the same key with
 * other arguments is another binding, as in RabbitMQ.
 *
 * Exchanges keep the bindings that leave them and queues and exchanges the ones that reach
 * them, so this module sits below both: it knows a binding's ends only as BindingEnd, and
 * Binding is generic in them. exchange/exchange.ts names the full form, Binding<Exchange,
 * Destination>, as ExchangeBinding; the vhost and the broker work with that. Readers that need
 * only names (listings, definition records) take the plain Binding.
 */
import type { FieldTable } from "./values/field-value.js";
import { canonicalJson } from "./canonical-json.js";

/** What a binding knows of either end; Exchange and Queue have these fields. */
export interface BindingEnd {
  readonly kind: "queue" | "exchange";
  readonly name: string;
  readonly vhost: string;
  readonly durable: boolean;
}

export class Binding<S extends BindingEnd = BindingEnd, D extends BindingEnd = BindingEnd> {
  /** Unique within the source exchange. */
  readonly key: string;

  constructor(
    readonly source: S,
    readonly destination: D,
    readonly routingKey: string,
    readonly args: FieldTable,
  ) {
    this.key = Binding.keyOf(destination, routingKey, args);
  }

  static keyOf(destination: BindingEnd, routingKey: string, args: FieldTable): string {
    return `${destination.kind}\u0000${destination.name}\u0000${routingKey}\u0000${canonicalJson(args)}`;
  }

  get destinationType(): "queue" | "exchange" {
    return this.destination.kind;
  }
}
