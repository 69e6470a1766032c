/**
 * The last will: a message the broker publishes for a client whose connection ends without a
 * DISCONNECT (or, MQTT 5, with a DISCONNECT reason other than 0x00), or that another connection
 * took over. Published with the client's own permissions at that moment; a refusal is logged,
 * never thrown.
 *
 * MQTT 5 will delay (§3.1.3.2.2), as RabbitMQ does it: a will with a Will Delay Interval, of a
 * session that outlives its connection, is parked in a durable queue `mqtt-will-<client id>`
 * whose messages dead-letter to the MQTT exchange with the will topic as routing key. The parked
 * message's TTL is the delay, or the session expiry when that comes first; the queue expires a
 * second after the session, so the will always dead-letters before the queue goes. Parked wills
 * survive a restart like any stored message. A CONNECT with the client id deletes the queue: the
 * session resumed in time, and the will is not sent.
 */
import type { IConnectPacket, QoS } from "mqtt-packet";
import { type ClientContext, createMessage, PUBLISH_REFUSED, PUBLISH_UNROUTED, type VHost } from "../broker/index.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import { messageFromPublish, payloadOf } from "./mqtt-message.js";
import type { MqttNode } from "./mqtt-node.js";
import { mqttToAmqp } from "./mqtt-topic.js";

export type Will = NonNullable<IConnectPacket["will"]>;

/** RabbitMQ's margin between the parked will's TTL and its queue's expiry. */
const QUEUE_EXPIRY_MARGIN_MS = 1_000;

const WILL_QUEUE_PREFIX = "mqtt-will-";

export function willQueueName(clientId: string): string {
  return WILL_QUEUE_PREFIX + clientId;
}

/** The will's delay in seconds (0: none, MQTT 3.1.1, or not asked for). */
export function willDelayOf(will: Will): number {
  return will.properties?.willDelayInterval ?? 0;
}

/**
 * Ends a connection's will: parked when it has a delay and the session (`sessionExpiry` seconds)
 * outlives the connection, published now otherwise.
 */
export function sendWill(node: MqttNode, ctx: ClientContext, vhost: VHost, will: Will, clientId: string, sessionExpiry: number): void {
  const delay = willDelayOf(will);
  try {
    if (delay > 0 && sessionExpiry > 0) parkWill(node, ctx, vhost, will, clientId, Math.min(delay, sessionExpiry) * 1000, sessionExpiry * 1000);
    else publishWill(node, ctx, vhost, will);
  } catch (err) {
    node.log.warn("MQTT will not published", { clientId, topic: will.topic, reason: err instanceof Error ? err.message : String(err) });
  }
}

function publishWill(node: MqttNode, ctx: ClientContext, vhost: VHost, will: Will): void {
  const broker = node.broker;
  const key = mqttToAmqp(will.topic);
  const x = broker.exchangeForPublish(ctx, vhost, node.settings.exchange, key);
  const qos: QoS = will.qos ?? 0;
  const now = Date.now();
  const payload = payloadOf(will);
  const message = messageFromPublish(qos, will.properties, payload, x.name, key, now);
  if (will.retain) node.retained.retain(vhost.name, { topic: will.topic, qos, payload, properties: message.properties, publishedAt: now });
  broker.publish(vhost, x, message, []);
}

/**
 * Parks the will (RabbitMQ's checks: configure on the will queue, with read on it and write on
 * the MQTT exchange for its dead-lettering, write on the default exchange that puts the will in
 * it, and topic write on the will topic).
 */
function parkWill(node: MqttNode, ctx: ClientContext, vhost: VHost, will: Will, clientId: string, ttlMs: number, sessionMs: number): void {
  const broker = node.broker;
  const exchange = node.settings.exchange;
  const key = mqttToAmqp(will.topic);
  const name = willQueueName(clientId);
  const args = { "x-expires": sessionMs + QUEUE_EXPIRY_MARGIN_MS, "x-dead-letter-exchange": exchange, "x-dead-letter-routing-key": key };
  broker.declareQueue(ctx, vhost.name, { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: args }, false);
  ctx.permissions.checkTopic(vhost.name, exchange, "write", key);
  const defaultExchange = broker.exchangeForPublish(ctx, vhost, "", name);
  const qos: QoS = will.qos ?? 0;
  const now = Date.now();
  const published = messageFromPublish(qos, will.properties, payloadOf(will), "", name, now);
  // The TTL is the delay. The will's own message expiry would shorten it, so it is not kept: once
  // dead-lettered, the will has no expiry (RabbitMQ carries it over; see COMPATIBILITY).
  const properties: MessageProperties = { ...published.properties, expiration: String(ttlMs) };
  const outcome = broker.publish(vhost, defaultExchange, createMessage("", name, properties, null, published.body, now), []);
  if (outcome === PUBLISH_UNROUTED || outcome === PUBLISH_REFUSED) node.log.warn("MQTT will not parked", { clientId, queue: name });
  else node.log.debug("MQTT will parked", { clientId, topic: will.topic, delayMs: ttlMs });
}

/**
 * At start: the wills parked before a restart are timed again. Recovered messages stay on disk
 * until their queue is dispatched, so a will queue, which never has a consumer, would otherwise
 * not see its TTL pass; dispatching it reads the will back in and arms its expiry.
 */
export function timeParkedWills(vhosts: Iterable<VHost>): void {
  for (const v of vhosts) {
    for (const [name, q] of v.queues) if (name.startsWith(WILL_QUEUE_PREFIX)) q.dispatch();
  }
}

/** A CONNECT with this client id: a parked will is not sent (its session resumed, or was replaced). */
export function cancelParkedWill(node: MqttNode, ctx: ClientContext, vhost: VHost, clientId: string): void {
  const name = willQueueName(clientId);
  if (!vhost.queues.has(name)) return;
  node.broker.deleteQueue(ctx, vhost.name, name, { ifUnused: false, ifEmpty: false });
  node.log.debug("MQTT parked will cancelled", { clientId });
}
