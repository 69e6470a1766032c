// A data dir of the `coney --workers N` build before queue groups moved: each worker's broker kept
// its queues' messages in its own store (`<data>/nodes/w<i>/messages`, streams beside it). The
// primary moves them into the groups' stores before any worker runs, and marks each worker dir
// done: every confirmed message and every stream entry is there after the upgrade, once.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp, { type ChannelModel, type ConsumeMessage } from "amqplib";
import { startTestBroker } from "../helpers/broker.js";
import { withTimeout } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";

const QUEUES = ["lg-0", "lg-1", "lg-2", "lg-3", "lg-4", "lg-5"];
const STREAM = "lg-stream";

/** One old worker's broker on its own dir: every queue declared (definitions were everywhere), messages only in `mine`. */
async function oldWorker(dir: string, mine: readonly string[], stream: boolean): Promise<void> {
  const b = await startTestBroker({ dataDir: dir, httpPort: null });
  const c = await amqp.connect(b.amqpUrl);
  c.on("error", () => {});
  const ch = await c.createConfirmChannel();
  for (const q of QUEUES) await ch.assertQueue(q, { durable: true });
  await ch.assertQueue(STREAM, { durable: true, arguments: { "x-queue-type": "stream" } });
  for (const q of mine) for (let k = 0; k < 10; k++) ch.sendToQueue(q, Buffer.from(`${q}:${k}`), { persistent: true });
  if (stream) for (let k = 0; k < 25; k++) ch.sendToQueue(STREAM, Buffer.from(`s:${k}`), { persistent: true });
  await ch.waitForConfirms();
  await c.close();
  await b.close();
}

describe("coney --workers 2 on a data dir of the build before queue groups moved", () => {
  let p: WorkersProcess;
  let conn: ChannelModel;
  const dataDir = mkdtempSync(join(tmpdir(), "coney-legacy-workers-"));

  before(async () => {
    await oldWorker(join(dataDir, "nodes", "w0"), QUEUES.slice(0, 3), false);
    await oldWorker(join(dataDir, "nodes", "w1"), QUEUES.slice(3), true);
    p = await startWorkers([], {}, dataDir);
    conn = await amqp.connect(p.amqpUrl);
    conn.on("error", () => {});
  });
  after(async () => {
    await withTimeout(conn.close(), 2000, "close").catch(() => {});
    await p.close();
  });

  it("moves every old worker's messages into the groups' stores, once, and marks the worker dirs", async () => {
    const moved = await p.logLine((l) => l.msg.startsWith("messages of the workers' own stores moved"), "the migration's line");
    assert.equal(moved["messages"], 60);
    assert.equal(moved["streams"], 1);
    assert.equal(moved["workers"], 2);
    for (const w of ["w0", "w1"]) assert.ok(existsSync(join(dataDir, "nodes", w, "groups-migrated")), `${w} marked`);
    const ch = await conn.createChannel();
    for (const q of QUEUES) {
      const bodies: string[] = [];
      for (let m = await ch.get(q, { noAck: true }); m !== false; m = await ch.get(q, { noAck: true })) bodies.push(m.content.toString());
      assert.deepEqual(bodies, Array.from({ length: 10 }, (_, k) => `${q}:${k}`), `${q}: its messages, in order, once`);
    }
    await ch.close();
  });

  it("keeps a stream's entries and offsets (its directory moved into its group's)", async () => {
    const ch = await conn.createChannel();
    await ch.prefetch(50);
    const got: Array<{ body: string; offset: unknown }> = [];
    await withTimeout(new Promise<void>((resolve) => {
      void ch.consume(STREAM, (m: ConsumeMessage | null) => {
        if (m === null) return;
        got.push({ body: m.content.toString(), offset: m.properties.headers?.["x-stream-offset"] });
        ch.ack(m);
        if (got.length === 25) resolve();
      }, { arguments: { "x-stream-offset": "first" } });
    }), 15_000, "the stream's 25 entries");
    assert.deepEqual(got.map((g) => g.body), Array.from({ length: 25 }, (_, k) => `s:${k}`));
    assert.deepEqual(got.map((g) => Number(g.offset)), Array.from({ length: 25 }, (_, k) => k));
    await ch.close();
  });
});
