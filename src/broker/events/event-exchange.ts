/**
 * amq.rabbitmq.event (RabbitMQ's rabbitmq_event_exchange): a durable, internal topic exchange in
 * one vhost (the default vhost unless configured) to which every announced event is published
 * with RabbitMQ's event name as routing key, its properties as headers (plus
 * user_who_performed_action and timestamp_in_ms), an empty body, delivery mode 2 and a timestamp
 * in seconds. Events of every vhost go to this one exchange, as in RabbitMQ.
 *
 * Cost: while nothing is bound to the exchange (the exchange tells it, bindingsWatcher), no event
 * but configuration changes is even built (it tells DomainEvents it does not want them), and a
 * configuration change costs a check here. Refused changes (no name) are not published.
 */
import type { Broker } from "../broker.js";
import { createExchange } from "../exchange/exchange-types.js";
import type { Exchange } from "../exchange/exchange.js";
import { createMessage } from "../message.js";
import type { Queue } from "../queue/queue-type.js";
import type { FieldTable, FieldValue } from "../values/field-value.js";
import { SYSTEM_ACTOR } from "./actor.js";
import type { DomainEvent } from "./domain-event.js";

export const EVENT_EXCHANGE = "amq.rabbitmq.event";

const EMPTY_BODY = Buffer.alloc(0);

export class EventExchange {
  private bound = false;
  private readonly scratch: Queue[] = [];
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly broker: Broker, readonly vhost: string) {}

  /** Declares the exchange (and its vhost, when missing, as RabbitMQ does) and starts publishing. */
  start(): void {
    if (!this.broker.vhosts.has(this.vhost)) this.broker.putVhost(this.vhost, {}, SYSTEM_ACTOR);
    this.declare();
    this.unsubscribe = this.broker.events.subscribe((e) => this.onEvent(e));
    this.updateBound();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.broker.events.wantDetail(this, false);
  }

  private exchange(): Exchange | undefined {
    return this.broker.vhosts.get(this.vhost)?.exchanges.get(EVENT_EXCHANGE);
  }

  /** A system exchange, like amq.rabbitmq.trace: declared at every start, never stored with the definitions. */
  private declare(): void {
    const v = this.broker.vhosts.get(this.vhost);
    if (!v || v.exchanges.has(EVENT_EXCHANGE)) return;
    const x = createExchange(this.vhost, { name: EVENT_EXCHANGE, type: "topic", durable: true, autoDelete: false, internal: true, arguments: {} })!;
    x.bindingsWatcher = () => this.updateBound();
    v.addExchange(x);
  }

  /** Events beyond configuration changes are wanted only while something is bound (RabbitMQ's has_any_bindings). */
  private updateBound(): void {
    const bound = (this.exchange()?.bindings.size ?? 0) > 0;
    if (bound === this.bound) return;
    this.bound = bound;
    this.broker.events.wantDetail(this, bound);
  }

  private onEvent(e: DomainEvent): void {
    if (e.name === null) return;
    // The vhost came back after a deletion: so does its exchange (unbound).
    if (e.name === "vhost.created" && e.props["name"] === this.vhost) this.declare();
    if (e.name === "vhost.deleted" && e.props["name"] === this.vhost) this.updateBound();
    if (!this.bound) return;
    const v = this.broker.vhosts.get(this.vhost);
    const x = v?.exchanges.get(EVENT_EXCHANGE);
    if (!v || !x) return;
    const headers = tableOf(e.props);
    headers["user_who_performed_action"] = e.actor.user;
    headers["timestamp_in_ms"] = e.at;
    const message = createMessage(EVENT_EXCHANGE, e.name, { deliveryMode: 2, headers, timestamp: Math.floor(e.at / 1000) }, null, EMPTY_BODY, e.at);
    this.broker.publish(v, x, message, this.scratch);
  }
}

/** Event properties as AMQP headers: nested records become tables, lists arrays; absent values are left out. */
export function tableOf(props: Readonly<Record<string, unknown>>): FieldTable {
  const t: FieldTable = {};
  for (const [k, v] of Object.entries(props)) {
    const f = fieldValueOf(v);
    if (f !== undefined) t[k] = f;
  }
  return t;
}

function fieldValueOf(v: unknown): FieldValue | undefined {
  if (v === undefined || typeof v === "function" || typeof v === "symbol") return undefined;
  if (v === null || typeof v === "boolean" || typeof v === "number" || typeof v === "string" || typeof v === "bigint" || Buffer.isBuffer(v) || v instanceof Date) return v;
  if (Array.isArray(v)) return v.map((i) => fieldValueOf(i) ?? null);
  if (typeof v === "object") return tableOf(v as Record<string, unknown>);
  return String(v);
}
