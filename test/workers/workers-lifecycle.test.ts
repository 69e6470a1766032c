// `coney --workers 2`: SIGTERM to the primary stops every worker and exits 0; the primary killed
// -9 leaves no worker behind (each exits when its IPC channel closes); without the preview switch
// N > 1 refuses to start, saying why.
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../helpers/wait.js";
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

  it("refuses N > 1 without the preview switch, naming why", () => {
    const env = { ...process.env };
    delete env["CONEY_WORKERS_PREVIEW"];
    const res = spawnSync(process.execPath, [bin, "--workers", "2", "--in-memory", "--amqp-port", "0", "--http-port", "off"], { env, encoding: "utf8", timeout: 30_000 });
    assert.equal(res.status, 64);
    assert.match(res.stderr, /coney: --workers > 1: queues are not yet spread across workers \(issue 42\)/);
  });
});
