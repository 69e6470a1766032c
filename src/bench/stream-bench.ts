/**
 * `coney-perf stream`: the native stream protocol's rates against any broker that speaks it
 * (Coney, RabbitMQ). Publish: one publisher sends Publish frames of `batch` messages (the
 * rabbitmq-stream-js-client's default chunk of 100) of `size` bytes, at most `inflight`
 * unconfirmed; the rate is confirmed messages per second, and a subscriber on another connection,
 * in a worker thread, reads along (1 publisher / 1 consumer). Consume: a new subscriber reads the
 * stream from its first offset (what the publish phase wrote, from the segment files) with 10
 * chunks of credit and one more per chunk received, as the stream clients do; the rate is
 * messages received per second from Subscribe to the last one. The publish phase has one second
 * of warm-up.
 */
import { FrameWriter } from "../stream/wire.js";
import { Worker } from "node:worker_threads";
import { StreamRawClient, subscribeCounting } from "./stream-raw-client.js";
import type { LiveSubscriberMessage } from "./stream-subscriber.js";

/** The live subscriber, in a worker thread (so it does not compete with the publisher for one event loop). */
function startLiveSubscriber(url: string, stream: string): Promise<{ measure(): void; stop(): Promise<number> }> {
  const worker = new Worker(new URL("./stream-subscriber.js", import.meta.url), { workerData: { url, stream } });
  let onResult: (n: number) => void = () => {};
  const result = new Promise<number>((resolve) => (onResult = resolve));
  return new Promise((resolve, reject) => {
    worker.on("error", reject);
    worker.on("message", (m: LiveSubscriberMessage) => {
      if (m.type === "error") reject(new Error(m.message));
      else if (m.type === "result") onResult(m.received);
      else
        resolve({
          measure: () => worker.postMessage({ type: "measure" }),
          stop: async () => {
            worker.postMessage({ type: "stop" });
            const n = await result;
            await worker.terminate();
            return n;
          },
        });
    });
  });
}

export interface StreamBenchOptions {
  /** rabbitmq-stream://user:pass@host:port/vhost */
  readonly url: string;
  readonly size: number;
  readonly batch: number;
  readonly inflight: number;
  readonly durationSeconds: number;
  /** The stream's name (default: a fresh one per run). */
  readonly streamName?: string;
}

export interface StreamBenchResult {
  readonly confirmedPerSecond: number;
  /** Received by a subscriber reading along while the publisher ran. */
  readonly liveConsumedPerSecond: number;
  readonly consumedPerSecond: number;
  readonly stored: number;
}

/** One AMQP 1.0 message: a single data section holding `size` bytes. */
function message(size: number): Buffer {
  const body = Buffer.alloc(size, 0x61);
  const head = size < 256 ? Buffer.from([0x00, 0x53, 0x75, 0xa0, size]) : Buffer.from([0x00, 0x53, 0x75, 0xb0, 0, 0, 0, 0]);
  if (size >= 256) head.writeUInt32BE(size, 4);
  return Buffer.concat([head, body]);
}

/** One publisher, and one live subscriber on another connection: 1 publisher / 1 consumer. */
async function publishPhase(o: StreamBenchOptions, stream: string): Promise<{ perSecond: number; livePerSecond: number; sent: number }> {
  const c = await StreamRawClient.open(new URL(o.url));
  const created = await c.request((corr) => new FrameWriter(0x0d).u32(corr).str(stream).map([]).frame());
  if (created !== 1) throw new Error(`Create ${stream} answered ${created}`);
  let measuring = false;
  const liveConsumer = await startLiveSubscriber(o.url, stream);
  const declared = await c.request((corr) => new FrameWriter(0x01).u32(corr).u8(0).str("").str(stream).frame());
  if (declared !== 1) throw new Error(`DeclarePublisher answered ${declared}`);
  const m = message(o.size);
  let nextId = 1;
  let unconfirmed = 0;
  let confirmed = 0;
  let running = true;
  const frameOf = (n: number): Buffer => {
    const w = new FrameWriter(0x02, 1, 16 + n * (12 + m.length)).u8(0).i32(n);
    for (let i = 0; i < n; i++) w.u64(nextId++).bytes(m);
    return w.frame();
  };
  const pump = (): void => {
    while (running && unconfirmed + o.batch <= o.inflight) {
      unconfirmed += o.batch;
      if (!c.socket.write(frameOf(o.batch))) return; // resumes on drain
    }
  };
  c.onFrame = (f) => {
    if (f.key !== 0x03) return;
    f.body.u8();
    const n = f.body.i32();
    unconfirmed -= n;
    if (measuring) confirmed += n;
    pump();
  };
  c.socket.on("drain", pump);
  pump();
  await new Promise((r) => setTimeout(r, 1000));
  measuring = true;
  liveConsumer.measure();
  const started = performance.now();
  await new Promise((r) => setTimeout(r, o.durationSeconds * 1000));
  measuring = false;
  running = false;
  const live = await liveConsumer.stop();
  const seconds = (performance.now() - started) / 1000;
  while (unconfirmed > 0) await new Promise((r) => setTimeout(r, 10));
  c.close();
  return { perSecond: confirmed / seconds, livePerSecond: live / seconds, sent: nextId - 1 };
}

/** A new subscriber reads the stream from its first offset: timed from Subscribe to the last message (or the duration). */
async function consumePhase(o: StreamBenchOptions, stream: string, total: number): Promise<number> {
  let received = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const started = performance.now();
  const c = await subscribeCounting(o.url, stream, (n) => {
    received += n;
    if (received >= total) done();
  });
  await Promise.race([finished, new Promise((r) => setTimeout(r, o.durationSeconds * 1000))]);
  const seconds = (performance.now() - started) / 1000;
  await c.request((corr) => new FrameWriter(0x0e).u32(corr).str(stream).frame());
  c.close();
  return received / seconds;
}

export async function runStreamBench(o: StreamBenchOptions): Promise<StreamBenchResult> {
  const stream = o.streamName ?? `coney-perf-stream-${process.pid}-${Date.now()}`;
  const pub = await publishPhase(o, stream);
  const consumed = await consumePhase(o, stream, pub.sent);
  return { confirmedPerSecond: pub.perSecond, liveConsumedPerSecond: pub.livePerSecond, consumedPerSecond: consumed, stored: pub.sent };
}

export function formatStreamResult(o: StreamBenchOptions, r: StreamBenchResult): string {
  const rate = (x: number): string => `${Math.round(x).toLocaleString("en-US")} msg/s`;
  return [
    `stream protocol, ${o.size} B, Publish frames of ${o.batch}, at most ${o.inflight} unconfirmed`,
    `published (confirmed): ${rate(r.confirmedPerSecond)}`,
    `consumed live:         ${rate(r.liveConsumedPerSecond)} (1 subscriber reading along)`,
    `consumed from first:   ${rate(r.consumedPerSecond)} (of ${r.stored.toLocaleString("en-US")} stored)`,
  ].join("\n");
}
