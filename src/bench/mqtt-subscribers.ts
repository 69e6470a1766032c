/**
 * The subscribers of `coney-perf mqtt`, in a worker thread of their own so that receiving and
 * acknowledging do not compete with publishing for one event loop (on a machine with cores to
 * spare, the broker is then what is measured). They subscribe, acknowledge each QoS 1 delivery,
 * and while measuring count deliveries and record each one's latency from the publish time in its
 * payload (wallClockMs, comparable across threads). Messages with the parent: `ready` once
 * subscribed; `measure` / `stop` from it; `result` (count and histogram buckets) back.
 */
import { parentPort, workerData } from "node:worker_threads";
import { generate } from "mqtt-packet";
import { LatencyHistogram } from "./latency-histogram.js";
import { openRawClient, wallClockMs, type RawClient } from "./mqtt-raw-client.js";

export interface SubscribersData {
  readonly url: string;
  readonly topic: string;
  readonly qos: 0 | 1 | 2;
  readonly subscribers: number;
}

export type SubscribersMessage = { readonly type: "ready" } | { readonly type: "result"; readonly received: number; readonly counts: number[] } | { readonly type: "error"; readonly message: string };

async function run(d: SubscribersData): Promise<void> {
  const port = parentPort!;
  const url = new URL(d.url);
  const histogram = new LatencyHistogram();
  let received = 0;
  let measuring = false;
  const subs: RawClient[] = [];
  for (let i = 0; i < d.subscribers; i++) {
    const s = await openRawClient(url, `coney-perf-sub-${process.pid}-${i}`);
    const subscribed = new Promise<void>((resolve) => {
      s.onPacket = (p) => {
        if (p.cmd === "suback") return resolve();
        // QoS 2: counted at PUBLISH (the receiver's "method B"), completed by PUBREC, PUBREL, PUBCOMP.
        if (p.cmd === "pubrel") return void s.socket.write(generate({ cmd: "pubcomp", messageId: p.messageId! }));
        if (p.cmd !== "publish") return;
        if (p.qos === 1) s.socket.write(generate({ cmd: "puback", messageId: p.messageId! }));
        else if (p.qos === 2) s.socket.write(generate({ cmd: "pubrec", messageId: p.messageId! }));
        if (!measuring) return;
        received++;
        histogram.record(wallClockMs() - (p.payload as Buffer).readDoubleLE(0));
      };
    });
    s.socket.write(generate({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: d.topic, qos: d.qos }] }));
    await subscribed;
    subs.push(s);
  }
  port.on("message", (m: { type: "measure" | "stop" }) => {
    if (m.type === "measure") measuring = true;
    else {
      measuring = false;
      for (const s of subs) s.socket.end(generate({ cmd: "disconnect" }));
      port.postMessage({ type: "result", received, counts: histogram.counts } satisfies SubscribersMessage);
      port.close();
    }
  });
  port.postMessage({ type: "ready" } satisfies SubscribersMessage);
}

if (parentPort !== null) {
  run(workerData as SubscribersData).catch((err: unknown) => parentPort!.postMessage({ type: "error", message: err instanceof Error ? err.message : String(err) } satisfies SubscribersMessage));
}
