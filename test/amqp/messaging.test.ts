// Publishing and consuming through a real broker with amqplib: the core message flow.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ConsumeMessage } from "amqplib";
import { mustGet } from "../helpers/amqplib-get.js";
import { useBrokerWithChannel } from "../helpers/broker-fixture.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";

describe("messaging with amqplib", () => {
  const fx = useBrokerWithChannel();

  it("delivers a published message with its properties and headers", async () => {
    const { queue } = await fx.ch.assertQueue("", { exclusive: true });
    const got = collector<ConsumeMessage>(1);
    await fx.ch.consume(queue, (m) => m && got.push(m), { noAck: true });
    fx.ch.publish("", queue, Buffer.from("hello"), {
      contentType: "text/plain",
      headers: { a: 1, b: "two", nested: { c: true } },
      messageId: "m1",
      correlationId: "c1",
      deliveryMode: 2,
      priority: 3,
      timestamp: 1_700_000_000,
    });
    const [m] = await withTimeout(got.done, 3000, "delivery");
    assert.equal(m!.content.toString(), "hello");
    assert.equal(m!.properties.contentType, "text/plain");
    assert.equal(m!.properties.messageId, "m1");
    assert.equal(m!.properties.correlationId, "c1");
    assert.equal(m!.properties.deliveryMode, 2);
    assert.equal(m!.properties.priority, 3);
    assert.equal(m!.properties.timestamp, 1_700_000_000);
    assert.deepEqual(m!.properties.headers, { a: 1, b: "two", nested: { c: true } });
    assert.equal(m!.fields.routingKey, queue);
    assert.equal(m!.fields.exchange, "");
    assert.equal(m!.fields.redelivered, false);
  });

  it("gives each message its own properties when a publisher repeats, alternates and varies them", async () => {
    // Equal property bytes share one decoding (content-assembly.ts); each message must still
    // arrive with exactly what was sent with it, and a dead-lettering x-death stays on its own.
    const { queue } = await fx.ch.assertQueue("", { exclusive: true });
    const long = "x".repeat(100); // past the byte-loop comparison
    const sent = [
      { messageId: "m1", headers: { k: 1 } },
      { messageId: "m1", headers: { k: 1 } },
      { messageId: "m2", headers: { k: 1 } }, // same length, other bytes
      { messageId: "m1", headers: { k: 1 } },
      { messageId: long },
      { messageId: long },
      { messageId: long.slice(0, 99) + "y" },
      {},
      {},
    ];
    sent.forEach((p, i) => fx.ch.sendToQueue(queue, Buffer.from(String(i)), p));
    for (let i = 0; i < sent.length; i++) {
      const m = await mustGet(fx.ch, queue);
      assert.equal(m.content.toString(), String(i));
      assert.equal(m.properties.messageId, sent[i]!.messageId, `message ${i}`);
      assert.deepEqual(m.properties.headers ?? {}, sent[i]!.headers ?? {}, `message ${i}`);
    }
  });

  it("round-robins between consumers of one queue", async () => {
    const { queue } = await fx.ch.assertQueue("", { exclusive: true });
    const a: string[] = [];
    const b: string[] = [];
    const all = collector<string>(10);
    await fx.ch.consume(queue, (m) => { a.push(m!.content.toString()); all.push("a"); }, { noAck: true });
    await fx.ch.consume(queue, (m) => { b.push(m!.content.toString()); all.push("b"); }, { noAck: true });
    for (let i = 0; i < 10; i++) fx.ch.sendToQueue(queue, Buffer.from(String(i)));
    await withTimeout(all.done, 3000, "10 deliveries");
    assert.equal(a.length, 5);
    assert.equal(b.length, 5);
  });

  it("carries large bodies split across frames", async () => {
    const { queue } = await fx.ch.assertQueue("", { exclusive: true });
    const body = Buffer.alloc(1_000_000);
    for (let i = 0; i < body.length; i++) body[i] = i % 251;
    fx.ch.sendToQueue(queue, body);
    const got = collector<ConsumeMessage>(1);
    await fx.ch.consume(queue, (m) => m && got.push(m), { noAck: true });
    const [m] = await withTimeout(got.done, 5000, "large delivery");
    assert.ok(m!.content.equals(body));
  });

  it("gets messages with basic.get and reports the remaining count", async () => {
    const { queue } = await fx.ch.assertQueue("", { exclusive: true });
    fx.ch.sendToQueue(queue, Buffer.from("1"));
    fx.ch.sendToQueue(queue, Buffer.from("2"));
    await fx.ch.checkQueue(queue); // a round trip: both publishes are in
    const first = await fx.ch.get(queue, { noAck: false });
    assert.ok(first);
    assert.equal(first.content.toString(), "1");
    assert.equal(first.fields.messageCount, 1);
    fx.ch.ack(first);
    const second = await fx.ch.get(queue, { noAck: true });
    assert.ok(second);
    assert.equal(second.content.toString(), "2");
    assert.equal(await fx.ch.get(queue), false);
  });

  it("requeues rejected messages to their original position, marked redelivered", async () => {
    const { queue } = await fx.ch.assertQueue("", { exclusive: true });
    for (const s of ["a", "b", "c"]) fx.ch.sendToQueue(queue, Buffer.from(s));
    await fx.ch.checkQueue(queue);
    const a = (await mustGet(fx.ch, queue));
    const b = (await mustGet(fx.ch, queue));
    fx.ch.nack(b, false, true);
    fx.ch.nack(a, false, true);
    const order: Array<[string, boolean]> = [];
    for (let i = 0; i < 3; i++) {
      const m = (await mustGet(fx.ch, queue, { noAck: true }));
      order.push([m.content.toString(), m.fields.redelivered]);
    }
    assert.deepEqual(order, [["a", true], ["b", true], ["c", false]]);
  });

  it("returns unacked messages to the queue when the channel closes", async () => {
    const { queue } = await fx.ch.assertQueue("", { exclusive: true });
    const other = await fx.conn.createChannel();
    fx.ch.sendToQueue(queue, Buffer.from("x"));
    await fx.ch.checkQueue(queue);
    const m = await other.get(queue, { noAck: false });
    assert.ok(m);
    assert.equal((await fx.ch.checkQueue(queue)).messageCount, 0);
    await other.close();
    const again = (await mustGet(fx.ch, queue, { noAck: true }));
    assert.equal(again.content.toString(), "x");
    assert.equal(again.fields.redelivered, true);
  });

  it("respects prefetch: at most N unacked deliveries per consumer", async () => {
    const { queue } = await fx.ch.assertQueue("", { exclusive: true });
    const c2 = await fx.conn.createChannel();
    await c2.prefetch(3);
    for (let i = 0; i < 10; i++) c2.sendToQueue(queue, Buffer.from(String(i)));
    const held: ConsumeMessage[] = [];
    await c2.consume(queue, (m) => void held.push(m!));
    await eventually(() => held.length === 3, 3000, "3 deliveries");
    // Give the broker a chance to (wrongly) send more, then check it did not.
    await c2.checkQueue(queue);
    assert.equal(held.length, 3, "no more than prefetch while unacked");
    c2.ack(held[2]!, true); // multiple: acks all three
    await eventually(() => held.length === 6, 3000, "3 more deliveries after the ack");
    await c2.checkQueue(queue);
    assert.equal(held.length, 6);
    await c2.close();
  });

  it("acks with multiple=true settle every earlier tag", async () => {
    const { queue } = await fx.ch.assertQueue("", { exclusive: true });
    for (let i = 0; i < 5; i++) fx.ch.sendToQueue(queue, Buffer.from(String(i)));
    await fx.ch.checkQueue(queue);
    const msgs = [];
    for (let i = 0; i < 5; i++) msgs.push((await mustGet(fx.ch, queue)));
    fx.ch.ack(msgs[3]!, true);
    fx.ch.ack(msgs[4]!);
    const q = await fx.ch.checkQueue(queue);
    assert.equal(q.messageCount, 0);
  });
});
