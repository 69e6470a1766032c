// The x-consistent-hash exchange over a real broker and amqplib: weights, stability when a queue
// goes, hash-header and hash-property, and RabbitMQ's refusals.
import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { Channel } from "amqplib";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { channelClosedBy } from "../helpers/channel-close.js";
import { withTimeout } from "../helpers/wait.js";

describe("x-consistent-hash exchange", () => {
  const fx = useBrokerWithConnection();
  let ch: Channel;
  before(async () => {
    ch = await fx.conn.createChannel();
  });

  async function hashExchange(name: string, args: Record<string, unknown>, weights: Record<string, string>): Promise<string[]> {
    await ch.assertExchange(name, "x-consistent-hash", { durable: false, arguments: args });
    const queues: string[] = [];
    for (const [q, weight] of Object.entries(weights)) {
      await ch.assertQueue(`${name}.${q}`, { exclusive: true });
      await ch.bindQueue(`${name}.${q}`, name, weight);
      queues.push(`${name}.${q}`);
    }
    return queues;
  }

  /** Where each message went: its body (a key) → queue name, by consuming every queue until `n` arrived. */
  async function destinations(queues: string[], n: number): Promise<Map<string, string>> {
    const where = new Map<string, string>();
    let done!: () => void;
    const all = new Promise<void>((r) => (done = r));
    const tags: string[] = [];
    for (const q of queues) {
      const { consumerTag } = await ch.consume(q, (m) => {
        if (!m) return;
        where.set(m.content.toString(), q);
        if (where.size === n) done();
      }, { noAck: true });
      tags.push(consumerTag);
    }
    await withTimeout(all, 20_000, `${n} messages`);
    for (const t of tags) await ch.cancel(t);
    return where;
  }

  it("splits 30,000 random routing keys in proportion to the binding weights (within 10%)", async () => {
    const queues = await hashExchange("chx-weights", {}, { a: "1", b: "2", c: "3" });
    const total = 30_000;
    for (let i = 0; i < total; i++) ch.publish("chx-weights", randomBytes(8).toString("hex"), Buffer.from("x"));
    const counts: number[] = [];
    for (const q of queues) counts.push((await ch.checkQueue(q)).messageCount);
    assert.equal(counts.reduce((a, b) => a + b, 0), total, "every message routed to exactly one queue");
    const weights = [1, 2, 3];
    for (let i = 0; i < 3; i++) {
      const expected = (total * weights[i]!) / 6;
      const off = Math.abs(counts[i]! - expected) / expected;
      assert.ok(off < 0.1, `queue ${queues[i]} got ${counts[i]} of ${total}, expected about ${expected} (off by ${(off * 100).toFixed(1)}%)`);
    }
  });

  it("moves only the removed queue's keys when a queue is unbound", async () => {
    const queues = await hashExchange("chx-stable", {}, { a: "1", b: "1", c: "1", d: "1" });
    const keys = Array.from({ length: 4000 }, (_, i) => `key-${i}`);
    for (const k of keys) ch.publish("chx-stable", k, Buffer.from(k));
    const before = await destinations(queues, keys.length);
    await ch.unbindQueue(queues[1]!, "chx-stable", "1");
    for (const k of keys) ch.publish("chx-stable", k, Buffer.from(k));
    const afterwards = await destinations(queues, keys.length);
    let moved = 0;
    for (const k of keys) {
      const was = before.get(k)!;
      const now = afterwards.get(k)!;
      assert.notEqual(now, queues[1], "nothing goes to the unbound queue");
      if (was !== queues[1]) assert.equal(now, was, `key ${k} stayed where it was`);
      else moved++;
    }
    assert.ok(moved > 500 && moved < 1500, `the unbound queue had about a quarter of the keys (${moved})`);
  });

  it("hashes the hash-header header instead of the routing key; a message without it goes nowhere", async () => {
    const queues = await hashExchange("chx-header", { "hash-header": "shard" }, { a: "1", b: "1" });
    // The same header value with different routing keys lands in one queue; many values spread over both.
    for (let i = 0; i < 50; i++) ch.publish("chx-header", `rk-${i}`, Buffer.from(`same-${i}`), { headers: { shard: "customer-42" } });
    for (let i = 0; i < 200; i++) ch.publish("chx-header", "fixed", Buffer.from(`spread-${i}`), { headers: { shard: `c-${i}` } });
    ch.publish("chx-header", "fixed", Buffer.from("no-header"), {});
    const where = await destinations(queues, 250);
    const same = new Set([...where].filter(([k]) => k.startsWith("same-")).map(([, q]) => q));
    assert.equal(same.size, 1, "one header value, one queue");
    const spread = new Set([...where].filter(([k]) => k.startsWith("spread-")).map(([, q]) => q));
    assert.equal(spread.size, 2, "different header values reach both queues");
    assert.ok(!where.has("no-header"));
    for (const q of queues) assert.equal((await ch.checkQueue(q)).messageCount, 0, "the header-less message was not routed");
  });

  it("hashes message_id with hash-property", async () => {
    const queues = await hashExchange("chx-prop", { "hash-property": "message_id" }, { a: "1", b: "1" });
    for (let i = 0; i < 40; i++) ch.publish("chx-prop", `rk-${i}`, Buffer.from(`same-${i}`), { messageId: "order-7" });
    for (let i = 0; i < 200; i++) ch.publish("chx-prop", "fixed", Buffer.from(`spread-${i}`), { messageId: `order-${i}` });
    const where = await destinations(queues, 240);
    assert.equal(new Set([...where].filter(([k]) => k.startsWith("same-")).map(([, q]) => q)).size, 1);
    assert.equal(new Set([...where].filter(([k]) => k.startsWith("spread-")).map(([, q]) => q)).size, 2);
  });

  const closedWith = (action: (c: Channel) => Promise<unknown>): Promise<string> => channelClosedBy(fx.conn, action);

  it("refuses a binding key that is not a positive integer, and hash-header with hash-property (406)", async () => {
    await ch.assertExchange("chx-refuse", "x-consistent-hash", { durable: false });
    await ch.assertQueue("chx-refuse.q", { exclusive: true });
    assert.match(await closedWith((c) => c.bindQueue("chx-refuse.q", "chx-refuse", "abc")), /406 \(PRECONDITION-FAILED\) with message "PRECONDITION_FAILED - The binding key must be an integer: <<"abc">>"/);
    assert.match(await closedWith((c) => c.bindQueue("chx-refuse.q", "chx-refuse", "0")), /PRECONDITION_FAILED - The binding key must be greater than 0/);
    assert.match(
      await closedWith((c) => c.assertExchange("chx-both", "x-consistent-hash", { arguments: { "hash-header": "h", "hash-property": "message_id" } })),
      /PRECONDITION_FAILED - hash-header and hash-property are mutually exclusive/,
    );
    assert.match(await closedWith((c) => c.assertExchange("chx-badprop", "x-consistent-hash", { arguments: { "hash-property": "app_id" } })), /PRECONDITION_FAILED - Unsupported property: app_id/);
    assert.equal(fx.broker.broker.vhost("/").exchanges.has("chx-both"), false, "a refused declare leaves nothing behind");
  });
});
