// Reading a large stream from its first offset (issue 24: "reading a 1 GB stream from the first
// offset at disk speed with flat memory"). Fills a stream over AMQP 0-9-1 with confirms, then one
// consumer reads it from `first` (prefetch 1,000, a multiple ack every 500) while the broker's
// resident memory is sampled every 100 ms. Prints the fill and read rates (MB/s and msg/s) and the
// broker's RSS before the read, at its peak during it and 5 s after it.
//
//   node bench/stream-read.mjs --uri amqp://guest:guest@127.0.0.1:5673 --pid <broker pid> [--mb 1024] [--size 1024]
//
// --read native --stream-uri rabbitmq-stream://guest:guest@127.0.0.1:5552/%2F reads it instead with
// rabbitmq-stream-js-client from `first` (every message decoded by the client); --read raw with
// coney-perf's minimal stream client (dist/src/bench/stream-raw-client.js: chunks counted from their
// headers, nothing decoded: what the broker sends, where no client library is the limit).
// --name N --no-fill reads a stream an earlier run filled (kept with --keep), so that reads can be
// alternated without filling again.
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { AMQPClient } from "@cloudamqp/amqp-client";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const uri = arg("uri", "amqp://guest:guest@127.0.0.1:5672");
const pid = Number(arg("pid", "0"));
const size = Number(arg("size", "1024"));
const total = Math.floor((Number(arg("mb", "1024")) * 1024 * 1024) / size);
const name = arg("name", `stream-read-${Date.now().toString(36)}`);
const readWith = arg("read", "amqp");
const streamUri = arg("stream-uri", "rabbitmq-stream://guest:guest@127.0.0.1:5552/%2F");
const fill = !process.argv.includes("--no-fill");
const keep = process.argv.includes("--keep");
const rss = () => (pid > 0 ? Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024 : NaN);

const conn = await new AMQPClient(uri).connect();
const ch = await conn.channel();
await ch.queueDeclare(name, { durable: true }, { "x-queue-type": "stream" });
await ch.confirmSelect();
const body = Buffer.alloc(size, 120);
let t = performance.now();
if (fill) {
  let outstanding = 0;
  let wake = null;
  for (let i = 0; i < total; i++) {
    outstanding++;
    ch.basicPublish("", name, body, { deliveryMode: 2 }).then(() => {
      outstanding--;
      if (wake && outstanding < 5000) {
        wake();
        wake = null;
      }
    });
    if (outstanding >= 10_000) await new Promise((r) => (wake = r));
  }
  while (outstanding > 0) await sleep(10);
  const fillSeconds = (performance.now() - t) / 1000;
  console.log(`filled ${total} × ${size} B (${((total * size) / 1048576).toFixed(0)} MB) in ${fillSeconds.toFixed(1)} s: ${(total / fillSeconds).toFixed(0)} msg/s, ${((total * size) / 1048576 / fillSeconds).toFixed(0)} MB/s`);
}

const rssBefore = rss();
let peak = rssBefore;
const sampler = globalThis.setInterval(() => (peak = Math.max(peak, rss())), 100);
let read = 0;
t = performance.now();
let stopReading;
if (readWith === "amqp") {
  const reader = await conn.channel();
  await reader.basicQos(1000);
  await new Promise((resolve) => {
    void reader.basicConsume(name, { noAck: false, args: { "x-stream-offset": "first" } }, (msg) => {
      read++;
      if (read % 500 === 0 || read === total) void msg.ack(true);
      if (read === total) resolve();
    });
  });
  stopReading = () => reader.close();
} else if (readWith === "native") {
  const { connect, Offset } = await import("rabbitmq-stream-js-client");
  const u = new URL(streamUri);
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const vhost = u.pathname.length > 1 ? decodeURIComponent(u.pathname.slice(1)) : "/";
  const client = await connect({ hostname: u.hostname, port: Number(u.port || 5552), username: decodeURIComponent(u.username), password: decodeURIComponent(u.password), vhost, heartbeat: 0 }, silent);
  await new Promise((resolve) => {
    void client.declareConsumer({ stream: name, offset: Offset.first() }, () => {
      read++;
      if (read === total) resolve();
    });
  });
  stopReading = () => client.close();
} else if (readWith === "raw") {
  const { subscribeCounting } = await import("../dist/src/bench/stream-raw-client.js");
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const c = await subscribeCounting(streamUri, name, (n) => {
    read += n;
    if (read >= total) done();
  });
  await finished;
  stopReading = () => c.socket.destroy();
} else throw new Error(`--read amqp, native or raw, not ${readWith}`);
const readSeconds = (performance.now() - t) / 1000;
globalThis.clearInterval(sampler);
console.log(`read ${read} from first (${readWith}) in ${readSeconds.toFixed(1)} s: ${(read / readSeconds).toFixed(0)} msg/s, ${((read * size) / 1048576 / readSeconds).toFixed(0)} MB/s`);
await stopReading();
await sleep(5000);
console.log(`broker RSS: ${rssBefore.toFixed(0)} MiB before the read, peak ${peak.toFixed(0)} MiB during it, ${rss().toFixed(0)} MiB 5 s after it`);
if (!keep) await ch.queueDelete(name);
await conn.close();
