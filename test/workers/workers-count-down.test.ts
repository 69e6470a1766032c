// `coney --workers 2` on the data dir of `coney --workers 3` (src/workers/worker-count-change.ts):
// the delayed messages the retired worker held in its own store are released by the workers that
// remain (before, they stayed in a store no worker opened), and the retired dir is moved aside.
// The other way: workers-count-up.test.ts. Real `node bin/coney.js` process trees and amqplib.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { withTimeout } from "../helpers/wait.js";
import { startWorkers, workerOf, type WorkersProcess } from "./workers-harness.js";
import { nodeOfConnection } from "./worker-landing.js";

/**
 * Due well after the second start has served: a delayed message falling due during a workers'
 * start while its target queue's group is still opening on another worker was seen lost (with
 * 4 s here, 3 → 2), a window this test does not cover (docs/CLUSTERING.md, "Changing the number
 * of workers").
 */
const DELAY_MS = 15_000;
const QUEUES = ["cc-q0", "cc-q1", "cc-q2", "cc-q3"];

async function stopKeeping(p: WorkersProcess): Promise<void> {
  p.child.kill("SIGTERM");
  await withTimeout(p.exited, 30_000, "the stop");
}

/** One connection on each worker (connections land where the kernel puts them: opened until every worker has one). */
async function connectionsPerWorker(p: WorkersProcess, workers: number): Promise<Map<string, amqp.ChannelModel>> {
  const found = new Map<string, amqp.ChannelModel>();
  for (let i = 0; i < 60 && found.size < workers; i++) {
    const name = `cc-${Date.now()}-${i}`;
    const c = await amqp.connect(p.amqpUrl, { clientProperties: { connection_name: name } });
    c.on("error", () => {});
    const w = workerOf(await nodeOfConnection(p.httpPort, name));
    if (found.has(w)) await c.close();
    else found.set(w, c);
  }
  assert.equal(found.size, workers, "a connection on every worker");
  return found;
}

describe("coney --workers 2 on the data dir of --workers 3", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-workers-count-"));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("3 → 2: a retired worker's delayed messages are released by the workers that remain", async () => {
    let p = await startWorkers(["--workers", "3"], {}, dataDir);
    let due = 0;
    try {
      const conns = await connectionsPerWorker(p, 3);
      const ch = await conns.get("w0")!.createConfirmChannel();
      await ch.assertExchange("cc-delayed", "x-delayed-message", { durable: true, arguments: { "x-delayed-type": "direct" } });
      await ch.assertQueue("cc-to", { durable: true });
      await ch.bindQueue("cc-to", "cc-delayed", "k");
      for (const q of QUEUES) await ch.assertQueue(q, { durable: true });
      due = Date.now() + DELAY_MS;
      // One delayed message through each worker: each holds its own in its own store.
      for (const [w, c] of conns) {
        const pub = await c.createConfirmChannel();
        pub.publish("cc-delayed", "k", Buffer.from(`held by ${w}`), { persistent: true, headers: { "x-delay": DELAY_MS } });
        await pub.waitForConfirms();
      }
      for (const c of conns.values()) await c.close();
    } finally {
      await stopKeeping(p);
    }

    p = await startWorkers([], {}, dataDir); // the harness's --workers 2
    try {
      const line = await p.logLine((l) => l.msg === "the workers' own dirs fit the number of workers", "the fitting line");
      assert.deepEqual(line["retired_workers"], ["w2"]);
      assert.equal(line["delayed_messages"], 1, "w2's held message moved to w0");
      assert.ok(existsSync(join(dataDir, "nodes-retired", "w2")) && !existsSync(join(dataDir, "nodes", "w2")));
      const c = await amqp.connect(p.amqpUrl);
      c.on("error", () => {});
      const ch = await c.createChannel();
      const got: string[] = [];
      const all = new Promise<void>((resolve) => void ch.consume("cc-to", (m) => {
        if (m !== null && got.push(m.content.toString()) === 3) resolve();
      }, { noAck: true }));
      await withTimeout(all, DELAY_MS + 20_000, "the three delayed messages").catch((err: Error) => {
        throw new Error(`${err.message}; got ${JSON.stringify(got)}`);
      });
      assert.ok(Date.now() >= due, "not released before due");
      assert.deepEqual(got.sort(), ["held by w0", "held by w1", "held by w2"]);
      await c.close();
    } finally {
      await stopKeeping(p);
    }
  });

});
