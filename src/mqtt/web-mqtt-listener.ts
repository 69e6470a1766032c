/**
 * MQTT over WebSocket (RabbitMQ's rabbitmq_web_mqtt): an HTTP listener (web_mqtt.tcp.port, 15675),
 * or with TLS options an HTTPS one (web_mqtt.ssl.port, the node's certificate), that upgrades
 * requests for /ws with the `mqtt` subprotocol; each WebSocket, seen as a byte stream, becomes an
 * MqttConnection like a TCP socket (a verified client certificate names it as over MQTTS). Other
 * paths are refused with 404. A side listener like the TCP one.
 */
import { createServer, type IncomingMessage, type RequestListener } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { TlsOptions } from "node:tls";
import { createWebSocketStream, WebSocketServer, type WebSocket } from "ws";
import { MqttConnection } from "./mqtt-connection.js";
import { mqttPeerOf, type MqttListener } from "./mqtt-listener.js";
import type { MqttNode } from "./mqtt-node.js";
import { listenOn } from "../listeners/listen-on.js";

export const WEB_MQTT_PATH = "/ws";

export async function listenWebMqtt(node: MqttNode, port: number, bind: string, tls: TlsOptions | null = null): Promise<MqttListener> {
  const connections = new Set<MqttConnection>();
  const notFound: RequestListener = (_req, res) => {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("Not found: MQTT over WebSocket is served at /ws\n");
  };
  const http = tls === null ? createServer(notFound) : createHttpsServer({ handshakeTimeout: node.settings.connectTimeout * 1000, ...tls }, notFound);
  const wss = new WebSocketServer({
    server: http,
    path: WEB_MQTT_PATH,
    // Browsers offer "mqtt" (MQTT 3.1.1 and 5) or the older "mqttv3.1"; the reply names one of them.
    handleProtocols: (offered) => (offered.has("mqtt") ? "mqtt" : offered.has("mqttv3.1") ? "mqttv3.1" : false),
  });
  // ws re-emits the HTTP server's errors (a port in use): the listen below reports them, and an
  // unheard "error" would crash the process.
  wss.on("error", (err) => node.log.debug("Web MQTT server error", { err: err.message }));
  wss.on("connection", (ws: WebSocket, req: IncomingMessage) => {
    const socket = req.socket;
    const stream = createWebSocketStream(ws);
    const c = new MqttConnection(node, stream, mqttPeerOf(node, socket, tls !== null, "Web MQTT"));
    connections.add(c);
    ws.on("close", () => connections.delete(c));
  });
  const bound = await listenOn(http, port, bind);
  http.on("error", (err) => node.log.error("Web MQTT listener error", { err }));
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.shutdown();
        wss.close();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
