#!/usr/bin/env node
// Federated messages per second over loopback: an exchange federated from an upstream broker,
// persistent messages published upstream with confirms, counted as they arrive in a durable queue
// bound downstream. Prints one JSON line.
//
//   node bench/federation-throughput.mjs [--messages 20000] [--size 1024] [--window 500] [--ack-mode on-confirm]
//     starts two Coney processes (fresh data dirs, deleted afterwards), federates `fed.bench`
//     from one into the other and measures.
//   node bench/federation-throughput.mjs --upstream amqp://guest:guest@localhost:35672/up \
//       --downstream amqp://guest:guest@localhost:35672/down --downstream-http http://localhost:15672
//     the same against brokers already running (e.g. RabbitMQ 3.10 with rabbitmq_federation, two
//     vhosts of one node); the vhosts must exist.
//
// Two figures: `publish_s` (the publisher's time for all confirms) and `end_to_end_s` (first
// publish to last arrival downstream) → `federated_per_s` = messages / end_to_end_s.
// Run `npm run build` first.
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { AMQPClient } from "@cloudamqp/amqp-client";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const messages = Number(opt("messages", "20000"));
const size = Number(opt("size", "1024"));
const windowSize = Number(opt("window", "500"));
const ackMode = opt("ack-mode", "on-confirm");
const bin = new URL("../bin/coney.js", import.meta.url).pathname;
const children = [];
const dirs = [];

function startConey(name) {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-fedbench-"));
  dirs.push(dataDir);
  const child = spawn(process.execPath, [bin, "--amqp-port", "0", "--http-port", "0", "--prometheus-port", "off", "--bind", "127.0.0.1", "--data-dir", dataDir, "--cluster-name", name, "--log-level", "info"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(child);
  let log = "";
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => reject(new Error(`broker exited with ${code}: ${log}`)));
    child.stderr.on("data", (d) => {
      log += d.toString();
      const amqp = /"msg":"Coney started","amqp_port":(\d+)/.exec(log);
      const http = /"msg":"management API listener started","port":(\d+)/.exec(log);
      if (amqp && http) resolve({ amqp: `amqp://guest:guest@127.0.0.1:${amqp[1]}`, http: `http://127.0.0.1:${http[1]}` });
    });
  });
}

async function api(base, method, path, body) {
  const res = await globalThis.fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const until = async (check, what, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
};

async function main() {
  let upUri = opt("upstream", null);
  let downUri = opt("downstream", null);
  let downHttp = opt("downstream-http", null);
  let target = "external";
  if (upUri === null) {
    const [up, down] = await Promise.all([startConey("bench-upstream"), startConey("bench-downstream")]);
    upUri = up.amqp;
    downUri = down.amqp;
    downHttp = down.http;
    target = "coney";
  }
  const downVhost = decodeURIComponent(new URL(downUri).pathname.slice(1) || "/") || "/";
  const v = encodeURIComponent(downVhost);
  const down = new AMQPClient(downUri);
  await down.connect();
  const dch = await down.channel();
  await dch.exchangeDeclare("fed.bench", "topic", { durable: true });
  await dch.queueDeclare("fed.bench.sink", { durable: true });
  await dch.queuePurge("fed.bench.sink");
  await dch.queueBind("fed.bench.sink", "fed.bench", "#");
  await api(downHttp, "PUT", `/api/parameters/federation-upstream/${v}/bench`, { value: { uri: upUri, "ack-mode": ackMode } });
  await api(downHttp, "PUT", `/api/policies/${v}/fed-bench`, { pattern: "^fed\\.bench$", "apply-to": "exchanges", definition: { "federation-upstream": "bench" } });
  await until(async () => (await api(downHttp, "GET", `/api/federation-links/${v}`)).some((l) => l.status === "running"), "the link");
  const up = new AMQPClient(upUri);
  await up.connect();
  const uch = await up.channel();
  await uch.confirmSelect();
  // The upstream binding (made by the link) must exist before publishing, or messages are unrouted.
  await until(async () => {
    const probe = await up.channel();
    try {
      await probe.basicPublish("fed.bench", "probe", "probe", {}, true);
      return true;
    } finally {
      await probe.close().catch(() => {});
    }
  }, "the upstream exchange");
  await sleep(500);
  let arrived = 0;
  let lastArrival = 0;
  await dch.prefetch(1000);
  await dch.basicConsume("fed.bench.sink", { noAck: false }, (m) => {
    if (m.bodyToString() === "probe") return void m.ack();
    arrived++;
    lastArrival = performance.now();
    if (arrived % 100 === 0) void m.ack(true);
  });
  const body = Buffer.alloc(size, 120);
  const started = performance.now();
  const pending = [];
  for (let i = 0; i < messages; i++) {
    pending.push(uch.basicPublish("fed.bench", "k", body, { deliveryMode: 2 }));
    if (pending.length >= windowSize) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
  const published = performance.now();
  await until(() => arrived >= messages, `${messages} messages downstream (${arrived} so far)`, 120_000);
  const e2e = (lastArrival - started) / 1000;
  console.log(JSON.stringify({ target, messages, size, ack_mode: ackMode, publish_s: +((published - started) / 1000).toFixed(2), end_to_end_s: +e2e.toFixed(2), federated_per_s: Math.round(messages / e2e) }));
  await api(downHttp, "DELETE", `/api/policies/${v}/fed-bench`);
  await api(downHttp, "DELETE", `/api/parameters/federation-upstream/${v}/bench`);
  await up.close();
  await down.close();
}

try {
  await main();
} finally {
  for (const c of children) c.kill("SIGTERM");
  await sleep(500);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
