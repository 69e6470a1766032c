// Messages recovered after a restart start out paged (on disk only). Their expiry must still be
// timed when nobody consumes the queue, as RabbitMQ expires at the head regardless of consumers:
// a per-message TTL and a queue TTL each expire (and dead-letter) after a restart with no consumer.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker } from "../helpers/broker.js";
import { eventually } from "../helpers/wait.js";

describe("message TTL across a restart", () => {
  it("expires recovered messages at the head with no consumer, and dead-letters them", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-ttl-restart-"));
    try {
      const first = await startTestBroker({ dataDir });
      const conn = await amqp.connect(first.amqpUrl);
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("ttl-dead", { durable: true });
      await ch.assertQueue("ttl-each", { durable: true, arguments: { "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "ttl-dead" } });
      await ch.assertQueue("ttl-queue", { durable: true, arguments: { "x-message-ttl": 1500, "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "ttl-dead" } });
      for (let i = 0; i < 3; i++) ch.sendToQueue("ttl-each", Buffer.from(`e${i}`), { persistent: true, expiration: "1500" });
      // A message without expiry behind them is not expired: only the head's TTL counts.
      ch.sendToQueue("ttl-each", Buffer.from("keep"), { persistent: true });
      for (let i = 0; i < 2; i++) ch.sendToQueue("ttl-queue", Buffer.from(`q${i}`), { persistent: true });
      await ch.waitForConfirms();
      await conn.close();
      await first.close();

      const again = await startTestBroker({ dataDir });
      try {
        const v = again.broker.vhosts.get("/")!;
        await eventually(() => v.queues.get("ttl-queue")!.messageCount === 0 && v.queues.get("ttl-each")!.messageCount === 1, 10_000, "the recovered messages to expire");
        await eventually(() => v.queues.get("ttl-dead")!.messageCount === 5, 5000, "the expired messages dead-lettered");
        const c = await amqp.connect(again.amqpUrl);
        const rch = await c.createChannel();
        const kept = await rch.get("ttl-each", { noAck: true });
        assert.ok(kept);
        assert.equal(kept.content.toString(), "keep");
        await c.close();
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
