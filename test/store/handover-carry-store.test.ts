// A planned hand-over writes what only memory holds into the queue's store (operations/queue-carry.ts,
// MessageQueue.storeForHandOver), so the store's next reader — the group's next leader under
// `--workers`, here the same data dir started again — finds every message in queue order: a paged
// durable queue with transient messages in memory and in its paged-out tail, and a priority queue.
// The workers test (test/workers/workers-handover-carry.test.ts) moves groups between real workers;
// this one reaches the paging and priority cases, which need small paging limits.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp, { type ConsumeMessage } from "amqplib";
import { startTestBroker } from "../helpers/broker.js";
import { collector, withTimeout } from "../helpers/wait.js";
import { carryOnHandOver } from "../../src/broker/index.js";
import type { MessageStore } from "../../src/store/message-store.js";
import type { StoredQueueLog } from "../../src/store/stored-queue-log.js";

const paging = { maxEntries: 10, maxBytes: 1024 * 1024 };

describe("a planned hand-over carries a queue's unstored messages through its store", () => {
  it("a paged durable queue and a priority queue: every message once, in queue order, a requeued one flagged", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-carry-"));
    // Closed in `finally` too, so a failed assertion does not leave the file running.
    const closers: Array<() => Promise<void>> = [];
    try {
      const b = await startTestBroker({ dataDir, messageStore: { paging } });
      const conn = await amqp.connect(b.amqpUrl);
      closers.push(() => conn.close(), () => b.close());
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("deep", { durable: true });
      await ch.assertQueue("prio", { durable: true, arguments: { "x-max-priority": 3 } });
      // 40 messages, every third persistent: most of them paged out, transient ones among them.
      for (let i = 0; i < 40; i++) ch.sendToQueue("deep", Buffer.from(`d${i}`), { persistent: i % 3 === 0 });
      for (let i = 0; i < 12; i++) ch.sendToQueue("prio", Buffer.from(`p${i}`), { persistent: i % 2 === 0, priority: i % 4 });
      await ch.waitForConfirms();
      const m = await ch.get("deep", { noAck: false });
      assert.ok(m !== false);
      ch.nack(m, false, true);
      assert.equal((await ch.checkQueue("deep")).messageCount, 40);
      await conn.close();
      closers.length = 0;
      closers.push(() => b.close());

      const v = b.broker.vhost("/");
      const log = (b.broker.journal as MessageStore).logs.get("/\u0000deep") as StoredQueueLog;
      assert.ok(log.pagedTransientCount > 0 && [...v.queues.get("deep")!.readyEntries()].some((e) => !e.message.persistent), "transient messages in memory and paged out");
      let written = 0;
      for (const name of ["deep", "prio"]) {
        const q = v.queues.get(name)!;
        q.handOver();
        written += carryOnHandOver(b.broker.journal!, "/", q, 0);
      }
      assert.equal(written, 52, "every message of both queues written again in order");
      closers.length = 0;
      await b.close();

      const again = await startTestBroker({ dataDir, messageStore: { paging } });
      const c2 = await amqp.connect(again.amqpUrl);
      closers.push(() => c2.close(), () => again.close());
      const consumer = await c2.createChannel();
      await consumer.prefetch(100);
      const take = async (q: string, n: number): Promise<Array<{ body: string; redelivered: boolean }>> => {
        const got = collector<{ body: string; redelivered: boolean }>(n);
        await consumer.consume(q, (d: ConsumeMessage | null) => {
          if (!d) return;
          got.push({ body: d.content.toString(), redelivered: d.fields.redelivered });
          consumer.ack(d);
        });
        return withTimeout(got.done, 10_000, `${n} messages of ${q}`);
      };
      const deep = await take("deep", 40);
      assert.deepEqual(deep.map((d) => d.body), Array.from({ length: 40 }, (_, i) => `d${i}`), "the durable queue in order, transient ones included");
      assert.deepEqual(deep.map((d) => d.redelivered), deep.map((_, i) => i === 0), "only the requeued head flagged redelivered");
      const prio = await take("prio", 12);
      // Highest priority first, publish order within a priority.
      const expected = Array.from({ length: 12 }, (_, i) => i).sort((a, b) => (b % 4) - (a % 4) || a - b).map((i) => `p${i}`);
      assert.deepEqual(prio.map((d) => d.body), expected, "the priority queue in priority order");
      assert.equal((await consumer.checkQueue("deep")).messageCount, 0);
    } finally {
      for (const close of closers) await close().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
