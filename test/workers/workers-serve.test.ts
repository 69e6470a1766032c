// `coney --workers 2` (preview): both workers serve on the shared ports, every listener shared but
// Prometheus (one per worker), /api/nodes on any worker lists both with their own process figures,
// and a dead worker (kill -9, or silent past 3 heartbeats) is restarted with its groups reassigned.
import { hostname } from "node:os";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import amqp from "amqplib";
import { makeTestCa } from "../helpers/test-ca.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { startWorkers, workerOf, type WorkersProcess } from "./workers-harness.js";

interface NodeRecord {
  name: string;
  running: boolean;
  os_pid: string;
  uptime: number;
  mem_used: number;
  fd_used: number;
  sockets_used: number;
  queue_groups: string[];
}

describe("coney --workers 2", () => {
  let p: WorkersProcess;
  const connections: amqp.ChannelModel[] = [];
  const ca = makeTestCa();
  before(async () => {
    const tls = ["--tls-cert", ca.serverCert, "--tls-key", ca.serverKey, "--amqps-port", "0", "--mqtts-port", "0", "--stomps-port", "0", "--stream-tls-port", "0"];
    p = await startWorkers(tls);
  });
  after(async () => {
    // Their workers were killed by the tests below: close what is still open, never wait on the dead.
    for (const c of connections) await withTimeout(c.close(), 5000, "a connection's close").catch(() => {});
    await p.close();
    rmSync(ca.dir, { recursive: true, force: true });
  });

  const nodes = async (): Promise<NodeRecord[]> => {
    const res = await p.api("GET", "/api/nodes");
    assert.equal(res.status, 200);
    return res.json as NodeRecord[];
  };

  it("shares every client listener between both workers; Prometheus is one port per worker", async () => {
    const workers = p.lines.filter((l) => l.msg === "worker serving").length;
    assert.equal(workers, 2);
    const portsOf = (msg: string): number[] => [...new Set(p.lines.filter((l) => l.msg === msg && typeof l["node"] === "string").map((l) => l["port"] as number))];
    const kinds = [...new Set(p.lines.filter((l) => l.msg.endsWith(" listener started")).map((l) => l.msg))];
    for (const msg of ["AMQP 0-9-1", "AMQPS", "management API", "MQTT", "MQTTS", "Web MQTT", "STOMP", "STOMP over TLS", "Web STOMP", "stream protocol", "stream protocol over TLS"].map((m) => `${m} listener started`)) {
      assert.ok(kinds.includes(msg), `${msg}: logged (listeners seen: ${kinds.join("; ")})`);
    }
    for (const msg of kinds.filter((k) => !k.startsWith("Prometheus"))) {
      const lines = p.lines.filter((l) => l.msg === msg);
      assert.equal(lines.length, 2, `${msg}: one line per worker`);
      assert.equal(portsOf(msg).length, 1, `${msg}: one port for both workers`);
    }
    // The shared TLS port serves: an AMQPS connection through the primary's handle.
    const amqps = await amqp.connect(`amqps://guest:guest@127.0.0.1:${portsOf("AMQPS listener started")[0]}`, { ca: [readFileSync(ca.caCert)] });
    await amqps.close();
    assert.equal(portsOf("AMQP 0-9-1 listener started")[0], p.amqpPort);
    const prometheus = portsOf("Prometheus metrics listener started");
    assert.equal(prometheus.length, 2, "each worker its own Prometheus port");
    const started = p.lines.find((l) => l.msg === "Coney started")!;
    assert.deepEqual([...(started["prometheus_ports"] as number[])].sort(), [...prometheus].sort());
  });

  it("lists both workers in /api/nodes with their own pid and figures, and AMQP connections land on both", async () => {
    const list = await nodes();
    assert.deepEqual(list.map((n) => workerOf(n.name)), ["w0", "w1"]);
    assert.ok(list.every((n) => n.name.endsWith(`@${hostname()}`)), "the real host after the @ (name-w<i>@host)");
    const forked = p.lines.filter((l) => l.msg === "worker started").map((l) => String(l["pid"]));
    assert.deepEqual(list.map((n) => n.os_pid).sort(), forked.sort(), "the pids the primary forked");
    assert.ok(!forked.includes(String(p.child.pid)), "the primary runs no broker");
    for (const n of list) {
      assert.equal(n.running, true);
      assert.ok(n.uptime > 0 && n.mem_used > 0 && n.fd_used > 0, `${n.name}: figures read in its process`);
      assert.equal(n.queue_groups.length, 8, `${n.name}: half of the 16 groups`);
    }
    // node:cluster hands connections out round-robin: a few land on each worker.
    await eventually(async () => {
      const c = await amqp.connect(p.amqpUrl);
      c.on("error", () => {});
      connections.push(c);
      const counts = (await nodes()).map((n) => n.sockets_used);
      return counts.every((c) => c > 0);
    }, 30_000, "an AMQP connection on each worker");
    assert.ok(connections.length <= 10, `${connections.length} connections before both workers had one`);
    const one = await p.api("GET", `/api/nodes/${encodeURIComponent(list[1]!.name)}`);
    assert.equal(one.status, 200);
    assert.equal(one.json.os_pid, list[1]!.os_pid);
    assert.equal((await p.api("GET", `/api/nodes/${encodeURIComponent("coney-w9@nowhere")}`)).status, 404);
  });

  it("lists every worker's listeners in /api/overview, as RabbitMQ lists every node's", async () => {
    const res = await p.api("GET", "/api/overview");
    assert.equal(res.status, 200);
    const listeners = res.json.listeners as Array<{ node: string; protocol: string; port: number }>;
    const names = (await nodes()).map((n) => n.name);
    for (const name of names) {
      const own = listeners.filter((l) => l.node === name);
      assert.deepEqual(own.find((l) => l.protocol === "amqp")?.port, p.amqpPort, `${name}: the shared AMQP port`);
      assert.ok(own.some((l) => l.protocol === "http/prometheus"), `${name}: its own Prometheus port`);
    }
    const prometheus = listeners.filter((l) => l.protocol === "http/prometheus").map((l) => l.port);
    assert.equal(new Set(prometheus).size, 2);
  });

  it("restarts a worker killed -9, reassigns its groups under new epochs in workers.json, and rebalances when it is back", async () => {
    const before = p.workersJson();
    const w1 = (await nodes()).find((n) => workerOf(n.name) === "w1")!;
    const lost = before.groups.filter((g) => g.worker === "w1").map((g) => g.group);
    const from = p.lines.length;
    process.kill(Number(w1.os_pid), "SIGKILL");
    const exit = await p.logLine((l) => l.msg === "worker exited; restarting it" && l["worker"] === "w1", "the primary seeing w1 exit", 30_000, from);
    assert.equal(exit["signal"], "SIGKILL");
    await p.logLine((l) => l.msg === "queue groups of an exited worker reassigned", "w1's groups reassigned", 30_000, from);
    await p.logLine((l) => l.msg === "queue groups rebalanced", "the rebalance once w1 is back", 60_000, from);
    const now = p.workersJson();
    assert.ok(now.version >= before.version + 3, "reassigned, revoked, assigned");
    for (const g of now.groups) {
      const was = before.groups.find((b) => b.group === g.group)!;
      if (lost.includes(g.group)) assert.ok(g.epoch >= was.epoch + 1, `${g.group} left w1: a new epoch`);
      if (g.worker === "w1") assert.ok(g.epoch > was.epoch, `${g.group} back on w1 under a new epoch`);
    }
    assert.deepEqual(["w0", "w1"].map((w) => now.groups.filter((g) => g.worker === w).length), [8, 8]);
    await eventually(async () => {
      const back = (await nodes()).find((n) => workerOf(n.name) === "w1")!;
      return back.running && back.os_pid !== w1.os_pid;
    }, 30_000, "/api/nodes showing w1 back with a new pid");
  });

  it("kills a worker that stops answering heartbeats (3 × 1 s), then restarts it", async () => {
    const w0 = (await nodes()).find((n) => workerOf(n.name) === "w0")!;
    const from = p.lines.length;
    process.kill(Number(w0.os_pid), "SIGSTOP");
    const missed = await p.logLine((l) => l.msg === "worker missed its heartbeats; killing it" && l["worker"] === "w0", "the primary noticing w0's silence", 30_000, from);
    assert.ok((missed["silent_ms"] as number) > 3000);
    const exit = await p.logLine((l) => l.msg === "worker exited; restarting it" && l["worker"] === "w0", "w0's exit", 30_000, from);
    assert.equal(exit["signal"], "SIGKILL");
    assert.equal(exit["killed_by_primary"], true);
    await p.logLine((l) => l.msg === "worker serving" && l["worker"] === "w0", "w0 back", 60_000, from);
    const list = await nodes();
    assert.ok(list.every((n) => n.running));
    assert.notEqual(list.find((n) => workerOf(n.name) === "w0")!.os_pid, w0.os_pid);
  });
});
