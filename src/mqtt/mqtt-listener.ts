/**
 * The MQTT listener (RabbitMQ's mqtt.listeners.tcp.default, port 1883): each accepted socket
 * becomes an MqttConnection. A side listener: start-broker.ts logs a failure to bind it and the
 * broker runs on without MQTT.
 */
import { createServer, type AddressInfo, type Socket } from "node:net";
import { MqttConnection } from "./mqtt-connection.js";
import type { MqttNode } from "./mqtt-node.js";
import { isLoopbackPeer } from "./peer-address.js";

export interface MqttListener {
  readonly port: number;
  close(): Promise<void>;
}

export async function listenMqtt(node: MqttNode, port: number, bind: string): Promise<MqttListener> {
  const connections = new Set<MqttConnection>();
  const server = createServer((socket: Socket) => {
    socket.setNoDelay(true);
    const peerHost = socket.remoteAddress ?? "";
    const c = new MqttConnection(node, socket, {
      host: socket.localAddress ?? "",
      port: socket.localPort ?? 0,
      peerHost,
      peerPort: socket.remotePort ?? 0,
      isLoopback: isLoopbackPeer(peerHost),
      tls: false,
      protocolName: "MQTT",
    });
    connections.add(c);
    socket.on("close", () => connections.delete(c));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, bind === "" ? undefined : bind, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (err) => node.log.error("MQTT listener error", { err }));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.shutdown();
        server.close(() => resolve());
      }),
  };
}
