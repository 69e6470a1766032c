/**
 * A subscription's options (MQTT 5 §3.8.3.1) and how they are kept with the session: as RabbitMQ
 * does, an MQTT 5 subscription's binding carries them in its arguments,
 * `x-mqtt-subscription-opts` (qos, no-local, retain-as-published, retain-handling) and
 * `x-binding-key`, so a persistent session finds them again after a reconnect or a restart. MQTT
 * 3.1.1 subscriptions are bindings without arguments and have the default options; a session
 * resumed under the other protocol version has its bindings re-made in that version's form.
 * A Subscription Identifier (MQTT 5 §3.8.2.1.2) is kept in the same table as `id`.
 */
import type { ISubscription, QoS } from "mqtt-packet";
import { Decimal, type FieldTable } from "../broker/values/field-value.js";

export interface Subscription {
  /** The granted QoS, which is also the session queue it is bound to. */
  readonly qos: QoS;
  /** Not delivered messages this client id published (MQTT-3.8.3-3). */
  readonly noLocal: boolean;
  /** Deliveries keep the RETAIN flag they were published with (else RETAIN is 0). */
  readonly retainAsPublished: boolean;
  /** 0: retained messages on subscribe; 1: only when the subscription is new; 2: never. */
  readonly retainHandling: 0 | 1 | 2;
  /** The topic filter as an AMQP binding key. */
  readonly key: string;
  /** The binding's arguments: {} for MQTT 3.1.1, the options for MQTT 5. */
  readonly args: FieldTable;
  /** The Subscription Identifier (MQTT 5; 0: none), sent with every PUBLISH this subscription matches. */
  readonly id: number;
}

export const OPTIONS_ARG = "x-mqtt-subscription-opts";
const BINDING_KEY_ARG = "x-binding-key";

function make(qos: QoS, noLocal: boolean, retainAsPublished: boolean, retainHandling: 0 | 1 | 2, v5: boolean, key: string, id: number, extra: FieldTable | null): Subscription {
  const opts: FieldTable = { "no-local": noLocal, qos, "retain-as-published": retainAsPublished, "retain-handling": retainHandling };
  if (id > 0) opts["id"] = id;
  const args: FieldTable = v5 ? { [OPTIONS_ARG]: opts, [BINDING_KEY_ARG]: key } : {};
  if (extra !== null) Object.assign(args, extra);
  return { qos, noLocal, retainAsPublished, retainHandling, key, args, id };
}

/**
 * What a SUBSCRIBE asks for; `key` is the filter as an AMQP binding key, `id` the packet's
 * Subscription Identifier (0: none); `extra` binding arguments (a shared subscription's member).
 */
export function requestedSubscription(s: ISubscription, v5: boolean, key: string, id: number, extra: FieldTable | null = null): Subscription {
  const qos: QoS = s.qos;
  if (!v5) return make(qos, false, false, 0, false, key, 0, extra);
  const rh = s.rh === 1 || s.rh === 2 ? s.rh : 0;
  return make(qos, s.nl === true, s.rap === true, rh, true, key, id, extra);
}

/**
 * The subscription a session queue's binding stands for, read back when a session resumes.
 * `rebind` is true when the binding is in the other protocol version's form.
 */
export function storedSubscription(args: FieldTable, queueQos: QoS, v5: boolean, key: string): { readonly subscription: Subscription; readonly rebind: boolean } {
  const opts = optionsOf(args);
  const hasOptions = opts !== null && Object.keys(opts).length > 0;
  if (!v5) return { subscription: make(queueQos, false, false, 0, false, key, 0, null), rebind: hasOptions };
  if (!hasOptions) return { subscription: make(queueQos, false, false, 0, true, key, 0, null), rebind: true };
  const o = opts!;
  const rh = o["retain-handling"] === 1 || o["retain-handling"] === 2 ? o["retain-handling"] : 0;
  const id = typeof o["id"] === "number" && Number.isInteger(o["id"]) && o["id"] > 0 ? o["id"] : 0;
  // The binding's own arguments, so that unbinding finds it whatever else they hold.
  return { subscription: { ...make(queueQos, o["no-local"] === true, o["retain-as-published"] === true, rh, true, key, id, null), args }, rebind: false };
}

/** A binding's `x-mqtt-subscription-opts` table; null when it has none. */
export function optionsOf(args: FieldTable): FieldTable | null {
  const opts = args[OPTIONS_ARG];
  return typeof opts === "object" && opts !== null && !Array.isArray(opts) && !Buffer.isBuffer(opts) && !(opts instanceof Date) && !(opts instanceof Decimal) ? opts : null;
}

export function sameOptions(a: Subscription, b: Subscription): boolean {
  return a.qos === b.qos && a.id === b.id && a.noLocal === b.noLocal && a.retainAsPublished === b.retainAsPublished && a.retainHandling === b.retainHandling && (OPTIONS_ARG in a.args) === (OPTIONS_ARG in b.args);
}
