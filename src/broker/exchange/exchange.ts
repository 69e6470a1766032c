/**
 * The exchange contract. An exchange type is a small class that keeps its own routing
 * structure up to date (addRoute/removeRoute) and answers route() for one message; everything
 * else (arguments, bindings bookkeeping, auto-delete) is shared here.
 *
 * route() pushes candidate destinations into `out`; duplicates are allowed (the vhost removes
 * them with an epoch stamp), so types never allocate a Set per message.
 */
import type { FieldTable } from "../values/field-value.js";
import type { Binding, Destination } from "../binding.js";

export interface ExchangeSpec {
  readonly name: string;
  readonly type: string;
  readonly durable: boolean;
  readonly autoDelete: boolean;
  readonly internal: boolean;
  readonly arguments: FieldTable;
}

export abstract class Exchange implements ExchangeSpec {
  readonly kind = "exchange" as const;
  /** Bindings where this exchange is the source, by Binding.key. */
  readonly bindings = new Map<string, Binding>();
  /** Bindings where this exchange is the destination (exchange-to-exchange). */
  readonly boundFrom = new Set<Binding>();
  /** Routing epoch stamp: equal to the vhost's current epoch once visited for this message. */
  routeEpoch = 0;
  readonly name: string;
  readonly durable: boolean;
  readonly autoDelete: boolean;
  readonly internal: boolean;
  readonly arguments: FieldTable;
  /** Live counters for the management API. */
  readonly stats = { publishIn: 0, publishOut: 0 };

  constructor(readonly vhost: string, spec: Omit<ExchangeSpec, "type">) {
    this.name = spec.name;
    this.durable = spec.durable;
    this.autoDelete = spec.autoDelete;
    this.internal = spec.internal;
    this.arguments = spec.arguments;
  }

  abstract readonly type: string;
  protected abstract addRoute(binding: Binding): void;
  protected abstract removeRoute(binding: Binding): void;
  abstract route(routingKey: string, headers: FieldTable | undefined, out: Destination[]): void;

  /** Adds the binding; false when an identical binding exists (bind is idempotent). */
  bind(binding: Binding): boolean {
    if (this.bindings.has(binding.key)) return false;
    this.bindings.set(binding.key, binding);
    this.addRoute(binding);
    return true;
  }

  unbind(binding: Binding): boolean {
    if (!this.bindings.delete(binding.key)) return false;
    this.removeRoute(binding);
    return true;
  }
}
