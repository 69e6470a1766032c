#!/usr/bin/env node
// Forwarded against local: broker CPU per message of a queue led by another node (docs/PERFORMANCE.md,
// "The inter-node link"). Two broker processes on loopback: B leads queue `bench-q`; A holds it as a
// RemoteQueue over a real link. One publisher (confirms, 256 in flight) and one consumer (prefetch
// 1000, a multiple ack every 100) in this process, either both on B (local) or both on A (forwarded);
// the figure is utime+stime of the broker processes (/proc/<pid>/stat) over the run, per message.
//   node scripts/node-link-bench.mjs [messages=200000] [size=16] [runs=3]
// LINK_BENCH_MODES=forwarded (or local) runs one mode only (to profile it alone). A third mode,
// `crossed`, publishes on B (the leader) and consumes on A: a forwarded consumer that is not on the
// publishing node, so every delivery carries its whole message (no DELIVER_OWN); its ratio is
// printed against local as `crossedRatio` (LINK_BENCH_MODES=local,forwarded,crossed). A publisher
// and a consumer on two different non-leading nodes (three nodes) pay what `forwarded` with
// LINK_BENCH_FEATURES=0 shows: A then does both non-leading nodes' work. Each row also gives
// msgPerWriteA/B, messages per write system call of each broker (/proc/<pid>/io), and sysUsA/B, each
// broker's kernel time per message (stime: the socket reads and writes), and msgPerWakeA/B, messages per
// voluntary context switch (an event-loop wake-up). LINK_BENCH_LINK=unix puts the link on a Unix
// socket, as `coney --workers` does between its processes (default: TCP on loopback, as between machines).
// LINK_BENCH_WARMUP=n first moves n messages in each mode, unmeasured: without it a run's figure includes
// the JIT's warm-up of whichever broker first does that work (A's whole path lands in `forwarded`), which
// at 4 KiB and 50,000 messages is most of the figure (seventh pass, docs/PERFORMANCE.md).
// LINK_BENCH_FEATURES=0 makes A offer no link features (as a node from before the features byte:
// every delivery carries its message, no DELIVER_OWN), to measure that path alone.
// Needs `npm run build` first. Ports 0 everywhere; the children print theirs.
import { Buffer } from "node:buffer";
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { AMQPClient } from "@cloudamqp/amqp-client";

const [messages = 200000, size = 16, runs = 3] = process.argv.slice(2).map(Number);
const defaultMessages = messages;
const HZ = 100;
const self = new URL(import.meta.url).pathname;


async function node(role) {
  // Registered first: a message sent while the broker starts would otherwise be dropped.
  const told = new Promise((r) => process.once("message", r));
  const { startBroker } = await import("../dist/src/start-broker.js");
  const { listenForNodeLinks, connectNodeLink } = await import("../dist/src/node-link/node-link.js");
  const { connect } = await import("node:net");
  const { mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const off = { httpPort: null, prometheusPort: null, mqttPort: null, mqttsPort: null, webMqttPort: null, stompPort: null, stompsPort: null, webStompPort: null, streamPort: null, streamTlsPort: null };
  const running = await startBroker({ amqpPort: 0, ...off, bind: "127.0.0.1", logLevel: "silent", dataDir: mkdtempSync(join(tmpdir(), `link-bench-${role}-`)) });
  const secret = Buffer.from(process.env.LINK_BENCH_SECRET, "hex");
  const spec = { name: "bench-q", durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} };
  if (role === "leader") {
    running.broker.declareQueue({ permissions: running.broker.checkerFor("guest"), owner: null }, "/", spec, false);
    const server = listenForNodeLinks(running.broker, { secret, node: "bench@b" });
    // LINK_BENCH_LINK=unix: the link on a Unix socket, as between `coney --workers` processes (worker-queues.ts).
    const path = process.env.LINK_BENCH_LINK === "unix" ? join(mkdtempSync(join(tmpdir(), "link-bench-sock-")), "b.sock") : null;
    await new Promise((r) => (path === null ? server.listen(0, "127.0.0.1", r) : server.listen(path, r)));
    process.send({ amqp: running.amqpPort, link: path ?? server.address().port });
  } else {
    const { link } = await told;
    const socket = typeof link === "string" ? connect(link) : connect(link, "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    const features = process.env.LINK_BENCH_FEATURES === undefined ? {} : { features: Number(process.env.LINK_BENCH_FEATURES) };
    running.broker.leadQueueElsewhere("/", spec, await connectNodeLink(socket, { secret, node: "bench@a", ...features }));
    process.send({ amqp: running.amqpPort });
  }
}

function start(role, secret) {
  const child = fork(self, [], { env: { ...process.env, LINK_BENCH_ROLE: role, LINK_BENCH_SECRET: secret } });
  return { child, info: new Promise((r) => child.once("message", r)) };
}

/** Write system calls so far (/proc/<pid>/io syscw: every socket write of the process, link and clients): how many messages share a write. */
const writeCalls = (pid) => Number(/syscw: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, "utf8"))[1]);

const cpuTicks = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Number(f[11]) + Number(f[12]);
};
/** Context switches so far (/proc/<pid>/status, voluntary: the process slept in epoll and was woken): event-loop wake-ups. */
const wakeUps = (pid) => Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);
/** Kernel time of a process so far (/proc/<pid>/stat stime): the share of its CPU spent in system calls (socket reads and writes). */
const sysTicks = (pid) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[12]);

async function drive(pubPort, subPort, messages = defaultMessages) {
  const body = Buffer.alloc(size, 7);
  const pubConn = await new AMQPClient(`amqp://guest:guest@127.0.0.1:${pubPort}`).connect();
  const subConn = await new AMQPClient(`amqp://guest:guest@127.0.0.1:${subPort}`).connect();
  const sub = await subConn.channel();
  await sub.prefetch(1000);
  let got = 0;
  const all = new Promise((resolve) => {
    void sub.basicConsume("bench-q", { noAck: false }, (m) => {
      got++;
      if (got % 100 === 0 || got === messages) void sub.basicAck(m.deliveryTag, true);
      if (got === messages) resolve();
    });
  });
  const pub = await pubConn.channel();
  await pub.confirmSelect();
  const inFlight = new Set();
  for (let i = 0; i < messages; i++) {
    const p = pub.basicPublish("", "bench-q", body);
    inFlight.add(p);
    void p.then(() => inFlight.delete(p));
    if (inFlight.size >= 256) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  await all;
  await pubConn.close();
  await subConn.close();
}

async function main() {
  const secret = (await import("node:crypto")).randomBytes(32).toString("hex");
  const b = start("leader", secret);
  const a = start("front", secret);
  const bInfo = await b.info;
  if (process.env.LINK_BENCH_DEBUG) console.error("leader up", bInfo);
  a.child.send({ link: bInfo.link });
  const aInfo = await a.info;
  if (process.env.LINK_BENCH_DEBUG) console.error("front up", aInfo);
  const rows = [];
  const warmup = Number(process.env.LINK_BENCH_WARMUP ?? 0);
  for (const mode of warmup > 0 ? (process.env.LINK_BENCH_MODES ?? "local,forwarded").split(",") : []) {
    await drive(mode === "forwarded" ? aInfo.amqp : bInfo.amqp, mode === "local" ? bInfo.amqp : aInfo.amqp, warmup);
  }
  for (let r = 0; r < runs; r++) {
    for (const mode of (process.env.LINK_BENCH_MODES ?? "local,forwarded").split(",")) {
      const [a0, b0, t0] = [cpuTicks(a.child.pid), cpuTicks(b.child.pid), Date.now()];
      const [aw0, bw0] = [writeCalls(a.child.pid), writeCalls(b.child.pid)];
      const [as0, bs0] = [sysTicks(a.child.pid), sysTicks(b.child.pid)];
      const [ac0, bc0] = [wakeUps(a.child.pid), wakeUps(b.child.pid)];
      // local: both clients on B; forwarded: both on A; crossed: publisher on B, consumer on A.
      const pubPort = mode === "forwarded" ? aInfo.amqp : bInfo.amqp;
      await drive(pubPort, mode === "local" ? bInfo.amqp : aInfo.amqp);
      const [a1, b1, t1] = [cpuTicks(a.child.pid), cpuTicks(b.child.pid), Date.now()];
      const [aw1, bw1] = [writeCalls(a.child.pid), writeCalls(b.child.pid)];
      const [as1, bs1] = [sysTicks(a.child.pid), sysTicks(b.child.pid)];
      const [ac1, bc1] = [wakeUps(a.child.pid), wakeUps(b.child.pid)];
      const cpuUs = (((a1 - a0) + (b1 - b0)) / HZ) * 1e6;
      rows.push({ run: r + 1, mode, msgPerS: Math.round(messages / ((t1 - t0) / 1000)), cpuPerMsgUs: +(cpuUs / messages).toFixed(2), aShare: +((a1 - a0) / Math.max(1, a1 - a0 + b1 - b0)).toFixed(2), msgPerWriteA: +(messages / Math.max(1, aw1 - aw0)).toFixed(1), msgPerWriteB: +(messages / Math.max(1, bw1 - bw0)).toFixed(1), sysUsA: +(((as1 - as0) / HZ) * 1e6 / messages).toFixed(2), sysUsB: +(((bs1 - bs0) / HZ) * 1e6 / messages).toFixed(2), msgPerWakeA: +(messages / Math.max(1, ac1 - ac0)).toFixed(1), msgPerWakeB: +(messages / Math.max(1, bc1 - bc0)).toFixed(1) });
      console.log(JSON.stringify(rows.at(-1)));
    }
  }
  const median = (mode) => {
    const v = rows.filter((x) => x.mode === mode).map((x) => x.cpuPerMsgUs).sort((x, y) => x - y);
    return v[Math.floor(v.length / 2)];
  };
  const crossed = rows.some((x) => x.mode === "crossed") ? { crossedMedianUs: median("crossed"), crossedRatio: +(median("crossed") / median("local")).toFixed(2) } : {};
  console.log(JSON.stringify({ messages, size, runs, localMedianUs: median("local"), forwardedMedianUs: median("forwarded"), ratio: +(median("forwarded") / median("local")).toFixed(2), ...crossed }));
  a.child.kill();
  b.child.kill();
}

// A broker child ends by exiting (not by the signal's default), so `node --cpu-prof scripts/node-link-bench.mjs`
// (the children inherit the flag) writes each broker's profile.
if (process.env.LINK_BENCH_ROLE) process.on("SIGTERM", () => process.exit(0));
if (process.env.LINK_BENCH_ROLE) await node(process.env.LINK_BENCH_ROLE);
else await main();
