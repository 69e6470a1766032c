// `coney --workers 2`: SIGTERM to the primary stops every worker and exits 0; the primary killed
// -9 leaves no worker behind (each exits when its IPC channel closes); with --etcd-endpoints in
// the replicated mode N > 1 refuses to start, naming --cluster-mode spread.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually, withTimeout } from "../helpers/wait.js";
import { alive, startWorkers } from "./workers-harness.js";

const bin = new URL("../../../bin/coney.js", import.meta.url).pathname;

describe("coney --workers 2: the primary's life", () => {
  it("SIGTERM stops every worker gracefully, then the primary exits 0", async () => {
    const p = await startWorkers();
    try {
      const pids = p.lines.filter((l) => l.msg === "worker started").map((l) => l["pid"] as number);
      assert.equal(pids.length, 2);
      p.child.kill("SIGTERM");
      const { code } = await p.exited;
      assert.equal(code, 0);
      for (const w of ["w0", "w1"]) assert.ok(p.lines.some((l) => l.msg === "worker stopped" && l["worker"] === w && l["code"] === 0), `${w} stopped with 0`);
      assert.ok(p.lines.some((l) => l.msg === "broker stopped"), "the brokers closed their stores");
      for (const pid of pids) assert.equal(alive(pid), false, `worker ${pid} gone`);
    } finally {
      await p.close();
    }
  });

  it("the primary killed -9: every worker exits (no orphans)", async () => {
    const p = await startWorkers();
    try {
      const pids = p.lines.filter((l) => l.msg === "worker started").map((l) => l["pid"] as number);
      p.child.kill("SIGKILL");
      await p.exited;
      await eventually(() => pids.every((pid) => !alive(pid)), 30_000, "the workers exiting after their primary");
    } finally {
      await p.close();
    }
  });

  it("a worker that cannot start (its AMQP port taken) fails the start: every worker stopped, exit 1, the reason logged", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const off = ["--http-port", "off", "--prometheus-port", "off", "--mqtt-port", "off", "--web-mqtt-port", "off", "--stomp-port", "off", "--web-stomp-port", "off", "--stream-port", "off"];
      const child = spawn(process.execPath, [bin, "--workers", "2", "--in-memory", "--bind", "127.0.0.1", "--amqp-port", String(port), ...off, "--log-format", "json"], { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const [code] = (await withTimeout(once(child, "exit"), 60_000, "the primary's exit")) as [number | null];
      assert.equal(code, 1);
      assert.match(stderr, /coney worker: cannot listen on port \d+ \(127\.0\.0\.1\), set by --amqp-port: the address is already in use/);
      assert.match(stderr, /coney: worker w\d exited before serving/);
      const pids = [...stderr.matchAll(/"msg":"worker started","worker":"w\d","pid":(\d+)/g)].map((m) => Number(m[1]));
      assert.equal(pids.length, 2);
      for (const pid of pids) assert.equal(alive(pid), false, `worker ${pid} gone`);
    } finally {
      taken.close();
    }
  });

  it("refuses N > 1 with --etcd-endpoints in the replicated mode (one leader for everything), naming --cluster-mode spread", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-workers-etcd-"));
    try {
      const res = spawnSync(process.execPath, [bin, "--workers", "2", "--data-dir", dataDir, "--amqp-port", "0", "--http-port", "off", "--etcd-endpoints", "http://127.0.0.1:1"], { encoding: "utf8", timeout: 30_000 });
      assert.equal(res.status, 64);
      assert.match(res.stderr, /coney: --workers 2 with --etcd-endpoints needs --cluster-mode spread \(each worker a node homing its own queues\); --cluster-mode replicated has one leader for every queue, so it runs one worker/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
