// Dead-lettering as RabbitMQ does it, read through amqplib: the x-death table (count, reason,
// queue, time, exchange, routing-keys, original-expiration), x-first-death-* headers, the
// dead-letter routing key, repeat deaths and cycle detection.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mustGet } from "../helpers/amqplib-get.js";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { deathsOf, nextMessage } from "../helpers/next-message.js";
import { eventually } from "../helpers/wait.js";

describe("dead-lettering", () => {
  const f = useBrokerWithConnection();

  it("a rejected message goes to the DLX with RabbitMQ's x-death and x-first-death headers", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertExchange("dlx.r", "fanout", { durable: false });
    await ch.assertQueue("dead.r", { durable: false });
    await ch.bindQueue("dead.r", "dlx.r", "");
    await ch.assertQueue("work.r", { durable: false, arguments: { "x-dead-letter-exchange": "dlx.r" } });
    await ch.bindQueue("work.r", "amq.direct", "rk.r");
    ch.publish("amq.direct", "rk.r", Buffer.from("payload"), { headers: { app: "a" }, expiration: "60000" });
    const m = await eventually(async () => (await ch.checkQueue("work.r")).messageCount === 1).then(() => mustGet(ch, "work.r"));
    const before = Math.floor(Date.now() / 1000);
    ch.reject(m, false);
    const dead = await nextMessage(ch, "dead.r");
    assert.equal(dead.content.toString(), "payload");
    assert.equal(dead.fields.exchange, "dlx.r");
    assert.equal(dead.fields.routingKey, "rk.r", "no dead-letter routing key: original routing key");
    assert.equal(dead.properties.expiration, undefined, "expiration removed");
    const h = dead.properties.headers!;
    assert.equal(h["app"], "a");
    assert.equal(h["x-first-death-reason"], "rejected");
    assert.equal(h["x-first-death-queue"], "work.r");
    assert.equal(h["x-first-death-exchange"], "amq.direct");
    assert.equal(h["x-last-death-reason"], "rejected");
    assert.equal(h["x-last-death-queue"], "work.r");
    assert.equal(h["x-last-death-exchange"], "amq.direct");
    const deaths = deathsOf(dead);
    assert.equal(deaths.length, 1);
    const d = deaths[0]!;
    assert.deepEqual(Object.keys(d).sort(), ["count", "exchange", "original-expiration", "queue", "reason", "routing-keys", "time"]);
    assert.equal(d["count"], 1);
    assert.equal(d["reason"], "rejected");
    assert.equal(d["queue"], "work.r");
    assert.equal(d["exchange"], "amq.direct");
    assert.deepEqual(d["routing-keys"], ["rk.r"]);
    assert.equal(d["original-expiration"], "60000");
    // amqplib decodes an AMQP timestamp ('T', seconds) as a typed value.
    const t = d["time"] as { "!": string; value: number };
    assert.equal(t["!"], "timestamp");
    assert.ok(t.value >= before - 1 && t.value <= before + 2, `time in seconds: ${t.value}`);
    ch.ack(dead);
    await ch.close();
  });

  it("uses the dead-letter routing key; a repeat death in the same queue increments count", async () => {
    const ch = await f.conn.createChannel();
    // work.k dead-letters through amq.direct with key "back.k" into work.k itself: a reject loop.
    await ch.assertQueue("work.k", { durable: false, arguments: { "x-dead-letter-exchange": "amq.direct", "x-dead-letter-routing-key": "back.k" } });
    await ch.bindQueue("work.k", "amq.direct", "back.k");
    ch.sendToQueue("work.k", Buffer.from("loop"));
    let m = await nextMessage(ch, "work.k");
    ch.nack(m, false, false);
    m = await nextMessage(ch, "work.k");
    assert.equal(m.fields.routingKey, "back.k");
    let deaths = deathsOf(m);
    assert.equal(deaths.length, 1);
    assert.deepEqual(deaths[0]!["routing-keys"], ["work.k"], "routing-keys: the keys it was published with");
    assert.equal(deaths[0]!["exchange"], "");
    ch.nack(m, false, false);
    m = await nextMessage(ch, "work.k");
    deaths = deathsOf(m);
    assert.equal(deaths.length, 1, "same (queue, reason): one table");
    assert.equal(deaths[0]!["count"], 2);
    assert.equal(m.properties.headers!["x-first-death-exchange"], "");
    ch.ack(m);
    await ch.close();
  });

  it("drops a message that would cycle back without a rejection (expired into itself)", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("cycle.a", { durable: false, arguments: { "x-message-ttl": 30, "x-dead-letter-exchange": "amq.fanout" } });
    await ch.assertQueue("cycle.watch", { durable: false });
    await ch.bindQueue("cycle.a", "amq.fanout", "");
    await ch.bindQueue("cycle.watch", "amq.fanout", "");
    ch.sendToQueue("cycle.a", Buffer.from("c"));
    // The expired copy reaches the watcher (no cycle there) but not cycle.a again.
    const seen = await nextMessage(ch, "cycle.watch");
    assert.equal(deathsOf(seen)[0]!["reason"], "expired");
    ch.ack(seen);
    await eventually(async () => (await ch.checkQueue("cycle.a")).messageCount === 0, 2000, "cycle.a empty");
    await ch.unbindQueue("cycle.a", "amq.fanout", "");
    await ch.unbindQueue("cycle.watch", "amq.fanout", "");
    await ch.close();
  });

  it("a message without a DLX, or with a missing DLX, is simply dropped", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("nodlx", { durable: false, arguments: { "x-dead-letter-exchange": "does-not-exist" } });
    ch.sendToQueue("nodlx", Buffer.from("z"));
    const m = await nextMessage(ch, "nodlx");
    ch.reject(m, false);
    await eventually(async () => (await ch.checkQueue("nodlx")).messageCount === 0);
    await ch.close();
  });
});
