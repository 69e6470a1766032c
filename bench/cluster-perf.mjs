#!/usr/bin/env node
// coney-perf's persistent+confirm scenario on a 3-node loopback cluster (etcd + three
// `node bin/coney.js` processes) against a single node, in one run and one table.
// Usage: npm run build && node bench/cluster-perf.mjs [seconds]
// Everything runs on ephemeral loopback ports and is removed afterwards. The cluster is started
// with the test suite's fixture (dist/test/cluster/cluster-fixture.js).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { TestCluster, freePort } from "../dist/test/cluster/cluster-fixture.js";

const seconds = process.argv[2] ?? "5";
const cluster = new TestCluster(3, 5);
const singleDir = mkdtempSync(join(tmpdir(), "coney-single-"));
let single = null;
try {
  await cluster.start();
  await cluster.waitForInSync(3);
  const leader = await cluster.waitForLeader();
  const follower = cluster.nodes.find((n) => n !== leader);
  const amqpPort = await freePort();
  single = spawn(process.execPath, ["bin/coney.js", "--amqp-port", String(amqpPort), "--http-port", "off", "--bind", "127.0.0.1", "--data-dir", singleDir, "--log-level", "error"], { stdio: "ignore" });
  await sleep(1500);
  const perf = (uri, name, compareUri, compareName) =>
    spawnSync(process.execPath, ["bin/coney-perf.js", "all", "--only", "persistent", "-z", seconds, "--uri", uri, "--name", name, "--compare-uri", compareUri, "--compare-name", compareName], { stdio: "inherit" });
  perf(cluster.url(leader), "3-node cluster, via the leader", `amqp://guest:guest@127.0.0.1:${amqpPort}`, "single node");
  perf(cluster.url(follower), "3-node cluster, via a follower", `amqp://guest:guest@127.0.0.1:${amqpPort}`, "single node");
} finally {
  single?.kill("SIGKILL");
  await cluster.close();
  rmSync(singleDir, { recursive: true, force: true });
}
