#!/usr/bin/env node
// Opens N idle MQTT 3.1.1 connections to a broker (raw sockets: CONNECT with keep-alive 0, clean
// session, no subscription) and prints the broker's RSS before and 3 s after the last CONNACK,
// read from /proc/<pid>/status (Linux). docs/PERFORMANCE.md, MQTT.
// Usage: node bench/mqtt-idle-connections.mjs <port> <broker pid> [connections = 10000]
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import mqttPacket from "mqtt-packet";

const [port, pid, n] = [Number(process.argv[2]), process.argv[3], Number(process.argv[4] ?? 10_000)];
if (!port || !pid) {
  console.error("usage: node bench/mqtt-idle-connections.mjs <port> <broker pid> [connections]");
  process.exit(64);
}
const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;

await sleep(2000);
const before = rssMiB();
const sockets = [];
let acked = 0;
for (let i = 0; i < n; i++) {
  const s = connect(port, "127.0.0.1");
  s.on("data", () => acked++);
  s.on("error", (e) => {
    console.error("socket error:", e.message);
    process.exit(1);
  });
  s.write(mqttPacket.generate({ cmd: "connect", protocolId: "MQTT", protocolVersion: 4, clean: true, clientId: `idle-${i}`, keepalive: 0, username: "guest", password: Buffer.from("guest") }));
  sockets.push(s);
  // At most a few hundred CONNECTs outstanding, so the broker is not measured mid-burst.
  if (i % 500 === 499) while (acked < i - 200) await sleep(10);
}
while (acked < n) await sleep(50);
await sleep(3000);
const after = rssMiB();
console.log(`${n} connections: RSS ${before.toFixed(0)} MiB -> ${after.toFixed(0)} MiB (+${(((after - before) * 1024 * 1024) / n / 1000).toFixed(1)} KB each)`);
for (const s of sockets) s.destroy();
