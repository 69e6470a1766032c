// Super streams with rabbitmq-stream-js-client: createSuperStream builds a direct exchange bound to
// its partition streams in order, a super stream publisher routes by key (Route) over the
// partitions (Partitions), each partition is a stream a plain consumer reads, and
// deleteSuperStream removes the exchange and the partitions. Permission and missing-name codes
// from a raw client.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { Offset } from "rabbitmq-stream-js-client";
import { collector, withTimeout } from "../helpers/wait.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { RawStreamClient } from "./raw-stream-client.js";
import { useStreamBroker } from "./stream-helpers.js";

describe("super streams", () => {
  const s = useStreamBroker();

  it("creates a super stream, routes by key to its partitions and deletes it", async () => {
    await s.client.createSuperStream({ streamName: "invoices" }, ["eu", "us", "asia"]);
    const v = s.b.broker.vhosts.get("/")!;
    assert.equal(v.exchanges.get("invoices")?.type, "direct");
    for (const p of ["invoices-eu", "invoices-us", "invoices-asia"]) assert.ok(v.queues.has(p), p);
    assert.deepEqual(await s.client.queryPartitions({ superStream: "invoices" }), ["invoices-eu", "invoices-us", "invoices-asia"]);
    assert.deepEqual(await s.client.routeQuery({ routingKey: "us", superStream: "invoices" }), ["invoices-us"]);

    const publisher = await s.client.declareSuperStreamPublisher({ superStream: "invoices", routingStrategy: "key" }, (_content, opts) => opts.applicationProperties?.["region"] as string);
    // Its partition publishers send on their own schedule (it has no flush): the consumers wait.
    for (const region of ["eu", "us", "us", "asia"]) await publisher.send(Buffer.from(`for ${region}`), { applicationProperties: { region } });
    const us = collector<string>(2);
    await s.client.declareConsumer({ stream: "invoices-us", offset: Offset.first() }, (m) => us.push(m.content.toString()));
    assert.deepEqual(await withTimeout(us.done, 5000, "the us partition"), ["for us", "for us"]);
    const eu = collector<string>(1);
    await s.client.declareConsumer({ stream: "invoices-eu", offset: Offset.first() }, (m) => eu.push(m.content.toString()));
    assert.deepEqual(await withTimeout(eu.done, 5000, "the eu partition"), ["for eu"]);

    await s.client.deleteSuperStream({ streamName: "invoices" });
    assert.equal(v.exchanges.has("invoices"), false);
    for (const p of ["invoices-eu", "invoices-us", "invoices-asia"]) assert.equal(v.queues.has(p), false, p);
  });

  it("answers with RabbitMQ's codes for missing super streams, clashes and refused permissions", async () => {
    s.b.broker.putUser("reporter", { password: "pw", tags: [] });
    s.b.broker.setPermission("reporter", "/", { configure: "^$", write: "^$", read: ".*" });
    const c = await RawStreamClient.login(s.b.streamPort);
    const partitions = (name: string) => (corr: number): Buffer => new FrameWriter(0x19).u32(corr).str(name).frame();
    assert.equal((await c.request(partitions("no-such"), 0x19)).code, 0x02);
    assert.equal((await c.request((corr) => new FrameWriter(0x18).u32(corr).str("k").str("no-such").frame(), 0x18)).code, 0x02);
    const create = (name: string, parts: string[]) => (corr: number): Buffer => {
      const w = new FrameWriter(0x1d).u32(corr).str(name).i32(parts.length);
      for (const p of parts) w.str(p);
      w.i32(parts.length);
      parts.forEach((_, i) => w.str(String(i)));
      return w.map([]).frame();
    };
    assert.equal((await c.request(create("sales", ["sales-0", "sales-1"]), 0x1d)).code, 0x01);
    assert.equal((await c.request(create("sales", ["sales-0", "sales-1"]), 0x1d)).code, 0x05);
    assert.equal((await c.request(create("empty", []), 0x1d)).code, 0x11);
    const r = await RawStreamClient.login(s.b.streamPort, "reporter", "pw");
    assert.equal((await r.request(create("mine", ["mine-0"]), 0x1d)).code, 0x10);
    assert.equal((await r.request((corr) => new FrameWriter(0x1e).u32(corr).str("sales").frame(), 0x1e)).code, 0x10);
    assert.equal((await r.request((corr) => new FrameWriter(0x18).u32(corr).str("0").str("sales").frame(), 0x18)).code, 0x10);
    const listed = await r.request(partitions("sales"), 0x19);
    assert.equal(listed.code, 0x01);
    assert.equal(listed.frame.body.i32(), 2);
    assert.equal((await c.request((corr) => new FrameWriter(0x1e).u32(corr).str("sales").frame(), 0x1e)).code, 0x01);
    assert.equal((await c.request((corr) => new FrameWriter(0x1e).u32(corr).str("sales").frame(), 0x1e)).code, 0x02);
    c.close();
    r.close();
  });

  // Issue 48: the client's suite binds a super stream's partitions concurrently (keys "0", "1",
  // "2" in any order) and hashes keys onto the partitions' index: the order must not be theirs.
  it("lists partitions bound without an order by binding key, whatever order the bindings were made in", async () => {
    const conn = await amqp.connect(s.b.amqpUrl);
    try {
      const ch = await conn.createChannel();
      await ch.assertExchange("unordered", "direct", { durable: true });
      for (const k of ["2", "0", "1"]) {
        await ch.assertQueue(`unordered-${k}`, { durable: true, arguments: { "x-queue-type": "stream" } });
        await ch.bindQueue(`unordered-${k}`, "unordered", k);
      }
      assert.deepEqual(await s.client.queryPartitions({ superStream: "unordered" }), ["unordered-0", "unordered-1", "unordered-2"]);
      // The suite's bindings carry their order as a string, which RabbitMQ reads as the number.
      await ch.assertExchange("string-order", "direct", { durable: true });
      for (const [k, order] of [["b", "2"], ["c", "0"], ["a", "1"]] as const) {
        await ch.assertQueue(`string-order-${k}`, { durable: true, arguments: { "x-queue-type": "stream" } });
        await ch.bindQueue(`string-order-${k}`, "string-order", k, { "x-stream-partition-order": order });
      }
      assert.deepEqual(await s.client.queryPartitions({ superStream: "string-order" }), ["string-order-c", "string-order-a", "string-order-b"]);
    } finally {
      await conn.close();
    }
  });

  // Issue 48: the client's own tests create with RabbitMQ 3.10's locator names and a cluster size.
  it("creates streams and super streams with initial-cluster-size and the older leader locator names, kept as arguments", async () => {
    const args = { "queue-leader-locator": "random" as const, "max-age": "120s", "stream-max-segment-size-bytes": 1000, "initial-cluster-size": 5, "max-length-bytes": 20000 };
    assert.equal(await s.client.createStream({ stream: "with-cluster-size", arguments: args }), true);
    assert.deepEqual(s.b.broker.vhosts.get("/")!.queues.get("with-cluster-size")?.arguments, {
      "x-queue-type": "stream",
      "x-queue-leader-locator": "random",
      "x-max-age": "120s",
      "x-stream-max-segment-size-bytes": 1000,
      "x-initial-cluster-size": 5,
      "x-max-length-bytes": 20000,
    });
    assert.equal(await s.client.createSuperStream({ streamName: "with-locator", arguments: { "queue-leader-locator": "least-leaders" } }), true);
    assert.equal(s.b.broker.vhosts.get("/")!.queues.get("with-locator-0")?.arguments["x-queue-leader-locator"], "least-leaders");
  });
});
