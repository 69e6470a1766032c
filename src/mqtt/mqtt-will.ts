/**
 * The last will: a message the broker publishes for a client whose connection ends without a
 * DISCONNECT (or, MQTT 5, with DISCONNECT reason 0x04), or that another connection took over.
 * Published with the client's own permissions at that moment; a refusal is logged, never thrown.
 */
import type { IConnectPacket } from "mqtt-packet";
import type { ClientContext, VHost } from "../broker/index.js";
import { messageFromPublish, payloadOf } from "./mqtt-message.js";
import type { MqttNode } from "./mqtt-node.js";
import { mqttToAmqp } from "./mqtt-topic.js";

export type Will = NonNullable<IConnectPacket["will"]>;

export function publishWill(node: MqttNode, ctx: ClientContext, vhost: VHost, will: Will, clientId: string): void {
  const broker = node.broker;
  const key = mqttToAmqp(will.topic);
  try {
    const x = broker.exchangeForPublish(ctx, vhost, node.settings.exchange, key);
    const qos = will.qos === 0 || will.qos === undefined ? 0 : 1;
    const now = Date.now();
    const payload = payloadOf(will);
    const message = messageFromPublish(qos, will.properties, payload, x.name, key, now);
    if (will.retain) node.retained.retain(vhost.name, { topic: will.topic, qos, payload, properties: message.properties, publishedAt: now });
    broker.publish(vhost, x, message, []);
  } catch (err) {
    node.log.warn("MQTT will not published", { clientId, topic: will.topic, reason: err instanceof Error ? err.message : String(err) });
  }
}
