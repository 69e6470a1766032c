/**
 * The MQTT listener (RabbitMQ's mqtt.listeners.tcp.default, port 1883), or with TLS options the
 * MQTTS one (mqtt.listeners.ssl.default, 8883, the AMQPS certificate): each accepted socket becomes
 * an MqttConnection (the listener itself: src/listeners/socket-listener.ts). A side listener
 * (mqtt-startup.ts): one that cannot bind is retried.
 */
import type { Socket } from "node:net";
import type { TlsOptions } from "node:tls";
import type { MqttPeer } from "./connection-record.js";
import { MqttConnection } from "./mqtt-connection.js";
import type { MqttNode } from "./mqtt-node.js";
import { certLoginName } from "../tls/cert-login-name.js";
import { peerOf } from "../auth/peer-address.js";
import { listenSocket } from "../listeners/socket-listener.js";
import type { OpenListener } from "../listeners/side-listeners.js";

export type MqttListener = OpenListener;

/** An MQTT client's peer facts, over TCP or under a WebSocket; over TLS, the name its verified certificate gives (for ssl_cert_login). */
export function mqttPeerOf(node: MqttNode, socket: Socket, tls: boolean, protocolName: MqttPeer["protocolName"]): MqttPeer {
  return { ...peerOf(socket, tls), protocolName, certName: tls ? certLoginName(socket, node.settings.sslCertLoginFrom) : null };
}

export function listenMqtt(node: MqttNode, port: number, bind: string, tls: TlsOptions | null = null): Promise<MqttListener> {
  return listenSocket<MqttConnection>(
    {
      name: "MQTT",
      tlsName: "MQTTS",
      log: node.log,
      // The TLS handshake must finish within the time CONNECT may take. Plain TCP reads into slabs.
      handshakeTimeoutMs: node.settings.connectTimeout * 1000,
      readsIntoSlabs: true,
      accept: (socket) => new MqttConnection(node, socket, mqttPeerOf(node, socket, tls !== null, "MQTT")),
    },
    port,
    bind,
    tls,
  );
}
