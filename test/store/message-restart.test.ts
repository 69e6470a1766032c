// Persistent messages in durable queues survive a clean restart; everything else does not.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { mustGet } from "../helpers/amqplib-get.js";
import { txRpc } from "../helpers/amqplib-tx.js";
import { startTestBroker } from "../helpers/broker.js";
import { eventually } from "../helpers/wait.js";
import type { MessageStore } from "../../src/store/message-store.js";
import { drain } from "./store-harness.js";

const tmp = (): string => mkdtempSync(join(tmpdir(), "coney-msgs-"));
const storeOf = (b: { broker: { journal: unknown } }): MessageStore => b.broker.journal as MessageStore;

describe("persistent messages across a clean restart", () => {
  it("keeps persistent messages of durable queues with properties and order; drops transient ones and non-durable queues", async () => {
    const dataDir = tmp();
    const first = await startTestBroker({ dataDir });
    const conn = await amqp.connect(first.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("durable-q", { durable: true });
    await ch.assertQueue("transient-q", { durable: false });
    for (let i = 0; i < 20; i++) {
      ch.sendToQueue("durable-q", Buffer.from(`p${i}`), {
        persistent: true,
        messageId: `id-${i}`,
        contentType: "text/plain",
        headers: { n: i, tag: "x" },
        priority: 3,
        correlationId: "c",
        expiration: "600000",
        timestamp: 1700000000,
      });
      ch.sendToQueue("durable-q", Buffer.from(`t${i}`), { persistent: false });
      ch.sendToQueue("transient-q", Buffer.from(`n${i}`), { persistent: true });
    }
    await ch.waitForConfirms();
    await conn.close();
    await first.close();

    const second = await startTestBroker({ dataDir });
    const v = second.broker.vhost("/");
    assert.ok(!v.queues.has("transient-q"));
    assert.equal(v.queues.get("durable-q")?.messageCount, 20);
    const c2 = await amqp.connect(second.amqpUrl);
    const ch2 = await c2.createChannel();
    const got = await drain(ch2, "durable-q");
    assert.deepEqual(got.map((m) => m.content.toString()), Array.from({ length: 20 }, (_, i) => `p${i}`));
    const m7 = got[7]!;
    assert.equal(m7.properties.messageId, "id-7");
    assert.equal(m7.properties.contentType, "text/plain");
    assert.deepEqual(m7.properties.headers, { n: 7, tag: "x" });
    assert.equal(m7.properties.deliveryMode, 2);
    assert.equal(m7.properties.priority, 3);
    assert.equal(m7.properties.timestamp, 1700000000);
    assert.equal(m7.fields.redelivered, false, "never delivered before the stop");
    await c2.close();
    await second.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("does not redeliver acked messages, and marks unacked-before-stop ones redelivered", async () => {
    const dataDir = tmp();
    const first = await startTestBroker({ dataDir });
    const conn = await amqp.connect(first.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("work", { durable: true });
    for (let i = 0; i < 10; i++) ch.sendToQueue("work", Buffer.from(String(i)), { persistent: true });
    await ch.waitForConfirms();
    const consumer = await conn.createChannel();
    for (let i = 0; i < 3; i++) consumer.ack(await mustGet(consumer, "work")); // 0..2 acked
    consumer.nack(await mustGet(consumer, "work"), false, false); // 3 rejected for good
    await consumer.get("work", { noAck: true }); // 4 consumed without ack mode
    await consumer.get("work"); // 5 and 6 held unacked when the broker stops
    await consumer.get("work");
    await consumer.assertQueue("purged", { durable: true });
    ch.sendToQueue("purged", Buffer.from("gone"), { persistent: true });
    await ch.waitForConfirms();
    await consumer.purgeQueue("purged");
    await consumer.assertQueue("deleted", { durable: true });
    ch.sendToQueue("deleted", Buffer.from("gone"), { persistent: true });
    await ch.waitForConfirms();
    await consumer.deleteQueue("deleted");
    await consumer.assertQueue("deleted", { durable: true });
    await first.close();

    const second = await startTestBroker({ dataDir });
    const c2 = await amqp.connect(second.amqpUrl);
    const ch2 = await c2.createChannel();
    const got = await drain(ch2, "work");
    assert.deepEqual(got.map((m) => [m.content.toString(), m.fields.redelivered]), [
      ["5", true],
      ["6", true],
      ["7", false],
      ["8", false],
      ["9", false],
    ]);
    assert.equal((await drain(ch2, "purged")).length, 0, "purged messages stay purged");
    assert.equal((await drain(ch2, "deleted")).length, 0, "a deleted queue's messages do not come back in its successor");
    await c2.close();
    await second.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("commits transactions to disk and groups many publishers' confirms into few fsyncs", async () => {
    const dataDir = tmp();
    const first = await startTestBroker({ dataDir });
    const conns = await Promise.all([0, 1, 2].map(() => amqp.connect(first.amqpUrl)));
    const chans = await Promise.all(conns.map((c) => c.createConfirmChannel()));
    await chans[0]!.assertQueue("grouped", { durable: true });
    const store = storeOf(first);
    const syncsBefore = store.stats.syncs;
    await Promise.all(
      chans.map(async (ch, k) => {
        for (let i = 0; i < 300; i++) ch.sendToQueue("grouped", Buffer.from(`${k}:${i}`), { persistent: true });
        await ch.waitForConfirms();
      }),
    );
    const syncs = store.stats.syncs - syncsBefore;
    assert.ok(syncs > 0 && syncs <= 900 / 5, `900 confirmed messages took ${syncs} fsyncs`);
    const txc = await conns[0]!.createChannel();
    await txc.assertQueue("tx-q", { durable: true });
    await txRpc(txc, "txSelect");
    for (let i = 0; i < 5; i++) txc.sendToQueue("tx-q", Buffer.from(`tx${i}`), { persistent: true });
    await txRpc(txc, "txCommit");
    txc.sendToQueue("tx-q", Buffer.from("rolled back"), { persistent: true });
    await txRpc(txc, "txRollback");
    for (const c of conns) await c.close();
    await first.close();

    const second = await startTestBroker({ dataDir });
    assert.equal(second.broker.vhost("/").queues.get("grouped")?.messageCount, 900);
    const c2 = await amqp.connect(second.amqpUrl);
    const ch2 = await c2.createChannel();
    const perPublisher = new Map<string, number[]>();
    for (const m of await drain(ch2, "grouped")) {
      const [k, i] = m.content.toString().split(":");
      perPublisher.set(k!, [...(perPublisher.get(k!) ?? []), Number(i)]);
    }
    for (const seq of perPublisher.values()) assert.deepEqual(seq, Array.from({ length: 300 }, (_, i) => i), "each publisher's order kept");
    assert.deepEqual((await drain(ch2, "tx-q")).map((m) => m.content.toString()), ["tx0", "tx1", "tx2", "tx3", "tx4"]);
    await c2.close();
    await second.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
});

describe("message store space", () => {
  it("deletes segments whose records are all acked", async () => {
    const dataDir = tmp();
    const b = await startTestBroker({ dataDir, messageStore: { segmentBytes: 4096 } });
    const conn = await amqp.connect(b.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("big", { durable: true });
    for (let i = 0; i < 200; i++) ch.sendToQueue("big", Buffer.alloc(300, i), { persistent: true });
    await ch.waitForConfirms();
    const segFiles = (): string[] => readdirSync(join(dataDir, "messages")).filter((f) => f.endsWith(".seg"));
    assert.ok(segFiles().length >= 15, `200 × 300 B in 4 KB segments: ${segFiles().length} files`);
    const consumer = await conn.createChannel();
    for (const m of await drain(consumer, "big", false)) consumer.ack(m);
    await eventually(() => segFiles().length <= 1, 5000, "acked segments deleted");
    await conn.close();
    await b.close();
    const again = await startTestBroker({ dataDir, messageStore: { segmentBytes: 4096 } });
    assert.equal(again.broker.vhost("/").queues.get("big")?.messageCount, 0);
    await again.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("compacts mostly-dead segments at boot and keeps the queue order over two more restarts", async () => {
    const dataDir = tmp();
    const opts = { dataDir, messageStore: { segmentBytes: 4096 } };
    const first = await startTestBroker(opts);
    const conn = await amqp.connect(first.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("sparse", { durable: true });
    for (let i = 0; i < 200; i++) ch.sendToQueue("sparse", Buffer.alloc(300, i), { persistent: true, messageId: String(i) });
    await ch.waitForConfirms();
    // The first half loses four messages in five (compacted at boot), the second half stays whole.
    const consumer = await conn.createChannel();
    const all = await drain(consumer, "sparse", false);
    for (const m of all) {
      const i = Number(m.properties.messageId);
      if (i < 100 && i % 5 !== 0) consumer.ack(m);
    }
    await consumer.close();
    await conn.close();
    await first.close();
    const expected = Array.from({ length: 200 }, (_, i) => i).filter((i) => i >= 100 || i % 5 === 0).map(String);

    const second = await startTestBroker(opts);
    // Boot compaction copies the live records, and the originals go after the next sync, which may
    // already have run by now (startup is not instantaneous): count deletions, not files.
    await storeOf(second).sync();
    await eventually(() => storeOf(second).stats.segmentsDeleted > 0, 5000, "compacted segments deleted");
    await second.close();
    for (let round = 0; round < 2; round++) {
      const b = await startTestBroker(opts);
      const c = await amqp.connect(b.amqpUrl);
      const cch = await c.createChannel();
      const got = await drain(cch, "sparse", false);
      assert.deepEqual(got.map((m) => m.properties.messageId), expected);
      assert.ok(got.every((m) => m.fields.redelivered), "all were delivered before");
      await c.close();
      await b.close();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
});
