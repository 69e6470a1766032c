/**
 * The node record's `enabled_plugins`: the RabbitMQ 3.10 plugins whose function this node is
 * serving now. Coney has no plugins to enable — every one of these is built in — but operators and
 * tools read the list to learn what a node offers (is MQTT on? the stream API?), so it names each
 * plugin whose counterpart is running: a protocol's plugin while its listener is configured, the
 * management, shovel and federation plugins whose routes this API serves, the exchange-type
 * plugins whose types are registered, and the event exchange and OAuth 2.0 when configured.
 * Read per request: listeners are added and retried while the node runs.
 */
import { EXCHANGE_TYPES } from "../broker/index.js";
import type { RouteContext } from "./route-table.js";

/** Listener protocol (RabbitMQ's names, src/listeners) → the plugins that serve it. */
const BY_LISTENER: Readonly<Record<string, readonly string[]>> = {
  "http/prometheus": ["rabbitmq_prometheus"],
  "https/prometheus": ["rabbitmq_prometheus"],
  mqtt: ["rabbitmq_mqtt"],
  "mqtt/ssl": ["rabbitmq_mqtt"],
  "http/web-mqtt": ["rabbitmq_web_mqtt"],
  "https/web-mqtt": ["rabbitmq_web_mqtt"],
  stomp: ["rabbitmq_stomp"],
  "stomp/ssl": ["rabbitmq_stomp"],
  "http/web-stomp": ["rabbitmq_web_stomp"],
  "https/web-stomp": ["rabbitmq_web_stomp"],
  // The stream plugin's management pages come with its listener (/api/stream/*).
  stream: ["rabbitmq_stream", "rabbitmq_stream_management"],
  "stream/ssl": ["rabbitmq_stream", "rabbitmq_stream_management"],
};

/** Exchange type → the plugin a RabbitMQ node needs for it. */
const BY_EXCHANGE_TYPE: Readonly<Record<string, string>> = {
  "x-consistent-hash": "rabbitmq_consistent_hash_exchange",
  "x-delayed-message": "rabbitmq_delayed_message_exchange",
};

export function enabledPlugins(ctx: RouteContext): string[] {
  // This API is the management plugin; AMQP 1.0 is negotiated on the AMQP port (src/amqp1);
  // shovels are run by every node (src/shovel) and their pages served by this API.
  const on = new Set(["rabbitmq_management", "rabbitmq_amqp1_0", "rabbitmq_shovel", "rabbitmq_shovel_management"]);
  for (const l of ctx.listeners()) for (const p of BY_LISTENER[l.protocol] ?? []) on.add(p);
  for (const t of EXCHANGE_TYPES.keys()) if (BY_EXCHANGE_TYPE[t] !== undefined) on.add(BY_EXCHANGE_TYPE[t]);
  if (ctx.federation !== null) {
    on.add("rabbitmq_federation");
    on.add("rabbitmq_federation_management");
  }
  if (ctx.config.eventExchange) on.add("rabbitmq_event_exchange");
  if (ctx.config.oauthResourceServerId !== null) on.add("rabbitmq_auth_backend_oauth2");
  return [...on].sort();
}
