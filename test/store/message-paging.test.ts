// Paging: beyond a queue's in-memory limits messages stay on disk only and come back in order.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker } from "../helpers/broker.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import type { MessageStore } from "../../src/store/message-store.js";
import type { StoredQueueLog } from "../../src/store/stored-queue-log.js";
import { drain } from "./store-harness.js";

const paging = { maxEntries: 50, maxBytes: 1024 * 1024 };

describe("message paging", () => {
  it("keeps at most the limit in memory and delivers everything in publish order, transient ones included", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-paging-"));
    const b = await startTestBroker({ dataDir, messageStore: { paging } });
    const conn = await amqp.connect(b.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("deep", { durable: true });
    const expected: string[] = [];
    for (let i = 0; i < 400; i++) {
      // Every tenth message is transient: once the queue pages, it must not overtake the paged ones.
      const persistent = i % 10 !== 0;
      ch.sendToQueue("deep", Buffer.from(`m${i}`), { persistent, messageId: String(i) });
      expected.push(String(i));
    }
    await ch.waitForConfirms();
    const q = b.broker.vhost("/").queues.get("deep")!;
    assert.equal(q.messageCount, 400);
    const inMemory = [...q.readyEntries()].length;
    // Message 50 is transient and arrives before anything is paged: transient messages stay in memory.
    assert.equal(inMemory, paging.maxEntries + 1, "only the head of the queue is in memory");

    const consumer = await conn.createChannel();
    await consumer.prefetch(20);
    const got = collector<string>(400);
    await consumer.consume("deep", (m) => {
      if (!m) return;
      got.push(String(m.properties.messageId));
      consumer.ack(m);
    });
    assert.deepEqual(await withTimeout(got.done, 10_000, "400 deliveries"), expected);
    await conn.close();
    await b.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("delivers in order while publishing and consuming at once through a paged queue", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-paging-"));
    const b = await startTestBroker({ dataDir, messageStore: { paging: { maxEntries: 20, maxBytes: 1024 * 1024 } } });
    const conn = await amqp.connect(b.amqpUrl);
    const consumer = await conn.createChannel();
    await consumer.assertQueue("flow", { durable: true });
    await consumer.prefetch(10);
    const got = collector<string>(3000);
    await consumer.consume("flow", (m) => {
      if (!m) return;
      got.push(String(m.properties.messageId));
      consumer.ack(m);
    });
    const ch = await conn.createConfirmChannel();
    for (let i = 0; i < 3000; i++) ch.sendToQueue("flow", Buffer.from(`m${i}`), { persistent: i % 7 !== 0, messageId: String(i) });
    await ch.waitForConfirms();
    assert.deepEqual(await withTimeout(got.done, 15_000, "3000 deliveries"), Array.from({ length: 3000 }, (_, i) => String(i)));
    const log = (b.broker.journal as MessageStore).logs.get("/\u0000flow") as StoredQueueLog;
    assert.ok(log.pagedOutTotal > 100, `the queue paged (${log.pagedOutTotal} paged out)`);
    await conn.close();
    await b.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("applies x-max-length drop-head and per-message TTL to paged messages too", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-paging-"));
    const b = await startTestBroker({ dataDir, messageStore: { paging: { maxEntries: 10, maxBytes: 1024 * 1024 } } });
    const conn = await amqp.connect(b.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("capped", { durable: true, arguments: { "x-max-length": 100 } });
    await ch.assertQueue("ttl", { durable: true });
    for (let i = 0; i < 300; i++) {
      ch.sendToQueue("capped", Buffer.from(`m${i}`), { persistent: true, messageId: String(i) });
      ch.sendToQueue("ttl", Buffer.from(`t${i}`), { persistent: true, messageId: String(i), expiration: i < 250 ? "1" : "600000" });
    }
    await ch.waitForConfirms();
    const capped = await drain(ch, "capped");
    assert.deepEqual(capped.map((m) => m.properties.messageId), Array.from({ length: 100 }, (_, i) => String(200 + i)));
    // Messages 0..249 had 1 ms to live: once that has passed, paging them in finds them expired.
    const confirmedAt = Date.now();
    await eventually(() => Date.now() > confirmedAt + 1, 1000, "their TTL to pass");
    const ttl = await drain(ch, "ttl");
    assert.deepEqual(ttl.map((m) => m.properties.messageId), Array.from({ length: 50 }, (_, i) => String(250 + i)));
    await conn.close();
    await b.close();
    const again = await startTestBroker({ dataDir });
    assert.equal(again.broker.vhost("/").queues.get("capped")!.messageCount, 0, "dropped messages stay dropped");
    await again.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("recovers a deep queue as paged refs, then pages it in; purge drops paged messages too", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-paging-"));
    const first = await startTestBroker({ dataDir, messageStore: { paging } });
    const conn = await amqp.connect(first.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("deep", { durable: true });
    await ch.assertQueue("to-purge", { durable: true });
    for (let i = 0; i < 300; i++) {
      ch.sendToQueue("deep", Buffer.alloc(100, i % 256), { persistent: true, messageId: String(i) });
      ch.sendToQueue("to-purge", Buffer.from("x"), { persistent: true });
    }
    await ch.waitForConfirms();
    await conn.close();
    await first.close();

    const second = await startTestBroker({ dataDir, messageStore: { paging } });
    const q = second.broker.vhost("/").queues.get("deep")!;
    assert.equal(q.messageCount, 300);
    // Only the head comes back at boot, so that a TTL on it is timed (QueueContents.recovered).
    assert.equal([...q.readyEntries()].length, 1, "only the head is read into memory at boot");
    const c2 = await amqp.connect(second.amqpUrl);
    const ch2 = await c2.createChannel();
    assert.equal((await ch2.purgeQueue("to-purge")).messageCount, 300);
    const got = await drain(ch2, "deep");
    assert.deepEqual(got.map((m) => m.properties.messageId), Array.from({ length: 300 }, (_, i) => String(i)));
    assert.ok(got.every((m, i) => m.content.equals(Buffer.alloc(100, i % 256))));
    await c2.close();
    await second.close();

    const third = await startTestBroker({ dataDir, messageStore: { paging } });
    assert.equal(third.broker.vhost("/").queues.get("deep")!.messageCount, 0);
    assert.equal(third.broker.vhost("/").queues.get("to-purge")!.messageCount, 0);
    await third.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
});

describe("online compaction", () => {
  it("moves the paged survivors of mostly-consumed segments and deletes those segments, keeping order across a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-compact-"));
    const opts = { dataDir, messageStore: { paging: { maxEntries: 10, maxBytes: 1024 * 1024 }, segmentBytes: 8192, compactEveryMs: 0 } };
    const b = await startTestBroker(opts);
    const conn = await amqp.connect(b.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("slow", { durable: true });
    await ch.assertQueue("fast", { durable: true });
    // Interleaved: one message for the slow queue, three for the fast one, in every segment.
    for (let i = 0; i < 200; i++) {
      ch.sendToQueue("slow", Buffer.alloc(200, i % 256), { persistent: true, messageId: String(i) });
      for (let k = 0; k < 3; k++) ch.sendToQueue("fast", Buffer.alloc(200, 1), { persistent: true });
    }
    await ch.waitForConfirms();
    const fast = await conn.createChannel();
    for (const m of await drain(fast, "fast", false)) fast.ack(m);
    await eventually(() => b.broker.vhost("/").queues.get("fast")!.unacked === 0, 5000, "fast queue acked");
    const store = b.broker.journal as MessageStore;
    await store.sync();
    const segs = (): number => readdirSync(join(dataDir, "messages")).filter((f) => f.endsWith(".seg")).length;
    const before = segs();
    const deletedBefore = store.stats.segmentsDeleted;
    const compacted = store.compact(0.5, Infinity);
    // Every full segment is a quarter live. Not candidates: the newest (being written), and the
    // first two, which hold the slow queue's in-memory head (entries the store cannot re-point).
    assert.ok(compacted >= before - 4, `compacted ${compacted} of ${before} segments`);
    await store.sync();
    await eventually(() => store.stats.segmentsDeleted - deletedBefore >= compacted, 5000, "compacted segments deleted");
    // The survivors now fill about a quarter of the space they held.
    assert.ok(segs() <= Math.ceil(before / 4) + 2, `${segs()} segment files left of ${before}`);
    await conn.close();
    await b.close();

    const again = await startTestBroker(opts);
    const c2 = await amqp.connect(again.amqpUrl);
    const ch2 = await c2.createChannel();
    const got = await drain(ch2, "slow");
    assert.deepEqual(got.map((m) => m.properties.messageId), Array.from({ length: 200 }, (_, i) => String(i)));
    assert.ok(got.every((m, i) => m.content.equals(Buffer.alloc(200, i % 256))));
    assert.equal((await drain(ch2, "fast")).length, 0);
    await c2.close();
    await again.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
});
