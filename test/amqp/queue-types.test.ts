// Priority queues (x-max-priority), single active consumer, quorum queues (durable only,
// x-delivery-limit with x-delivery-count, refused arguments) and argument validation with
// RabbitMQ's 406 texts.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ConsumeMessage } from "amqplib";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { deathsOf, nextMessage } from "../helpers/next-message.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";

describe("priority, single active consumer, quorum, validation", () => {
  const f = useBrokerWithConnection();

  /** Declares on a throwaway channel and returns the server's close text ("" when it worked). */
  const declareError = async (name: string, options: Record<string, unknown>): Promise<string> => {
    const ch = await f.conn.createChannel();
    const closed = new Promise<string>((resolve) => ch.on("error", (e: Error) => resolve(e.message)));
    try {
      await ch.assertQueue(name, options);
      await ch.close();
      return "";
    } catch {
      return withTimeout(closed, 2000, "channel error");
    }
  };

  it("x-max-priority: higher priority first, FIFO within a priority, above max counts as max", async () => {
    const ch = await f.conn.createConfirmChannel();
    await ch.assertQueue("prio.q", { durable: false, arguments: { "x-max-priority": 5 } });
    const sends: Array<[string, number | undefined]> = [["a0", undefined], ["b1", 1], ["c5", 5], ["d1", 1], ["e9", 9], ["f0", 0]];
    for (const [body, priority] of sends) ch.sendToQueue("prio.q", Buffer.from(body), priority === undefined ? {} : { priority });
    await ch.waitForConfirms();
    const order: string[] = [];
    for (let m = await ch.get("prio.q", { noAck: true }); m; m = await ch.get("prio.q", { noAck: true })) order.push(m.content.toString());
    assert.deepEqual(order, ["c5", "e9", "b1", "d1", "a0", "f0"]);
    await ch.close();
  });

  it("priority queue: prefetch is respected and requeued messages keep their place", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("prio.p", { durable: false, arguments: { "x-max-priority": 2 } });
    for (let i = 0; i < 4; i++) ch.sendToQueue("prio.p", Buffer.from(`low${i}`), { priority: 0 });
    ch.sendToQueue("prio.p", Buffer.from("high"), { priority: 2 });
    await eventually(async () => (await ch.checkQueue("prio.p")).messageCount === 5);
    await ch.prefetch(2);
    const got: ConsumeMessage[] = [];
    const { consumerTag } = await ch.consume("prio.p", (m) => m && got.push(m));
    await eventually(() => got.length === 2);
    assert.deepEqual(got.map((m) => m.content.toString()), ["high", "low0"]);
    assert.equal((await ch.checkQueue("prio.p")).messageCount, 3, "prefetch 2: three still ready");
    await ch.cancel(consumerTag);
    ch.nackAll(true);
    await eventually(async () => (await ch.checkQueue("prio.p")).messageCount === 5);
    const first = await ch.get("prio.p", { noAck: true });
    assert.ok(first);
    assert.equal(first.content.toString(), "high");
    assert.equal(first.fields.redelivered, true);
    await ch.purgeQueue("prio.p");
    await ch.close();
  });

  it("x-single-active-consumer: only the first consumer gets messages until it goes", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("sac.q", { durable: false, arguments: { "x-single-active-consumer": true } });
    const a = collector<string>(3);
    const b = collector<string>(2);
    const ca = await ch.consume("sac.q", (m) => m && a.push(m.content.toString()), { noAck: true });
    await ch.consume("sac.q", (m) => m && b.push(m.content.toString()), { noAck: true });
    for (let i = 0; i < 3; i++) ch.sendToQueue("sac.q", Buffer.from(`a${i}`));
    assert.deepEqual(await withTimeout(a.done, 3000, "first consumer"), ["a0", "a1", "a2"]);
    await ch.cancel(ca.consumerTag);
    for (let i = 0; i < 2; i++) ch.sendToQueue("sac.q", Buffer.from(`b${i}`));
    assert.deepEqual(await withTimeout(b.done, 3000, "second consumer"), ["b0", "b1"]);
    await ch.close();
  });

  it("quorum: type quorum, x-delivery-count on redelivery, dead-lettered past x-delivery-limit", async () => {
    const ch = await f.conn.createChannel();
    await ch.assertQueue("qq.dead", { durable: false });
    await ch.assertQueue("qq.q", { durable: true, arguments: { "x-queue-type": "quorum", "x-delivery-limit": 1, "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "qq.dead" } });
    ch.sendToQueue("qq.q", Buffer.from("poison"));
    let m = await nextMessage(ch, "qq.q");
    assert.equal(m.properties.headers?.["x-delivery-count"], undefined, "first delivery has no count");
    ch.nack(m, false, true);
    m = await nextMessage(ch, "qq.q");
    assert.equal(m.fields.redelivered, true);
    assert.equal(m.properties.headers!["x-delivery-count"], 1);
    ch.nack(m, false, true);
    const dead = await nextMessage(ch, "qq.dead");
    assert.equal(dead.content.toString(), "poison");
    assert.equal(deathsOf(dead)[0]!["reason"], "delivery_limit");
    ch.ack(dead);
    assert.equal((await ch.checkQueue("qq.q")).messageCount, 0);
    await ch.deleteQueue("qq.q");
    await ch.close();
  });

  it("quorum: refuses what the type does not support, with RabbitMQ's texts", async () => {
    const rs = (name: string) => `queue '${name}' in vhost '/'`;
    assert.match(await declareError("qq.nd", { durable: false, arguments: { "x-queue-type": "quorum" } }), new RegExp(`PRECONDITION_FAILED - invalid property 'non-durable' for ${rs("qq.nd")}`));
    assert.match(await declareError("qq.ad", { durable: true, autoDelete: true, arguments: { "x-queue-type": "quorum" } }), /invalid property 'auto-delete'/);
    assert.match(await declareError("qq.ex", { durable: true, exclusive: true, arguments: { "x-queue-type": "quorum" } }), /invalid property 'exclusive-owner'/);
    assert.match(await declareError("qq.pr", { durable: true, arguments: { "x-queue-type": "quorum", "x-max-priority": 3 } }), new RegExp(`invalid arg 'x-max-priority' for ${rs("qq.pr")} of queue type rabbit_quorum_queue"`));
    assert.match(await declareError("qq.age", { durable: true, arguments: { "x-queue-type": "quorum", "x-max-age": "1D" } }), /invalid arg 'x-max-age' .* of queue type rabbit_quorum_queue"/);
    // The type's refusal comes before the value's: "soon" is no age either.
    assert.match(await declareError("qq.age", { durable: true, arguments: { "x-queue-type": "quorum", "x-max-age": "soon" } }), /invalid arg 'x-max-age' .* of queue type rabbit_quorum_queue"/);
    // What a quorum queue takes and a classic one refuses (RabbitMQ 3.10), and what no type knows.
    for (const args of [{ "x-quorum-initial-group-size": 3 }, { "x-max-in-memory-length": 10 }, { "x-dead-letter-strategy": "at-least-once" }, { "x-not-an-argument": 1 }]) {
      assert.equal(await declareError("qq.takes", { durable: true, arguments: { "x-queue-type": "quorum", ...args } }), "", JSON.stringify(args));
      await (await f.conn.createChannel()).deleteQueue("qq.takes");
    }
    assert.match(await declareError("cq.dl", { durable: true, arguments: { "x-delivery-limit": 3 } }), new RegExp(`invalid arg 'x-delivery-limit' for ${rs("cq.dl")} of queue type rabbit_classic_queue"`));
    assert.match(await declareError("sq.dl", { durable: true, arguments: { "x-queue-type": "stream", "x-delivery-limit": 3 } }), /invalid arg 'x-delivery-limit' .* of queue type rabbit_stream_queue"/);
  });

  it("quorum: basic.get carries x-delivery-count from the first delivery, a consumer's from the first return (RabbitMQ 3.10)", async () => {
    const ch = await f.conn.createConfirmChannel();
    await ch.assertQueue("qq.count", { durable: true, arguments: { "x-queue-type": "quorum" } });
    for (const body of ["got", "consumed"]) ch.sendToQueue("qq.count", Buffer.from(body), { headers: { mine: 1 } });
    await ch.waitForConfirms();
    const got = await ch.get("qq.count", { noAck: false });
    assert.ok(got);
    assert.deepEqual(got.properties.headers, { mine: 1, "x-delivery-count": 0 });
    ch.ack(got);
    const consumed = await nextMessage(ch, "qq.count");
    assert.deepEqual(consumed.properties.headers, { mine: 1 });
    ch.ack(consumed);
    await ch.deleteQueue("qq.count");
    await ch.close();
  });

  it("quorum: overflow reject-publish-dlx is taken and runs as drop-head (RabbitMQ 3.10)", async () => {
    const ch = await f.conn.createConfirmChannel();
    await ch.assertQueue("qq.dlx.dead", { durable: false });
    await ch.assertQueue("qq.dlx", { durable: true, arguments: { "x-queue-type": "quorum", "x-max-length": 2, "x-overflow": "reject-publish-dlx", "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "qq.dlx.dead" } });
    // Every publish is confirmed (reject-publish would nack the third); the oldest is dropped and dead-lettered.
    for (const body of ["one", "two", "three"]) ch.sendToQueue("qq.dlx", Buffer.from(body));
    await ch.waitForConfirms();
    const kept: string[] = [];
    for (let m = await ch.get("qq.dlx", { noAck: true }); m; m = await ch.get("qq.dlx", { noAck: true })) kept.push(m.content.toString());
    assert.deepEqual(kept, ["two", "three"]);
    const dead = await nextMessage(ch, "qq.dlx.dead");
    assert.equal(dead.content.toString(), "one");
    assert.equal(deathsOf(dead)[0]!["reason"], "maxlen");
    ch.ack(dead);
    await ch.deleteQueue("qq.dlx");
    await ch.deleteQueue("qq.dlx.dead");
    await ch.close();
  });

  it("invalid argument values are refused with 406 and RabbitMQ's texts", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ "x-message-ttl": -1 }, /invalid arg 'x-message-ttl' for queue 'bad' in vhost '\/': \{value_negative,-1\}/],
      [{ "x-message-ttl": "10" }, /invalid arg 'x-message-ttl' .*"expected integer, got longstr"/],
      [{ "x-expires": 0 }, /invalid arg 'x-expires' .*\{value_zero,0\}/],
      [{ "x-max-length": -2 }, /invalid arg 'x-max-length' .*\{value_negative,-2\}/],
      [{ "x-overflow": "drop-tail" }, /invalid arg 'x-overflow' .*: invalid_overflow/],
      [{ "x-max-priority": 256 }, /invalid arg 'x-max-priority' .*\{max_value_exceeded,256\}/],
      [{ "x-dead-letter-routing-key": "k" }, /invalid arg 'x-dead-letter-routing-key' for queue 'bad' in vhost '\/': routing_key_but_no_dlx_defined"/],
      [{ "x-single-active-consumer": 1 }, /invalid arg 'x-single-active-consumer'/],
    ];
    for (const [args, text] of cases) assert.match(await declareError("bad", { durable: false, arguments: args }), text, JSON.stringify(args));
  });
});
