// A queue led by node B, used by AMQP clients connected to node A over a real inter-node link
// (docs/CLUSTERING.md, "A publish that crosses nodes" / "A delivery that crosses nodes").
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import amqp, { type ConsumeMessage } from "amqplib";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { eventually, withTimeout } from "../helpers/wait.js";
import { linkAToB, queueOnB, useTwoNodes } from "./two-nodes.js";

describe("a queue led by another node", () => {
  const fx = useTwoNodes();

  it("takes confirmed publishes on A, consumed on B and on A", async () => {
    const link = await linkAToB(fx);
    const { onB } = queueOnB(fx, link, "fwd-1");
    const connA = await amqp.connect(fx.a.amqpUrl);
    const ch = await connA.createConfirmChannel();
    for (let i = 0; i < 50; i++) ch.sendToQueue("fwd-1", Buffer.from(`m${i}`), { persistent: true });
    await ch.waitForConfirms();
    assert.equal(onB.messageCount, 50, "every confirmed message is on the leader");
    // Consumed on B (the leader's own client)…
    const connB = await amqp.connect(fx.b.amqpUrl);
    const chB = await connB.createChannel();
    const first = await chB.get("fwd-1", { noAck: true });
    assert.ok(first !== false);
    assert.equal(first.content.toString(), "m0", "publish order holds");
    // …and on A, in order.
    const got: string[] = [];
    const all = new Promise<void>((resolve) => {
      void ch.consume("fwd-1", (m) => {
        got.push(m!.content.toString());
        ch.ack(m!);
        if (got.length === 49) resolve();
      });
    });
    await withTimeout(all, 5000, "49 deliveries on A");
    assert.deepEqual(got, Array.from({ length: 49 }, (_, i) => `m${i + 1}`));
    await eventually(() => onB.messageCount === 0 && onB.unacked === 0, 5000, "acks settled on B");
    await connB.close();
    await connA.close();
    link.close();
  });

  it("routes through A's bindings, with mandatory not returned, and one body for two queues on B", async () => {
    const link = await linkAToB(fx);
    const q1 = queueOnB(fx, link, "fwd-x1");
    const q2 = queueOnB(fx, link, "fwd-x2");
    const connA = await amqp.connect(fx.a.amqpUrl);
    const ch = await connA.createConfirmChannel();
    await ch.assertExchange("fan-a", "fanout", { durable: false });
    await ch.bindQueue("fwd-x1", "fan-a", "");
    await ch.bindQueue("fwd-x2", "fan-a", "");
    let returned = 0;
    ch.on("return", () => returned++);
    ch.publish("fan-a", "", Buffer.from("both"), { mandatory: true });
    ch.publish("", "nowhere", Buffer.from("lost"), { mandatory: true });
    await ch.waitForConfirms();
    await eventually(() => returned === 1, 5000, "the unroutable one returned");
    assert.equal(q1.onB.messageCount, 1);
    assert.equal(q2.onB.messageCount, 1);
    assert.equal(returned, 1, "the message routed to the remote queues was not returned");
    await connA.close();
    link.close();
  });

  it("never gives a consumer on A more than its prefetch; ack, nack-requeue (redelivered) and reject", async () => {
    const link = await linkAToB(fx);
    const { onB } = queueOnB(fx, link, "fwd-prefetch");
    const connB = await amqp.connect(fx.b.amqpUrl);
    const chB = await connB.createConfirmChannel();
    for (let i = 0; i < 12; i++) chB.sendToQueue("fwd-prefetch", Buffer.from(`p${i}`));
    await chB.waitForConfirms();
    const connA = await amqp.connect(fx.a.amqpUrl);
    const ch = await connA.createChannel();
    await ch.prefetch(4);
    const held: ConsumeMessage[] = [];
    await ch.consume("fwd-prefetch", (m) => held.push(m!));
    await eventually(() => held.length === 4 && onB.unacked === 4, 5000, "4 deliveries");
    assert.equal(onB.messageCount, 8, "the leader handed out no more than the prefetch");
    assert.equal(held.length, 4);
    // ack one: exactly one more comes.
    ch.ack(held[0]!);
    await eventually(() => held.length === 5, 5000, "one more after one ack");
    assert.equal(onB.messageCount, 7);
    // nack with requeue: it comes back, redelivered.
    const nacked = held[1]!;
    ch.nack(nacked, false, true);
    await eventually(() => held.some((m, i) => i > 4 && m.content.equals(nacked.content)), 5000, "the nacked message again");
    const again = held.find((m, i) => i > 4 && m.content.equals(nacked.content))!;
    assert.equal(again.fields.redelivered, true);
    assert.equal(nacked.fields.redelivered, false);
    // reject without requeue: gone.
    ch.reject(held[2]!, false);
    // 12 published, 1 acked, 1 rejected: 4 held by the consumer (its prefetch refilled), 6 ready.
    await eventually(() => onB.unacked === 4 && onB.messageCount === 6, 5000, "reject discards on the leader");
    assert.equal(held.length, 7);
    await connA.close();
    // The channel closed: what it held goes back to the leader.
    await eventually(() => onB.unacked === 0 && onB.messageCount === 10, 5000, "held messages requeued on B");
    await connB.close();
    link.close();
  });

  it("answers basic.get (ack and no-ack), passive declare, purge and delete from the leader", async () => {
    const link = await linkAToB(fx);
    const { onB } = queueOnB(fx, link, "fwd-rpc");
    const connA = await amqp.connect(fx.a.amqpUrl);
    const ch = await connA.createConfirmChannel();
    for (let i = 0; i < 5; i++) ch.sendToQueue("fwd-rpc", Buffer.from(`g${i}`));
    await ch.waitForConfirms();
    const declared = await ch.checkQueue("fwd-rpc");
    assert.equal(declared.messageCount, 5);
    const g0 = await ch.get("fwd-rpc", { noAck: true });
    assert.ok(g0 !== false);
    assert.equal(g0.content.toString(), "g0");
    assert.equal(g0.fields.messageCount, 4);
    const g1 = await ch.get("fwd-rpc", { noAck: false });
    assert.ok(g1 !== false);
    assert.equal(onB.unacked, 1);
    ch.nack(g1, false, true);
    await eventually(() => onB.unacked === 0 && onB.messageCount === 4, 5000, "the get's nack on B");
    const g1again = await ch.get("fwd-rpc", { noAck: false });
    assert.ok(g1again !== false);
    assert.equal(g1again.content.toString(), "g1");
    assert.equal(g1again.fields.redelivered, true);
    ch.ack(g1again);
    await eventually(() => onB.unacked === 0, 5000, "the get's ack on B");
    const purged = await ch.purgeQueue("fwd-rpc");
    assert.equal(purged.messageCount, 3);
    assert.equal(await ch.get("fwd-rpc"), false, "get-empty after purge");
    ch.sendToQueue("fwd-rpc", Buffer.from("last"));
    await ch.waitForConfirms();
    const deleted = await ch.deleteQueue("fwd-rpc");
    assert.equal(deleted.messageCount, 1);
    assert.equal(fx.b.broker.vhost("/").queues.has("fwd-rpc"), false, "deleted on the leader");
    assert.equal(fx.a.broker.vhost("/").queues.has("fwd-rpc"), false, "and forgotten on A");
    await connA.close();
    link.close();
  });

  it("cancels A's consumers with a notification when the link is lost, and nacks what it had not stored", async () => {
    const link = await linkAToB(fx);
    const { onB, onA } = queueOnB(fx, link, "fwd-lost");
    const connB = await amqp.connect(fx.b.amqpUrl);
    const chB = await connB.createConfirmChannel();
    for (let i = 0; i < 3; i++) chB.sendToQueue("fwd-lost", Buffer.from(`l${i}`));
    await chB.waitForConfirms();
    const connA = await amqp.connect(fx.a.amqpUrl);
    const ch = await connA.createConfirmChannel();
    await ch.prefetch(10);
    let deliveries = 0;
    const cancelled = new Promise<void>((resolve) => {
      void ch.consume("fwd-lost", (m) => (m === null ? resolve() : deliveries++));
    });
    await eventually(() => deliveries === 3 && onB.unacked === 3, 5000, "3 deliveries");
    // B stops reading the link: a publish now is forwarded but never stored.
    const bSide = fx.accepted[fx.accepted.length - 1]!;
    bSide.pause();
    let nacked = false;
    const settled = new Promise<void>((resolve) => ch.sendToQueue("fwd-lost", Buffer.from("never"), {}, (err) => ((nacked = err !== null && err !== undefined), resolve())));
    await eventually(() => link.inFlight === 1, 5000, "the publish forwarded");
    bSide.destroy();
    await withTimeout(cancelled, 5000, "basic.cancel from A");
    await withTimeout(settled, 5000, "the publish's confirm");
    assert.equal(nacked, true, "a publish the leader never stored is nacked, never acked");
    assert.equal(onA.consumerCount, 0, "no consumer left on A");
    await eventually(() => onB.unacked === 0 && onB.messageCount === 3, 5000, "B requeued what A held");
    // No half-state: the channel still works, and a new publish to the lost leader is nacked.
    await assert.rejects(async () => {
      ch.sendToQueue("fwd-lost", Buffer.from("after"));
      await ch.waitForConfirms();
    });
    await connA.close().catch(() => {});
    await connB.close();
  });

  it("holds a publisher that outruns the leader's credit, and confirms all once B catches up", async () => {
    const link = await linkAToB(fx);
    const { onB } = queueOnB(fx, link, "fwd-credit");
    const bSide = fx.accepted[fx.accepted.length - 1]!;
    bSide.pause();
    const connA = await amqp.connect(fx.a.amqpUrl);
    const ch = await connA.createConfirmChannel();
    const body = Buffer.alloc(1024);
    for (let i = 0; i < 3000; i++) ch.sendToQueue("fwd-credit", body);
    // The credit is 2,000 messages: A stops reading its client once it is used up.
    await eventually(() => link.inFlight >= 2000, 10000, "credit used");
    const stalled = link.inFlight;
    assert.ok(stalled < 3000, `A held the publisher at its credit (in flight ${stalled})`);
    bSide.resume();
    await withTimeout(ch.waitForConfirms(), 20000, "all confirms");
    assert.equal(onB.messageCount, 3000);
    await connA.close();
    link.close();
  });

  it("serves @cloudamqp/amqp-client on A", async () => {
    const link = await linkAToB(fx);
    queueOnB(fx, link, "fwd-cloudamqp");
    const conn = await new AMQPClient(fx.a.amqpUrl).connect();
    const ch = await conn.channel();
    await ch.confirmSelect();
    await ch.basicPublish("", "fwd-cloudamqp", "hello from A", { deliveryMode: 2 });
    const got = new Promise<string>((resolve) => {
      void ch.basicConsume("fwd-cloudamqp", { noAck: false }, (msg) => {
        void msg.ack();
        resolve(msg.bodyToString() ?? "");
      });
    });
    assert.equal(await withTimeout(got, 5000, "the delivery"), "hello from A");
    await conn.close();
    link.close();
  });

  it("refuses a link whose node does not hold the secret", async () => {
    await assert.rejects(linkAToB(fx, Buffer.alloc(32, 7)), /authentication|closed/);
  });
});
