/**
 * The exchange contract. An exchange type is a small class that keeps its own routing
 * structure up to date (addRoute/removeRoute) and answers route() for one message; everything
 * else (arguments, bindings bookkeeping, auto-delete, alternate exchange) is shared here.
 *
 * route() pushes candidate destinations into `out`; duplicates are allowed (the vhost removes
 * them with an epoch stamp), so types never allocate a Set per message.
 */
import type { FieldTable } from "../values/field-value.js";
import type { MessageProperties } from "../values/message-properties.js";
import type { Binding } from "../binding.js";
import type { Queue } from "../queue/queue-type.js";
import type { Message } from "../message.js";

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

/** Holds messages for later routing (the x-delayed-message exchange: queue/delayed-messages.ts). */
export interface MessageHold {
  /** Takes the message when it must wait (an x-delay header above 0); false = route it now. */
  hold(message: Message): boolean;
  /** How many messages are held (messages_delayed in the API). */
  readonly count: number;
  /** The exchange is deleted: what it holds goes too. */
  dispose(): void;
  /** The broker stops: no more releases, and the store keeps what is held. */
  halt(): void;
  /** Releases wait (a worker of `coney --workers N` until its queues are served: released earlier, a message would reach a queue not yet in place) until `resume`. */
  pause(): void;
  resume(): void;
  /** The internal queue the held messages are stored in (read once halted: a data dir's takeover by the workers, src/workers/single-node-takeover.ts). */
  readonly heldIn: Queue;
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
  /**
   * Set on an x-delayed-message exchange only: Broker.publish offers it every message first.
   * Null everywhere else, so other exchanges pay one null check per message.
   */
  delayed: MessageHold | null = null;
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
  abstract route(routingKey: string, properties: MessageProperties, out: Destination[]): void;

  /**
   * Refuses a binding this type cannot take (RabbitMQ's validate_binding), before anything
   * changes; the consistent-hash exchange checks that the key is a weight. Default: any binding.
   */
  validateBinding(_routingKey: string, _args: FieldTable): void {}

  /** The exchange left its vhost (deleted, or its vhost was): release what the type holds (timers). */
  dispose(): void {}

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
