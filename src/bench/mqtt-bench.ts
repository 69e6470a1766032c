/**
 * `coney-perf mqtt`: one MQTT publisher → one subscriber (or several) on one topic, QoS 0 or 1,
 * against any MQTT 3.1.1 broker. The clients are minimal ones written on mqtt-packet (the
 * broker's own codec dependency), so the load generator adds little of its own cost: QoS 0
 * publishes as fast as the socket drains, QoS 1 keeps a window of PUBLISH packets awaiting PUBACK;
 * subscribers acknowledge each QoS 1 delivery. Latency is the time from publish to receipt, from a
 * timestamp in the payload (same process, same clock).
 */
import { connect as tcpConnect, type Socket } from "node:net";
import { generate, parser, type Packet } from "mqtt-packet";
import { LatencyHistogram } from "./latency-histogram.js";

export interface MqttBenchOptions {
  /** mqtt://user:pass@host:port */
  readonly url: string;
  readonly qos: 0 | 1;
  readonly size: number;
  readonly subscribers: number;
  readonly durationSeconds: number;
  /** QoS 1: PUBLISH packets awaiting PUBACK at once. */
  readonly inflight: number;
}

export interface MqttBenchResult {
  readonly publishedPerSecond: number;
  readonly receivedPerSecond: number;
  readonly latencyP50: number;
  readonly latencyP99: number;
}

interface RawClient {
  readonly socket: Socket;
  onPacket: (p: Packet) => void;
}

function open(url: URL, clientId: string): Promise<RawClient> {
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

export async function runMqttBench(o: MqttBenchOptions): Promise<MqttBenchResult> {
  const url = new URL(o.url);
  const topic = `coney-perf/${process.pid}/${Date.now()}`;
  const histogram = new LatencyHistogram();
  let received = 0;
  let measuring = false;
  const subs: RawClient[] = [];
  for (let i = 0; i < o.subscribers; i++) {
    const s = await open(url, `coney-perf-sub-${process.pid}-${i}`);
    const subscribed = new Promise<void>((resolve) => {
      s.onPacket = (p) => {
        if (p.cmd === "suback") return resolve();
        if (p.cmd !== "publish") return;
        if (p.qos === 1) s.socket.write(generate({ cmd: "puback", messageId: p.messageId! }));
        const payload = p.payload as Buffer;
        if (!measuring) return;
        received++;
        histogram.record(performance.now() - payload.readDoubleLE(0));
      };
    });
    s.socket.write(generate({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic, qos: o.qos }] }));
    await subscribed;
    subs.push(s);
  }
  const pub = await open(url, `coney-perf-pub-${process.pid}`);
  const body = Buffer.alloc(Math.max(8, o.size));
  let published = 0;
  let inflight = 0;
  let nextId = 1;
  let running = true;
  const publishOne = (): boolean => {
    body.writeDoubleLE(performance.now(), 0);
    const messageId = o.qos === 1 ? nextId : undefined;
    if (o.qos === 1) {
      nextId = nextId === 0xffff ? 1 : nextId + 1;
      inflight++;
    }
    if (measuring) published++;
    return pub.socket.write(generate({ cmd: "publish", topic, payload: body, qos: o.qos, dup: false, retain: false, ...(messageId === undefined ? {} : { messageId }) }));
  };
  const pump = (): void => {
    while (running && (o.qos === 0 || inflight < o.inflight)) {
      if (!publishOne()) return; // resumes on drain
      if (o.qos === 0 && published % 1000 === 0) return void setImmediate(pump);
    }
  };
  pub.onPacket = (p) => {
    if (p.cmd === "puback") {
      inflight--;
      pump();
    }
  };
  pub.socket.on("drain", pump);
  // One second of warm-up, then the measured run.
  pump();
  await new Promise((r) => setTimeout(r, 1000));
  measuring = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, o.durationSeconds * 1000));
  measuring = false;
  running = false;
  const seconds = (performance.now() - started) / 1000;
  for (const c of [pub, ...subs]) c.socket.end(generate({ cmd: "disconnect" }));
  return {
    publishedPerSecond: published / seconds,
    receivedPerSecond: received / seconds,
    latencyP50: histogram.percentile(0.5),
    latencyP99: histogram.percentile(0.99),
  };
}

export function formatMqttResult(o: MqttBenchOptions, r: MqttBenchResult): string {
  const ms = (x: number): string => (Number.isNaN(x) ? "n/a" : `${x.toFixed(2)} ms`);
  return [
    `MQTT QoS ${o.qos}, ${o.size} B, 1 publisher → ${o.subscribers} subscriber(s)`,
    `published: ${Math.round(r.publishedPerSecond).toLocaleString("en-US")} msg/s`,
    `received:  ${Math.round(r.receivedPerSecond).toLocaleString("en-US")} msg/s`,
    `latency:   p50 ${ms(r.latencyP50)}, p99 ${ms(r.latencyP99)}`,
  ].join("\n");
}
