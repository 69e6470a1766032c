/**
 * Exchanges: declare (with RabbitMQ's redeclare equivalence and its permission rules for an
 * alternate exchange), delete, and the lookup that authorises a publish.
 */
import { fieldTypeName } from "../values/field-value.js";
import { BrokerError, notFound } from "../../errors/broker-error.js";
import { actorOf, type ClientContext } from "../client-context.js";
import { announce } from "../events/announce.js";
import { exchangeEventProps } from "../events/topology-event-props.js";
import { exchangeDefinition } from "../definition-records.js";
import { assertExchangeEquivalent } from "../equivalence.js";
import type { Exchange, ExchangeSpec } from "../exchange/exchange.js";
import { DelayedMessageExchange } from "../exchange/delayed-message-exchange.js";
import { createExchange, EXCHANGE_TYPES } from "../exchange/exchange-types.js";
import { checkNotReserved } from "../names.js";
import type { VHost } from "../vhost.js";
import type { MirroredRecord } from "../topology-mirror.js";
import { definitionKey, type BrokerState } from "./broker-state.js";
import { attachDelayedMessages } from "./delayed-delivery.js";
import { policyOf } from "./policy-operations.js";
import { removeExchange } from "./topology-removal.js";

/** exchange.declare / PUT /api/exchanges. Returns true when the exchange was created. */
export function declareExchange(b: BrokerState, ctx: ClientContext, vhostName: string, spec: ExchangeSpec, passive: boolean): boolean {
  const v = b.vhost(vhostName);
  if (passive) {
    ctx.permissions.check(vhostName, "read", "exchange", spec.name);
    if (!v.exchanges.has(spec.name)) throw notFound("exchange", spec.name, vhostName);
    return false;
  }
  const type = EXCHANGE_TYPES.get(spec.type);
  if (!type) throw new BrokerError("commandInvalid", `invalid exchange type '${spec.type}'`);
  if (spec.name === "") throw defaultExchangeRefused();
  ctx.permissions.check(vhostName, "configure", "exchange", spec.name);
  const existing = v.exchanges.get(spec.name);
  if (existing) {
    assertExchangeEquivalent(existing, spec);
    return false;
  }
  checkNotReserved("exchange", spec.name);
  type.validate?.(spec);
  const ae = spec.arguments["alternate-exchange"];
  if (ae !== undefined) {
    if (typeof ae !== "string") {
      throw new BrokerError("preconditionFailed", `invalid type '${fieldTypeName(ae)}' for arg 'alternate-exchange' in exchange '${spec.name}' in vhost '${vhostName}'`);
    }
    // RabbitMQ: declaring with an alternate exchange needs read on the exchange and write on the AE.
    ctx.permissions.check(vhostName, "read", "exchange", spec.name);
    ctx.permissions.check(vhostName, "write", "exchange", ae);
  }
  const x = createExchange(vhostName, spec)!;
  v.addExchange(x);
  if (x instanceof DelayedMessageExchange) attachDelayedMessages(b, v, x);
  x.applyPolicy(policyOf(b, x).definition);
  if (x.durable) b.definitions.put("exchanges", definitionKey(vhostName, x.name), exchangeDefinition(x));
  b.mirror?.put("exchanges", exchangeDefinition(x) as unknown as MirroredRecord);
  if (b.events.detailWanted) announce(b, actorOf(ctx), "exchange.created", exchangeEventProps(x));
  return true;
}

/** exchange.delete. `mustExist` makes a missing exchange an error (HTTP); AMQP deletes idempotently. */
export function deleteExchange(b: BrokerState, ctx: ClientContext, vhostName: string, name: string, ifUnused: boolean, mustExist: boolean): void {
  const v = b.vhost(vhostName);
  if (name === "") throw defaultExchangeRefused();
  ctx.permissions.check(vhostName, "configure", "exchange", name);
  const x = v.exchanges.get(name);
  if (!x) {
    if (mustExist) throw notFound("exchange", name, vhostName);
    return;
  }
  if (name.startsWith("amq.")) {
    throw new BrokerError("accessRefused", `deletion of system exchange '${name}' in vhost '${vhostName}' not allowed`);
  }
  if (ifUnused && (x.bindings.size > 0 || x.boundFrom.size > 0)) {
    throw new BrokerError("preconditionFailed", `exchange '${name}' in vhost '${vhostName}' in use`);
  }
  removeExchange(b, v, x, actorOf(ctx));
}

/** Looks up an exchange for basic.publish: write permission, existence, not internal, topic authorisation. */
export function exchangeForPublish(ctx: ClientContext, v: VHost, name: string, routingKey: string): Exchange {
  ctx.permissions.check(v.name, "write", "exchange", name);
  const x = v.exchanges.get(name);
  if (!x) throw notFound("exchange", name, v.name);
  if (x.internal) throw new BrokerError("accessRefused", `cannot publish to internal exchange '${name}' in vhost '${v.name}'`);
  if (x.type === "topic") ctx.permissions.checkTopic(v.name, name, "write", routingKey);
  return x;
}

/** The default exchange takes no declare, delete or explicit binding (AMQP 0-9-1). */
export function defaultExchangeRefused(): BrokerError {
  return new BrokerError("accessRefused", "operation not permitted on the default exchange");
}
