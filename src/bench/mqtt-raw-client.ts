/**
 * The minimal MQTT 3.1.1 client of `coney-perf mqtt`, on mqtt-packet (the broker's own codec
 * dependency), so the load generator adds little cost of its own: CONNECT and CONNACK, then every
 * other packet to `onPacket`. Used by the publisher (mqtt-bench.ts) and the subscribers
 * (mqtt-subscribers.ts).
 */
import { connect as tcpConnect, type Socket } from "node:net";
import { generate, parser, type Packet } from "mqtt-packet";

export interface RawClient {
  readonly socket: Socket;
  onPacket: (p: Packet) => void;
}

export function openRawClient(url: URL, clientId: string): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(Number(url.port || 1883), url.hostname);
    socket.setNoDelay(true);
    const p = parser({ protocolVersion: 4 });
    const client: RawClient = { socket, onPacket: () => {} };
    p.on("packet", (packet: Packet) => {
      if (packet.cmd === "connack") {
        if (packet.returnCode !== 0) reject(new Error(`CONNACK ${packet.returnCode}`));
        else resolve(client);
      } else client.onPacket(packet);
    });
    p.on("error", reject);
    socket.on("data", (d) => p.parse(d));
    socket.on("error", reject);
    socket.on("connect", () => {
      const username = decodeURIComponent(url.username || "guest");
      const password = Buffer.from(decodeURIComponent(url.password || "guest"));
      socket.write(generate({ cmd: "connect", protocolId: "MQTT", protocolVersion: 4, clientId, clean: true, keepalive: 60, username, password }));
    });
  });
}

/** A clock shared by threads (and processes) on one machine: ms since the epoch, sub-ms precise. */
export function wallClockMs(): number {
  return performance.timeOrigin + performance.now();
}
