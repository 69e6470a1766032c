/**
 * The exchange contract. An exchange type is a small class that keeps its own routing
 * structure up to date (addRoute/removeRoute) and answers route() for one message; everything
 * else (arguments, bindings bookkeeping, auto-delete, alternate exchange) is shared here.
 *
 * route() pushes candidate destinations into `out`; duplicates are allowed (the vhost removes
 * them with an epoch stamp), so types never allocate a Set per message.
 */
import type { FieldTable } from "../values/field-value.js";
import type { Binding } from "../binding.js";
import type { Queue } from "../queue/queue.js";

/** Where a binding leads: a queue, or another exchange (exchange-to-exchange binding). */
export type Destination = Queue | Exchange;

/** A binding with both ends fully typed: what the vhost attaches and exchanges route by. */
export type ExchangeBinding = Binding<Exchange, Destination>;

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
  readonly bindings = new Map<string, ExchangeBinding>();
  /** Bindings where this exchange is the destination (exchange-to-exchange). */
  readonly boundFrom = new Set<ExchangeBinding>();
  /** Routing epoch stamp: equal to the vhost's current epoch once visited for this message. */
  routeEpoch = 0;
  readonly name: string;
  readonly durable: boolean;
  readonly autoDelete: boolean;
  readonly internal: boolean;
  readonly arguments: FieldTable;
  /**
   * Where a message goes when this exchange routes it nowhere: the alternate-exchange argument,
   * else the policy's (RabbitMQ: the argument wins); null = dropped (or returned). Resolved when
   * the exchange is created and whenever a policy changes, so routing reads one field.
   */
  alternateExchange: string | null;
  /** Live counters for the management API. */
  readonly stats = { publishIn: 0, publishOut: 0 };
  /** Told after a binding from this exchange is added or removed (amq.rabbitmq.event watches its own); null for others. */
  bindingsWatcher: (() => void) | null = null;

  constructor(readonly vhost: string, spec: Omit<ExchangeSpec, "type">) {
    this.name = spec.name;
    this.durable = spec.durable;
    this.autoDelete = spec.autoDelete;
    this.internal = spec.internal;
    this.arguments = spec.arguments;
    this.alternateExchange = alternateOf(spec.arguments, {});
  }

  abstract readonly type: string;
  protected abstract addRoute(binding: ExchangeBinding): void;
  protected abstract removeRoute(binding: ExchangeBinding): void;
  abstract route(routingKey: string, headers: FieldTable | undefined, out: Destination[]): void;

  /** A policy took effect or changed: `definition` is the merged policy definition (or {}). */
  applyPolicy(definition: Readonly<Record<string, unknown>>): void {
    this.alternateExchange = alternateOf(this.arguments, definition);
  }

  /** Adds the binding; false when an identical binding exists (bind is idempotent). */
  bind(binding: ExchangeBinding): boolean {
    if (this.bindings.has(binding.key)) return false;
    this.bindings.set(binding.key, binding);
    this.addRoute(binding);
    return true;
  }

  unbind(binding: ExchangeBinding): boolean {
    if (!this.bindings.delete(binding.key)) return false;
    this.removeRoute(binding);
    return true;
  }
}

function alternateOf(args: FieldTable, policy: Readonly<Record<string, unknown>>): string | null {
  const arg = args["alternate-exchange"];
  if (typeof arg === "string") return arg;
  const fromPolicy = policy["alternate-exchange"];
  return typeof fromPolicy === "string" ? fromPolicy : null;
}
