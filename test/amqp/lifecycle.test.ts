// Lifecycles of exclusive, auto-delete and server-named queues, auto-delete exchanges, and
// server-sent consumer cancellation.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { eventually, withTimeout } from "../helpers/wait.js";

describe("object lifecycles", () => {
  const f = useBrokerWithConnection();


  const vhost = () => f.broker.broker.vhost("/");

  it("server-named queues are amq.gen-…", async () => {
    const ch = await f.conn.createChannel();
    const { queue, messageCount, consumerCount } = await ch.assertQueue("", { exclusive: true });
    assert.match(queue, /^amq\.gen-[A-Za-z0-9_-]{22}$/);
    assert.equal(messageCount, 0);
    assert.equal(consumerCount, 0);
    await ch.close();
  });

  it("exclusive queues go with their connection", async () => {
    const c = await amqp.connect(f.broker.amqpUrl);
    const ch = await c.createChannel();
    await ch.assertQueue("excl-q", { exclusive: true });
    assert.ok(vhost().queues.has("excl-q"));
    await c.close();
    await eventually(() => !vhost().queues.has("excl-q"), 3000, "exclusive queue deletion");
  });

  it("auto-delete queues go when their last consumer cancels", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("ad-q", { autoDelete: true });
    const a = await ch.consume("ad-q", () => {});
    const b = await ch.consume("ad-q", () => {});
    await ch.cancel(a.consumerTag);
    assert.ok(vhost().queues.has("ad-q"));
    await ch.cancel(b.consumerTag);
    assert.ok(!vhost().queues.has("ad-q"));
    await ch.close();
  });

  it("auto-delete exchanges go when their last binding is removed", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertExchange("ad-x", "fanout", { autoDelete: true });
    const { queue } = await ch.assertQueue("", { exclusive: true });
    await ch.bindQueue(queue, "ad-x", "");
    assert.ok(vhost().exchanges.has("ad-x"));
    await ch.unbindQueue(queue, "ad-x", "");
    assert.ok(!vhost().exchanges.has("ad-x"));
    await ch.close();
  });

  it("deleting a queue cancels its consumers (consumer_cancel_notify)", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("cancel-q");
    const cancelled = new Promise<unknown>((resolve) => ch.consume("cancel-q", (m) => m === null && resolve(m)));
    const other = await f.conn.createChannel();
    await other.deleteQueue("cancel-q");
    assert.equal(await withTimeout(cancelled, 3000, "server cancel"), null);
    await ch.close();
    await other.close();
  });

  it("queue.delete reports the messages it removed, purge too", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("count-q");
    for (let i = 0; i < 3; i++) ch.sendToQueue("count-q", Buffer.from("x"));
    await ch.checkQueue("count-q");
    assert.deepEqual(await ch.purgeQueue("count-q"), { messageCount: 3 });
    ch.sendToQueue("count-q", Buffer.from("x"));
    await ch.checkQueue("count-q");
    assert.deepEqual(await ch.deleteQueue("count-q"), { messageCount: 1 });
    await ch.close();
  });
});
