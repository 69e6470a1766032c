#!/usr/bin/env node
// Paired A/B of queue.declare on a two-node spread cluster (docs/PERFORMANCE.md, "Declares on a
// spread node with definitions in etcd's order"): two builds (each a checkout with `dist/` built),
// each running its own etcd and two `--cluster-mode spread` nodes (src/bench/local-cluster.ts); in
// alternating order, rounds of N non-durable queues declared through C channels of one amqplib
// connection to node0 (coney-perf's `declare` scenario, in slices), then deleted. Prints the time per
// declare of each build, median and every round. On a shared machine the rounds alternate so both
// builds see the same load.
//   node scripts/spread-declare-ab.mjs <build A dir> <build B dir> [perRound=300] [rounds=12] [channels=10]
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";

const [dirA, dirB, perRound = "300", rounds = "12", channels = "10"] = process.argv.slice(2);
if (dirA === undefined || dirB === undefined) throw new Error("usage: spread-declare-ab.mjs <build A dir> <build B dir> [perRound] [rounds] [channels]");
const amqp = createRequire(import.meta.url)("amqplib");
const builds = [resolve(dirA), resolve(dirB)];
const clusters = await Promise.all(builds.map(async (dir) => new (await import(`${dir}/dist/src/bench/local-cluster.js`)).LocalCluster(2, "/usr/bin/etcd", 5, "spread")));
const times = builds.map(() => []);
const n = Number(perRound);
const c = Number(channels);
try {
  for (const cl of clusters) await cl.start();
  const chans = [];
  for (const cl of clusters) {
    const conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${cl.nodes[0].amqpPort}`);
    conn.on("error", () => {});
    chans.push(await Promise.all(Array.from({ length: c }, () => conn.createChannel())));
  }
  const each = (k, r, op) => Promise.all(chans[k].map(async (ch, j) => { for (let i = j; i < n; i += c) await op(ch, `ab-${r}-${i}`); }));
  for (let r = 0; r < Number(rounds); r++) {
    for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const t0 = performance.now();
      await each(k, r, (ch, q) => ch.assertQueue(q, { durable: false }));
      times[k].push((performance.now() - t0) / n);
      await each(k, r, (ch, q) => ch.deleteQueue(q));
    }
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  for (const [k, dir] of builds.entries()) console.log(`${dir}: ms per declare, median ${median(times[k]).toFixed(2)}; rounds ${times[k].map((x) => x.toFixed(2)).join(" ")}`);
} finally {
  for (const cl of clusters) await cl.close();
}
process.exit(0);
