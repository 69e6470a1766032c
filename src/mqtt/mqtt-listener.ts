/**
 * The MQTT listener (RabbitMQ's mqtt.listeners.tcp.default, port 1883), or with TLS options the
 * MQTTS one (mqtt.listeners.ssl.default, 8883, the AMQPS certificate): each accepted socket becomes
 * an MqttConnection. A side listener (mqtt-startup.ts): one that cannot bind is retried.
 */
import { createServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type TlsOptions } from "node:tls";
import { acceptIntoSlabs } from "../listeners/slab-reads.js";
import type { MqttPeer } from "./connection-record.js";
import { MqttConnection } from "./mqtt-connection.js";
import type { MqttNode } from "./mqtt-node.js";
import { certLoginName } from "../tls/cert-login-name.js";
import { peerOf } from "../auth/peer-address.js";
import { listenOn } from "../listeners/listen-on.js";

export interface MqttListener {
  readonly port: number;
  close(): Promise<void>;
}

/** An MQTT client's peer facts, over TCP or under a WebSocket; over TLS, the name its verified certificate gives (for ssl_cert_login). */
export function mqttPeerOf(node: MqttNode, socket: Socket, tls: boolean, protocolName: MqttPeer["protocolName"]): MqttPeer {
  return { ...peerOf(socket, tls), protocolName, certName: tls ? certLoginName(socket, node.settings.sslCertLoginFrom) : null };
}

export async function listenMqtt(node: MqttNode, port: number, bind: string, tls: TlsOptions | null = null): Promise<MqttListener> {
  const connections = new Set<MqttConnection>();
  const accept = (socket: Socket): void => {
    socket.setNoDelay(true);
    const c = new MqttConnection(node, socket, mqttPeerOf(node, socket, tls !== null, "MQTT"));
    connections.add(c);
    socket.on("close", () => connections.delete(c));
  };
  // The TLS handshake must finish within the time CONNECT may take. Plain TCP reads into slabs.
  const server: Server = tls ? createTlsServer({ handshakeTimeout: node.settings.connectTimeout * 1000, ...tls }, accept) : createServer({ pauseOnConnect: true }, acceptIntoSlabs(accept));
  if (tls) server.on("tlsClientError", (err) => node.log.info("MQTTS handshake failed", { err: err.message }));
  const bound = await listenOn(server, port, bind);
  server.on("error", (err) => node.log.error("MQTT listener error", { err }));
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.shutdown();
        server.close(() => resolve());
      }),
  };
}
