// A consumer that stops acking while publishers go on. A durable queue pages what it cannot keep
// in memory (ready messages in memory stay at the paging limit); a transient queue grows until
// the memory alarm blocks the publisher (connection.blocked), so memory stays bounded by the
// watermark. Meanwhile another queue's consumer gets every one of its messages.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { totalmem } from "node:os";
import amqp, { type ConfirmChannel } from "amqplib";
import { startTestBroker } from "../helpers/broker.js";
import { eventually, withTimeout } from "../helpers/wait.js";

const BODY = Buffer.alloc(1024, 0x64);

/** Publishes `n` persistent messages to each of `queues` in turn, 200 unconfirmed at most. */
async function publishConfirmed(ch: ConfirmChannel, queues: string[], n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    for (const q of queues) ch.sendToQueue(q, BODY, { persistent: true });
    if (i % 100 === 99) await ch.waitForConfirms();
  }
  await ch.waitForConfirms();
}

describe("fault: a consumer stops acking while publishers go on", () => {
  it("a durable queue pages to disk, and another queue's consumer gets all of its messages", async () => {
    const b = await startTestBroker({ messageStore: { paging: { maxEntries: 200, maxBytes: 1 << 20 } } });
    try {
      const conn = await amqp.connect(b.amqpUrl);
      const pub = await conn.createConfirmChannel();
      await pub.assertQueue("stuck", { durable: true });
      await pub.assertQueue("flowing", { durable: true });
      const stuck = await conn.createChannel();
      await stuck.prefetch(10);
      let held = 0;
      await stuck.consume("stuck", () => held++, { noAck: false });
      const flowing = await conn.createChannel();
      let got = 0;
      await flowing.consume("flowing", (m) => {
        got++;
        flowing.ack(m!);
      });

      await publishConfirmed(pub, ["stuck", "flowing"], 1500);
      await eventually(() => got === 1500, 10_000, "the other queue's consumer to get all 1500");
      const q = b.broker.vhost("/").queues.get("stuck")!;
      assert.equal(held, 10, "the stuck consumer holds its prefetch");
      assert.equal(q.messageCount, 1490);
      assert.ok(q.messageCount - q.pagedOutCount <= 200, `ready messages in memory stay at the paging limit (${q.messageCount - q.pagedOutCount})`);
      assert.ok(q.pagedOutCount >= 1290, `the rest is on disk only (${q.pagedOutCount})`);
      await conn.close();
    } finally {
      await b.close();
    }
  });

  it("a transient queue grows until the memory alarm blocks its publisher; other consumers go on", async () => {
    const b = await startTestBroker({ alarmInterval: 20, diskFreeLimit: 0 });
    try {
      // The watermark 40 MB above what the process uses now.
      const rss = process.memoryUsage.rss();
      b.alarms.setLimits({ memHighWatermark: (rss + 40 * 1024 * 1024) / totalmem() });
      const pubConn = await amqp.connect(b.amqpUrl);
      const consConn = await amqp.connect(b.amqpUrl);
      const pub = await pubConn.createChannel();
      await pub.assertQueue("stuck-t", { durable: false });
      await pub.assertQueue("flowing-t", { durable: false });
      const stuck = await consConn.createChannel();
      await stuck.prefetch(10);
      await stuck.consume("stuck-t", () => undefined, { noAck: false });
      const flowing = await consConn.createChannel();
      let got = 0;
      await flowing.consume("flowing-t", (m) => {
        got++;
        flowing.ack(m!);
      });
      let blocked = false;
      pubConn.on("blocked", () => (blocked = true));
      const big = Buffer.alloc(16 * 1024, 0x65);
      let sent = 0;
      await withTimeout(
        (async () => {
          // 200 MB at most: the alarm must stop this long before.
          while (!blocked && sent < 12_800) {
            pub.sendToQueue("stuck-t", big);
            pub.sendToQueue("flowing-t", BODY);
            sent++;
            if (sent % 50 === 0) await new Promise((r) => setImmediate(r));
          }
        })(),
        30_000,
        "publishing until blocked",
      );
      assert.ok(blocked, `the publisher was blocked by the memory alarm (after ${sent} messages)`);
      assert.ok(b.alarms.figures.memAlarm);
      const q = b.broker.vhost("/").queues.get("stuck-t")!;
      assert.ok(q.readyBytes < 120 * 1024 * 1024, `memory stays bounded (${q.readyBytes} bytes ready)`);
      // The consumer-only connection is not blocked: it drains everything that reached its queue.
      const reached = b.broker.vhost("/").queues.get("flowing-t")!;
      await eventually(() => reached.messageCount === 0 && reached.unacked === 0 && got > 0, 10_000, "the other consumer to drain its queue");
      b.alarms.setLimits({ memHighWatermark: 0.99 });
      await pubConn.close();
      await consConn.close();
    } finally {
      await b.close();
    }
  });
});
