// `coney --workers 3` on the data dir of `coney --workers 2` (src/workers/worker-count-change.ts):
// the new worker's dir gets the definitions, so a client landing on it finds every queue (before,
// it found none: `NOT_FOUND - no queue`). The other way: workers-count-down.test.ts. Real
// `node bin/coney.js` process trees and amqplib.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { withTimeout } from "../helpers/wait.js";
import { startWorkers, workerOf, type WorkersProcess } from "./workers-harness.js";
import { nodeOfConnection } from "./worker-landing.js";

const QUEUES = ["cu-q0", "cu-q1", "cu-q2", "cu-q3"];

describe("coney --workers 3 on the data dir of --workers 2", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-workers-up-"));
  let p: WorkersProcess | null = null;
  after(async () => {
    await p?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the new worker knows every queue, whichever worker a client lands on", async () => {
    p = await startWorkers([], {}, dataDir); // the harness's --workers 2
    const c = await amqp.connect(p.amqpUrl);
    c.on("error", () => {});
    const ch = await c.createChannel();
    for (const q of QUEUES) await ch.assertQueue(q, { durable: true });
    await ch.assertExchange("cu-x", "topic", { durable: true });
    await c.close();
    p.child.kill("SIGTERM");
    await withTimeout(p.exited, 30_000, "the stop");

    p = await startWorkers(["--workers", "3"], {}, dataDir);
    const line = await p.logLine((l) => l.msg === "the workers' own dirs fit the number of workers", "the fitting line");
    assert.deepEqual(line["new_workers"], ["w2"]);
    assert.ok(readdirSync(join(dataDir, "nodes")).includes("w2"));
    // One connection on each worker (connections land where the kernel puts them: opened until every worker has one).
    const seen = new Set<string>();
    for (let i = 0; i < 60 && seen.size < 3; i++) {
      const name = `cu-${i}`;
      const conn = await amqp.connect(p.amqpUrl, { clientProperties: { connection_name: name } });
      conn.on("error", () => {});
      const w = workerOf(await nodeOfConnection(p.httpPort, name));
      if (!seen.has(w)) {
        seen.add(w);
        const check = await conn.createChannel();
        for (const q of QUEUES) await check.checkQueue(q).catch((err: Error) => assert.fail(`${w}: ${q}: ${err.message}`));
        await check.checkExchange("cu-x").catch((err: Error) => assert.fail(`${w}: cu-x: ${err.message}`));
      }
      await conn.close();
    }
    assert.equal(seen.size, 3, "a connection on every worker");
  });
});
