#!/usr/bin/env node
// Durability probe (until the bench tool from the performance work is on main): drives a real
// Coney process over loopback with @cloudamqp/amqp-client and prints one JSON line per figure.
//
//   node bench/durability-probe.mjs publish  [--seconds 10] [--publishers 4] [--window 256] [--size 1024]
//     persistent messages (delivery-mode 2) into one durable queue, publisher confirms, up to
//     `window` unconfirmed per publisher: confirmed messages per second.
//   node bench/durability-probe.mjs recovery [--messages 1000000] [--size 100] [--consume 1]
//     stores that many confirmed persistent messages, stops the broker (SIGTERM), starts it again
//     and reports the store's recovery time (from its log) and the time until AMQP accepts
//     connections, plus the broker's resident memory when the messages were stored and after
//     recovery; with --consume 1 it then consumes them all (prefetch 1000, acks) and reports the rate.
//
// Run `npm run build` first. The broker gets a fresh temporary data dir, deleted afterwards.
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { AMQPClient } from "@cloudamqp/amqp-client";

const args = process.argv.slice(2);
const mode = args[0];
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const bin = new URL("../bin/coney.js", import.meta.url).pathname;

function startBroker(dataDir) {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, "--amqp-port", "0", "--http-port", "off", "--prometheus-port", "off", "--bind", "127.0.0.1", "--data-dir", dataDir, "--log-level", "info"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => reject(new Error(`broker exited with ${code}: ${log}`)));
    child.stderr.on("data", (d) => {
      log += d.toString();
      const m = /"amqp_port":(\d+)/.exec(log);
      if (m) resolve({ child, port: Number(m[1]), readyMs: performance.now() - started, log: () => log });
    });
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners("exit");
    child.on("exit", resolve);
    child.kill("SIGTERM");
  });
}

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : null;
}

/** `publishers` connections publish persistent messages with confirms until `count` are confirmed or `seconds` pass. */
async function publish(port, { publishers, window, size, seconds, count }) {
  const body = Buffer.alloc(size, 120);
  const conns = [];
  let confirmed = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: publishers }, async (_, k) => {
      const client = new AMQPClient(`amqp://guest:guest@127.0.0.1:${port}`);
      const conn = await client.connect();
      conns.push(conn);
      const ch = await conn.channel();
      await ch.queueDeclare("durability-probe", { durable: true });
      await ch.confirmSelect();
      const share = Math.ceil(count / publishers);
      let sent = 0;
      const inflight = new Set();
      while (performance.now() < deadline && sent < share) {
        const p = ch.basicPublish("", "durability-probe", body, { deliveryMode: 2 }).then(() => {
          confirmed++;
          inflight.delete(p);
        });
        inflight.add(p);
        sent++;
        if (inflight.size >= window) await Promise.race(inflight);
        if (k === 0 && sent % 100000 === 0 && count !== Infinity) process.stderr.write(`  ${confirmed} confirmed\n`);
      }
      await Promise.all(inflight);
    }),
  );
  const secs = (performance.now() - started) / 1000;
  for (const c of conns) await c.close();
  return { confirmed, seconds: Number(secs.toFixed(2)), rate: Math.round(confirmed / secs) };
}

/** One consumer takes `count` messages (prefetch 1000, an ack with multiple=true every 100). */
async function consumeAll(port, count, pid) {
  const client = new AMQPClient(`amqp://guest:guest@127.0.0.1:${port}`);
  const conn = await client.connect();
  const ch = await conn.channel();
  await ch.prefetch(1000);
  const started = performance.now();
  let n = 0;
  let peakRss = 0;
  await new Promise((resolve) => {
    void ch.basicConsume("durability-probe", { noAck: false }, (msg) => {
      n++;
      if (n % 100 === 0 || n === count) void msg.ack(true);
      if (n % 200000 === 0) peakRss = Math.max(peakRss, rssMb(pid));
      if (n === count) resolve();
    });
  });
  const secs = (performance.now() - started) / 1000;
  await conn.close();
  return { consumed: n, seconds: Number(secs.toFixed(2)), msgsPerSec: Math.round(n / secs), peakBrokerRssMbWhileConsuming: peakRss };
}

const dataDir = mkdtempSync(join(tmpdir(), "coney-probe-"));
try {
  if (mode === "publish") {
    const b = await startBroker(dataDir);
    const o = { publishers: opt("publishers", 4), window: opt("window", 256), size: opt("size", 1024), seconds: opt("seconds", 10) };
    const r = await publish(b.port, { ...o, count: Infinity });
    const rss = rssMb(b.child.pid);
    await stop(b.child);
    const closed = b.log().split("\n").find((l) => l.includes('"message store closed"'));
    const fsyncs = closed ? JSON.parse(closed).syncs : null;
    console.log(JSON.stringify({ figure: "persistent confirmed publish", ...o, confirmed: r.confirmed, msgsPerSec: r.rate, fsyncs, messagesPerFsync: fsyncs ? Math.round(r.confirmed / fsyncs) : null, brokerRssMb: rss }));
  } else if (mode === "recovery") {
    const messages = opt("messages", 1_000_000);
    const size = opt("size", 100);
    const b = await startBroker(dataDir);
    const r = await publish(b.port, { publishers: 4, window: 512, size, seconds: 3600, count: messages });
    console.log(JSON.stringify({ figure: "stored before restart", messages: r.confirmed, size, publishRate: r.rate, brokerRssMb: rssMb(b.child.pid) }));
    await stop(b.child);
    const again = await startBroker(dataDir);
    const line = again.log().split("\n").find((l) => l.includes('"messages recovered"'));
    const rec = line ? JSON.parse(line) : null;
    console.log(JSON.stringify({ figure: "recovery", messages: rec?.messages, segments: rec?.segments, storeRecoveryMs: rec?.ms, bootToAmqpReadyMs: Math.round(again.readyMs), brokerRssMbAfterRecovery: rssMb(again.child.pid) }));
    if (opt("consume", 0)) console.log(JSON.stringify({ figure: "consume after recovery", ...(await consumeAll(again.port, rec?.messages ?? 0, again.child.pid)) }));
    await stop(again.child);
  } else {
    console.error("usage: node bench/durability-probe.mjs publish|recovery [options]  (see the header of this file)");
    process.exitCode = 64;
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
