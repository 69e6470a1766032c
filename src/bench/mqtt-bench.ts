/**
 * `coney-perf mqtt`: one MQTT publisher → one subscriber (or several) on one topic, QoS 0, 1 or 2,
 * against any MQTT 3.1.1 broker. The clients are minimal ones on mqtt-packet (mqtt-raw-client.ts).
 * The publisher runs here; the subscribers run in a worker thread (mqtt-subscribers.ts), so that
 * one event loop does not both publish and receive. QoS 0 publishes as fast as the socket drains,
 * QoS 1 keeps a window of PUBLISH packets awaiting PUBACK, QoS 2 one awaiting PUBCOMP (PUBREC
 * answered by PUBREL); subscribers acknowledge each delivery as its QoS asks. Latency is the time from publish to receipt, from a timestamp in the payload (one
 * machine's clock, read the same way in both threads).
 */
import { Worker } from "node:worker_threads";
import { generate } from "mqtt-packet";
import { LatencyHistogram } from "./latency-histogram.js";
import { openRawClient, wallClockMs } from "./mqtt-raw-client.js";
import type { SubscribersData, SubscribersMessage } from "./mqtt-subscribers.js";

export interface MqttBenchOptions {
  /** mqtt://user:pass@host:port */
  readonly url: string;
  readonly qos: 0 | 1 | 2;
  readonly size: number;
  readonly subscribers: number;
  readonly durationSeconds: number;
  /** QoS 1 and 2: PUBLISH packets awaiting PUBACK (PUBCOMP) at once. */
  readonly inflight: number;
}

export interface MqttBenchResult {
  readonly publishedPerSecond: number;
  readonly receivedPerSecond: number;
  readonly latencyP50: number;
  readonly latencyP99: number;
}

/** Starts the subscribers' thread; resolves once they are all subscribed. */
function startSubscribers(data: SubscribersData): Promise<{ measure(): void; stop(): Promise<{ received: number; histogram: LatencyHistogram }> }> {
  const worker = new Worker(new URL("./mqtt-subscribers.js", import.meta.url), { workerData: data });
  let onResult: (m: { received: number; histogram: LatencyHistogram }) => void = () => {};
  const result = new Promise<{ received: number; histogram: LatencyHistogram }>((resolve) => (onResult = resolve));
  return new Promise((resolve, reject) => {
    worker.on("error", reject);
    worker.on("message", (m: SubscribersMessage) => {
      if (m.type === "error") reject(new Error(m.message));
      else if (m.type === "result") onResult({ received: m.received, histogram: new LatencyHistogram(m.counts) });
      else
        resolve({
          measure: () => worker.postMessage({ type: "measure" }),
          stop: async () => {
            worker.postMessage({ type: "stop" });
            const r = await result;
            await worker.terminate();
            return r;
          },
        });
    });
  });
}

export async function runMqttBench(o: MqttBenchOptions): Promise<MqttBenchResult> {
  const url = new URL(o.url);
  const topic = `coney-perf/${process.pid}/${Date.now()}`;
  const subscribers = await startSubscribers({ url: o.url, topic, qos: o.qos, subscribers: o.subscribers });
  const pub = await openRawClient(url, `coney-perf-pub-${process.pid}`);
  const body = Buffer.alloc(Math.max(8, o.size));
  let measuring = false;
  let published = 0;
  let inflight = 0;
  let nextId = 1;
  let running = true;
  const publishOne = (): boolean => {
    body.writeDoubleLE(wallClockMs(), 0);
    const messageId = o.qos !== 0 ? nextId : undefined;
    if (o.qos !== 0) {
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
    if (p.cmd === "pubrec") pub.socket.write(generate({ cmd: "pubrel", messageId: p.messageId! }));
    else if (p.cmd === "puback" || p.cmd === "pubcomp") {
      inflight--;
      pump();
    }
  };
  pub.socket.on("drain", pump);
  // One second of warm-up, then the measured run.
  pump();
  await new Promise((r) => setTimeout(r, 1000));
  measuring = true;
  subscribers.measure();
  const started = performance.now();
  await new Promise((r) => setTimeout(r, o.durationSeconds * 1000));
  measuring = false;
  running = false;
  const seconds = (performance.now() - started) / 1000;
  const { received, histogram } = await subscribers.stop();
  pub.socket.end(generate({ cmd: "disconnect" }));
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
