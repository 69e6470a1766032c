// A durable priority queue pages each priority level to disk on its own: memory stays bounded,
// and the order (highest priority first, FIFO within a priority) holds across paging and a restart.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";

const paging = { maxEntries: 5, maxBytes: 1024 * 1024 };
const COUNT = 60;
const priorityOf = (i: number): number => [0, 3, 1, 7, 2, 9][i % 6]!; // 9 is above x-max-priority 5: counts as 5

/** Highest (capped) priority first, publish order within a priority. */
const expectedOrder = (ids: number[]): number[] =>
  [...ids].sort((a, b) => Math.min(priorityOf(b), 5) - Math.min(priorityOf(a), 5) || a - b);

async function publish(b: TestBroker): Promise<void> {
  const conn = await amqp.connect(b.amqpUrl);
  const ch = await conn.createConfirmChannel();
  await ch.assertQueue("prio", { durable: true, arguments: { "x-max-priority": 5 } });
  for (let i = 0; i < COUNT; i++) ch.sendToQueue("prio", Buffer.from(String(i)), { persistent: true, priority: priorityOf(i) });
  await ch.waitForConfirms();
  await conn.close();
}

async function getAll(b: TestBroker, count: number): Promise<number[]> {
  const conn = await amqp.connect(b.amqpUrl);
  const ch = await conn.createChannel();
  const got: number[] = [];
  for (let i = 0; i < count; i++) {
    const m = await ch.get("prio", { noAck: true });
    assert.ok(m, `message ${i} of ${count}`);
    got.push(Number(m.content.toString()));
  }
  assert.equal(await ch.get("prio", { noAck: true }), false, "nothing left");
  await conn.close();
  return got;
}

describe("priority queues and paging", () => {
  it("page while running, with memory bounded and priority order kept", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-prio-"));
    const b = await startTestBroker({ dataDir, messageStore: { paging } });
    try {
      await publish(b);
      const q = b.broker.vhost("/").queues.get("prio")!;
      assert.equal(q.messageCount, COUNT);
      const inMemory = [...q.readyEntries()].length;
      assert.ok(inMemory <= paging.maxEntries * 6, `at most the limits per level in memory (${inMemory})`);
      assert.ok(q.pagedOutCount >= COUNT - paging.maxEntries * 6, `the rest is paged out (${q.pagedOutCount})`);
      const ids = Array.from({ length: COUNT }, (_, i) => i);
      assert.deepEqual(await getAll(b, COUNT), expectedOrder(ids));
    } finally {
      await b.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("deliver to a consumer in priority order while levels page in and out", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-prio-"));
    const b = await startTestBroker({ dataDir, messageStore: { paging } });
    try {
      await publish(b);
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createChannel();
      await ch.prefetch(1); // one at a time: each delivery is the queue's head at that moment
      const got: number[] = [];
      await new Promise<void>((resolve) => {
        void ch.consume("prio", (m) => {
          if (!m) return;
          got.push(Number(m.content.toString()));
          ch.ack(m);
          if (got.length === COUNT) resolve();
        });
      });
      await conn.close();
      assert.deepEqual(got, expectedOrder(Array.from({ length: COUNT }, (_, i) => i)));
    } finally {
      await b.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("keep priority order over the whole backlog after a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-prio-"));
    try {
      const first = await startTestBroker({ dataDir, messageStore: { paging } });
      await publish(first);
      await first.close();
      const second = await startTestBroker({ dataDir, messageStore: { paging } });
      try {
        assert.equal(second.broker.vhost("/").queues.get("prio")!.persistentCount, COUNT);
        const ids = Array.from({ length: COUNT }, (_, i) => i);
        assert.deepEqual(await getAll(second, COUNT), expectedOrder(ids));
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
