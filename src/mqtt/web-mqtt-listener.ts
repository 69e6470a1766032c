/**
 * MQTT over WebSocket (RabbitMQ's rabbitmq_web_mqtt): an HTTP listener (web_mqtt.tcp.port, 15675),
 * or with TLS options an HTTPS one (web_mqtt.ssl.port, the node's certificate), that upgrades
 * requests for /ws with the `mqtt` subprotocol (listeners/web-socket-listener.ts); each WebSocket,
 * seen as a byte stream, becomes an MqttConnection like a TCP socket (a verified client
 * certificate names it as over MQTTS). A side listener like the TCP one.
 */
import type { TlsOptions } from "node:tls";
import { createWebSocketStream } from "ws";
import { MqttConnection } from "./mqtt-connection.js";
import { mqttPeerOf, type MqttListener } from "./mqtt-listener.js";
import type { MqttNode } from "./mqtt-node.js";
import { listenWebSocket } from "../listeners/web-socket-listener.js";

export const WEB_MQTT_PATH = "/ws";

export function listenWebMqtt(node: MqttNode, port: number, bind: string, tls: TlsOptions | null = null): Promise<MqttListener> {
  return listenWebSocket<MqttConnection>(
    {
      name: "MQTT",
      path: WEB_MQTT_PATH,
      log: node.log,
      handshakeTimeoutMs: node.settings.connectTimeout * 1000,
      // Browsers offer "mqtt" (MQTT 3.1.1 and 5) or the older "mqttv3.1"; the reply names one of them.
      handleProtocols: (offered) => (offered.has("mqtt") ? "mqtt" : offered.has("mqttv3.1") ? "mqttv3.1" : false),
      accept: (ws, req) => new MqttConnection(node, createWebSocketStream(ws), mqttPeerOf(node, req.socket, tls !== null, "Web MQTT")),
    },
    port,
    bind,
    tls,
  );
}
