// RabbitMQ's consumer_timeout over amqplib: a delivery held unacknowledged past the timeout closes
// its channel with PRECONDITION_FAILED and RabbitMQ's text, and the message goes back to its queue;
// per queue x-consumer-timeout and the consumer-timeout policy; acked deliveries never time out.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { withTimeout } from "../helpers/wait.js";

describe("consumer delivery acknowledgement timeout", () => {
  let broker: TestBroker;
  let conn: ChannelModel;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker({ consumerTimeout: 200 });
    conn = await amqp.connect(broker.amqpUrl);
  });
  after(async () => {
    await conn.close();
    await broker.close();
  });

  /** Consumes one message from `queue` without acking; resolves with the channel's close error and how long it took. */
  async function holdUntilClosed(queue: string, args: Record<string, unknown> = {}): Promise<{ message: string; heldMs: number }> {
    const ch = await conn.createChannel();
    await ch.assertQueue(queue, { arguments: args });
    const closed = new Promise<string>((resolve) => ch.on("error", (e: Error) => resolve(e.message)));
    let deliveredAt = 0;
    const delivered = new Promise<void>((resolve) => {
      void ch.consume(queue, () => {
        deliveredAt = Date.now();
        resolve();
      });
    });
    ch.sendToQueue(queue, Buffer.from("held"));
    await withTimeout(delivered, 5000, "the delivery");
    const message = await withTimeout(closed, 10_000, "the channel close");
    return { message, heldMs: Date.now() - deliveredAt };
  }

  it("closes the channel of a consumer that does not ack within consumer_timeout, and requeues the message", async () => {
    const { message, heldMs } = await holdUntilClosed("ct-node");
    assert.equal(
      message,
      'Channel closed by server: 406 (PRECONDITION-FAILED) with message "PRECONDITION_FAILED - delivery acknowledgement on channel 1 timed out. Timeout value used: 200 ms. This timeout value can be configured, see consumers doc guide to learn more"',
    );
    assert.ok(heldMs >= 200, `closed after ${heldMs} ms, before the timeout`);
    const check = await conn.createChannel();
    assert.equal((await check.checkQueue("ct-node")).messageCount, 1, "the unacked message is back in its queue");
    await check.close();
  });

  it("uses the queue's x-consumer-timeout, and the consumer-timeout policy, where they are set", async () => {
    const arg = await holdUntilClosed("ct-arg", { "x-consumer-timeout": 600 });
    assert.match(arg.message, /Timeout value used: 600 ms/);
    assert.ok(arg.heldMs >= 600, `closed after ${arg.heldMs} ms`);
    assert.equal((await api("PUT", "/api/policies/%2F/ct", { pattern: "^ct-policy$", definition: { "consumer-timeout": 400 }, "apply-to": "queues" })).status, 201);
    const pol = await holdUntilClosed("ct-policy");
    assert.match(pol.message, /Timeout value used: 400 ms/);
    assert.ok(pol.heldMs >= 400, `closed after ${pol.heldMs} ms`);
  });

  it("leaves a consumer that acks in time alone", async () => {
    const ch = await conn.createChannel();
    let closed = false;
    ch.on("close", () => (closed = true));
    await ch.assertQueue("ct-acks", { exclusive: true });
    let got = 0;
    const done = new Promise<void>((resolve) => {
      void ch.consume("ct-acks", (m) => {
        if (!m) return;
        ch.ack(m);
        if (++got === 10) resolve();
      });
    });
    // Ten messages over about three timeouts, each acked at once.
    for (let i = 0; i < 10; i++) {
      ch.sendToQueue("ct-acks", Buffer.from(String(i)));
      await new Promise((r) => setTimeout(r, 60));
    }
    await withTimeout(done, 5000, "ten acked deliveries");
    // The channel still answers: a round trip after more than a timeout since the first delivery.
    await ch.checkQueue("ct-acks");
    assert.equal(closed, false);
    await ch.close();
  });

  it("refuses an x-consumer-timeout that is not a positive integer", async () => {
    const ch = await conn.createChannel();
    const closed = new Promise<string>((resolve) => ch.on("error", (e: Error) => resolve(e.message)));
    await assert.rejects(ch.assertQueue("ct-bad", { arguments: { "x-consumer-timeout": "soon" } }));
    assert.match(await withTimeout(closed, 5000, "close"), /PRECONDITION_FAILED - invalid arg 'x-consumer-timeout' for queue 'ct-bad' in vhost '\/'/);
  });
});

describe("a queue's consumer timeout under the node's default", () => {
  it("closes within the queue's x-consumer-timeout although the node's own is 30 minutes", async () => {
    const broker = await startTestBroker();
    try {
      const conn = await amqp.connect(broker.amqpUrl);
      // A consumer on a plain queue first: the channel's check then runs at the node's pace.
      const ch = await conn.createChannel();
      await ch.assertQueue("ct-plain", { exclusive: true });
      await ch.consume("ct-plain", () => undefined);
      await ch.assertQueue("ct-short", { exclusive: true, arguments: { "x-consumer-timeout": 300 } });
      const closed = new Promise<string>((resolve) => ch.on("error", (e: Error) => resolve(e.message)));
      let deliveredAt = 0;
      await ch.consume("ct-short", () => (deliveredAt = Date.now()));
      ch.sendToQueue("ct-short", Buffer.from("held"));
      const message = await withTimeout(closed, 5000, "the channel close at the queue's timeout");
      assert.match(message, /Timeout value used: 300 ms/);
      assert.ok(deliveredAt > 0 && Date.now() - deliveredAt >= 300);
      await conn.close();
    } finally {
      await broker.close();
    }
  });
});
