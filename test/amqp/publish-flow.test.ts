// Publisher flow control: a publisher feeding a consumed queue that falls far behind is not read
// until the queue catches up; nothing is lost, and a connection that also consumes is never paused.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { FLOW_HIGH } from "../../src/broker/index.js";
import { startTestBroker } from "../helpers/broker.js";
import { eventually, withTimeout } from "../helpers/wait.js";

describe("publisher flow control", () => {
  it("pauses a publisher while a consumed queue is over the mark, and resumes it when the queue drains", async () => {
    const broker = await startTestBroker();
    try {
      const consumerConn = await amqp.connect(broker.amqpUrl);
      const cch = await consumerConn.createChannel();
      await cch.assertQueue("flow-q", { durable: false });
      await cch.prefetch(1);
      const held: amqp.ConsumeMessage[] = [];
      await cch.consume("flow-q", (m) => m && held.push(m)); // never acks: the queue falls behind

      const publisherConn = await amqp.connect(broker.amqpUrl);
      const pch = await publisherConn.createChannel();
      const total = FLOW_HIGH + 5000;
      const body = Buffer.from("x");
      for (let i = 0; i < total; i++) {
        if (!pch.sendToQueue("flow-q", body)) await new Promise((r) => pch.once("drain", r));
      }
      const q = broker.broker.vhosts.get("/")!.queues.get("flow-q")!;
      const publisherState = () => broker.broker.connections.list().map((c) => c.info()).find((c) => c.channels.some((ch) => ch.stats.publish > 0))?.state;
      await eventually(() => publisherState() === "flow", 10_000, "the publisher in flow");
      assert.ok(q.messageCount > FLOW_HIGH && q.messageCount < total, `${q.messageCount} ready while paused`);
      const consumerState = broker.broker.connections.list().map((c) => c.info()).find((c) => c.channels.some((ch) => ch.consumerCount > 0))?.state;
      assert.equal(consumerState, "running", "the consumer's connection is never paused");

      await cch.cancel(held[0]!.fields.consumerTag); // no consumer left: the publisher is released
      await eventually(() => q.messageCount + q.unacked === total, 10_000, "every message arrives");
      await eventually(() => publisherState() === "running", 5000, "the publisher running again");
      await publisherConn.close();
      await consumerConn.close();
    } finally {
      await broker.close();
    }
  });

  it("never holds a stream's publisher for good: a stream's length is not its consumers' lag (only its writer's lag holds it, for a while)", { timeout: 60_000 }, async () => {
    const broker = await startTestBroker();
    try {
      const consumerConn = await amqp.connect(broker.amqpUrl);
      const cch = await consumerConn.createChannel();
      await cch.assertQueue("flow-stream", { durable: true, arguments: { "x-queue-type": "stream" } });
      await cch.prefetch(1000);
      let consumed = 0;
      await cch.consume("flow-stream", (m) => {
        if (!m) return;
        consumed++;
        cch.ack(m);
      }, { arguments: { "x-stream-offset": "next" } });
      const publisherConn = await amqp.connect(broker.amqpUrl);
      const pch = await publisherConn.createConfirmChannel();
      const total = FLOW_HIGH + 5000;
      const body = Buffer.from("x");
      // In windows of 1,000 confirms: before the fix the publisher was paused for good past FLOW_HIGH.
      for (let sent = 0; sent < total; sent += 1000) {
        for (let i = 0; i < 1000; i++) pch.sendToQueue("flow-stream", body, { persistent: true });
        await withTimeout(pch.waitForConfirms(), 10_000, `confirms up to ${sent + 1000}`);
      }
      await eventually(() => consumed === total, 10_000, "the consumer to read every message");
      const q = broker.broker.vhosts.get("/")!.queues.get("flow-stream")!;
      assert.equal(q.messageCount, total, "the stream keeps every message, more than the flow mark");
      await publisherConn.close();
      await consumerConn.close();
    } finally {
      await broker.close();
    }
  });
});
