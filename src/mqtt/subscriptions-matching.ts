/**
 * Which of a session's subscriptions a delivered routing key matched, for the per-message rules
 * of mqtt-delivery-ports.ts's RetainFlagRule (3.1.1's highest QoS of overlapping subscriptions,
 * MQTT 5's Subscription Identifiers, `$` topics never through a filter starting with a wildcard
 * [MQTT-4.7.2-1]). Pure functions of the subscriptions; asked only while the session needs them.
 */
import type { QoS } from "mqtt-packet";
import { bindingKeyMatches } from "./mqtt-topic.js";
import type { Subscription } from "./subscription-options.js";

const HASH = 0x23;
const STAR = 0x2a;
const DOLLAR = 0x24;

/** RetainFlagRule.matchedHigher: a subscription of a higher QoS than `qos` matches the key too. */
export function matchedHigher(subscriptions: Iterable<Subscription>, qos: QoS, routingKey: string): boolean {
  const dollar = routingKey.charCodeAt(0) === DOLLAR;
  for (const sub of subscriptions) {
    if (sub.qos <= qos) continue;
    // A `$` topic does not come through a filter starting with a wildcard [MQTT-4.7.2-1].
    const first = sub.key.charCodeAt(0);
    if (dollar && (first === HASH || first === STAR)) continue;
    if (bindingKeyMatches(sub.key, routingKey)) return true;
  }
  return false;
}

/** RetainFlagRule.identifiersFor: the Subscription Identifiers of the `qos` subscriptions matching the key. */
export function identifiersFor(subscriptions: Iterable<Subscription>, qos: QoS, routingKey: string): number[] | null {
  let ids: number[] | null = null;
  const dollar = routingKey.charCodeAt(0) === DOLLAR;
  for (const sub of subscriptions) {
    if (sub.id === 0 || sub.qos !== qos) continue;
    const first = sub.key.charCodeAt(0);
    if (dollar && (first === HASH || first === STAR)) continue;
    if (bindingKeyMatches(sub.key, routingKey)) (ids ??= []).push(sub.id);
  }
  return ids;
}

/** RetainFlagRule.admitsDollarTopic: a `qos` subscription not starting with a wildcard matches the key. */
export function admitsDollarTopic(subscriptions: Iterable<Subscription>, qos: QoS, routingKey: string): boolean {
  for (const sub of subscriptions) {
    const first = sub.key.charCodeAt(0);
    if (sub.qos === qos && first !== HASH && first !== STAR && bindingKeyMatches(sub.key, routingKey)) return true;
  }
  return false;
}
