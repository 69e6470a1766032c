/**
 * Bindings: queue.bind / exchange.bind and their unbinds, over AMQP and HTTP alike. Binding is
 * idempotent; unbinding a missing binding is not an error, a missing queue or exchange is.
 * Permissions as RabbitMQ checks them: write on the destination, read on the source, and topic
 * read on the routing key when the source is a topic exchange.
 */
import { BrokerError, notFound } from "../../errors/broker-error.js";
import { Binding } from "../binding.js";
import { actorOf, type ClientContext } from "../client-context.js";
import { announce } from "../events/announce.js";
import { bindingEventProps } from "../events/topology-event-props.js";
import { bindingDefinition } from "../definition-records.js";
import type { Destination, Exchange, ExchangeBinding } from "../exchange/exchange.js";
import { isValidMatchMode } from "../exchange/headers-exchange.js";
import { fieldTypeName, type FieldTable, type FieldValue } from "../values/field-value.js";
import type { VHost } from "../vhost.js";
import type { MirroredRecord } from "../topology-mirror.js";
import type { BrokerState } from "./broker-state.js";
import { defaultExchangeRefused } from "./exchange-operations.js";
import { autoDeleteIfUnused, bindingKey } from "./topology-removal.js";

/** The two ends named by a bind or unbind, and which kind the destination is. */
export interface BindingRequest {
  readonly vhost: string;
  readonly source: string;
  readonly destinationKind: "queue" | "exchange";
  readonly destination: string;
  readonly routingKey: string;
  readonly args: FieldTable;
}

/** Binds; returns true when the binding was created (false: it existed). */
export function bind(b: BrokerState, ctx: ClientContext, r: BindingRequest): boolean {
  const { v, source, destination } = bindingEnds(b, ctx, r);
  const binding = new Binding(source, destination, r.routingKey, r.args);
  if (source.type === "headers" && !isValidMatchMode(r.args["x-match"])) throw invalidMatchMode(r.args["x-match"]!);
  source.validateBinding(r.routingKey, r.args);
  if (!v.attach(binding)) return false;
  if (isDurableBinding(binding)) b.definitions.put("bindings", bindingKey(v.name, binding), bindingDefinition(binding));
  b.mirror?.put("bindings", bindingDefinition(binding) as unknown as MirroredRecord);
  if (b.events.detailWanted) announce(b, actorOf(ctx), "binding.created", bindingEventProps(v.name, binding));
  return true;
}

/** Unbinds; returns true when there was such a binding. An auto-delete source left unbound goes. */
export function unbind(b: BrokerState, ctx: ClientContext, r: BindingRequest): boolean {
  const { v, source, destination } = bindingEnds(b, ctx, r);
  const binding = v.findBinding(source, destination, r.routingKey, r.args);
  if (!binding) return false;
  v.detach(binding);
  b.definitions.delete("bindings", bindingKey(v.name, binding));
  b.mirror?.delete("bindings", bindingDefinition(binding) as unknown as MirroredRecord);
  const actor = actorOf(ctx);
  if (b.events.detailWanted) announce(b, actor, "binding.deleted", bindingEventProps(v.name, binding));
  autoDeleteIfUnused(b, v, source, actor);
  return true;
}

/** Both ends of a (un)binding, with the permission checks. */
function bindingEnds(b: BrokerState, ctx: ClientContext, r: BindingRequest): { v: VHost; source: Exchange; destination: Destination } {
  const v = b.vhost(r.vhost);
  if (r.source === "" || (r.destinationKind === "exchange" && r.destination === "")) throw defaultExchangeRefused();
  ctx.permissions.check(r.vhost, "write", r.destinationKind, r.destination);
  ctx.permissions.check(r.vhost, "read", "exchange", r.source);
  const x = v.exchanges.get(r.source);
  if (!x) throw notFound("exchange", r.source, r.vhost);
  const d: Destination | undefined = r.destinationKind === "queue" ? v.queues.get(r.destination) : v.exchanges.get(r.destination);
  if (!d) throw notFound(r.destinationKind, r.destination, r.vhost);
  if (d.kind === "queue") d.checkExclusiveAccess(ctx.owner);
  if (x.type === "topic") ctx.permissions.checkTopic(r.vhost, r.source, "read", r.routingKey);
  return { v, source: x, destination: d };
}

/** Stored with the definitions: both ends durable, and not into an exclusive queue. */
function isDurableBinding(binding: ExchangeBinding): boolean {
  const d = binding.destination;
  return binding.source.durable && d.durable && !(d.kind === "queue" && d.exclusiveOwner !== null);
}

/** RabbitMQ 3.10's refusal of an x-match that is not a string, or not one of the four modes (Erlang's <<"…">> for the text). */
function invalidMatchMode(v: FieldValue): BrokerError {
  if (typeof v !== "string") return new BrokerError("preconditionFailed", `Invalid x-match field type ${fieldTypeName(v)} (value ${String(v)}); expected longstr`);
  return new BrokerError("preconditionFailed", `Invalid x-match field value ${v === "" ? "<<>>" : `<<"${v}">>`}; expected all, any, all-with-x, or any-with-x`);
}
