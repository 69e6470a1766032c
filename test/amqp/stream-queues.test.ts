// Stream queues over AMQP 0-9-1 (issue 24, docs/STREAMS.md), as RabbitMQ 3.10 serves them:
// declared with x-queue-type stream, read from any offset by independent consumers that must
// ack and set a prefetch, each delivery with its x-stream-offset header, kept across a restart,
// trimmed by retention. amqplib and @cloudamqp/amqp-client against the real broker.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Channel, ConsumeMessage } from "amqplib";
import amqp from "amqplib";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { startTestBroker } from "../helpers/broker.js";
import { channelClosedBy } from "../helpers/channel-close.js";
import { withTimeout } from "../helpers/wait.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker as startInMemory } from "../../src/testing/index.js";

const STREAM = { durable: true, arguments: { "x-queue-type": "stream" } };

/** Consumes `n` messages from `queue` starting at `offset`; resolves with [body, x-stream-offset] pairs. */
async function read(ch: Channel, queue: string, offset: unknown, n: number, prefetch = 50): Promise<Array<[string, number]>> {
  await ch.prefetch(prefetch);
  const got: Array<[string, number]> = [];
  let tag = "";
  await withTimeout(
    new Promise<void>((resolve) => {
      void ch
        .consume(
          queue,
          (m: ConsumeMessage | null) => {
            if (!m) return;
            got.push([m.content.toString(), m.properties.headers!["x-stream-offset"] as number]);
            ch.ack(m);
            if (got.length === n) resolve();
          },
          { arguments: { "x-stream-offset": offset } },
        )
        .then((ok) => (tag = ok.consumerTag));
    }),
    10_000,
    `${n} messages from ${queue} at ${String(offset)}`,
  );
  await ch.cancel(tag);
  return got;
}

async function publish(ch: Channel & { waitForConfirms(): Promise<void> }, queue: string, bodies: string[]): Promise<void> {
  for (const b of bodies) ch.sendToQueue(queue, Buffer.from(b));
  await ch.waitForConfirms();
}

describe("stream queues over AMQP 0-9-1", () => {
  const fx = useBrokerWithConnection();

  it("refuses what RabbitMQ refuses at declare, with its codes and texts", async () => {
    const refused = (opts: object): Promise<string> => channelClosedBy(fx.conn, (c) => c.assertQueue(`bad-${Math.random()}`, opts));
    assert.match(await refused({ durable: false, arguments: { "x-queue-type": "stream" } }), /406 \(PRECONDITION-FAILED\) with message "PRECONDITION_FAILED - invalid property 'non-durable' for queue/);
    assert.match(await refused({ durable: true, exclusive: true, arguments: { "x-queue-type": "stream" } }), /406.*invalid property 'exclusive-owner'/);
    assert.match(await refused({ durable: true, autoDelete: true, arguments: { "x-queue-type": "stream" } }), /406.*invalid property 'auto-delete'/);
    assert.match(await refused({ durable: true, arguments: { "x-queue-type": "stream", "x-message-ttl": 1000 } }), /406.*invalid arg 'x-message-ttl'/);
    assert.match(await refused({ durable: true, arguments: { "x-queue-type": "stream", "x-max-age": "7X" } }), /406.*invalid arg 'x-max-age'.*invalid_max_age/);
  });

  it("delivers every message to each consumer from where it asked, with its x-stream-offset", async () => {
    const ch = await fx.conn.createConfirmChannel();
    await ch.assertQueue("st-offsets", { ...STREAM, arguments: { ...STREAM.arguments, "x-max-age": "7D" } });
    await publish(ch, "st-offsets", ["a", "b", "c", "d", "e"]);
    const c1 = await fx.conn.createChannel();
    const c2 = await fx.conn.createChannel();
    assert.deepEqual(await read(c1, "st-offsets", "first", 5), [["a", 0], ["b", 1], ["c", 2], ["d", 3], ["e", 4]]);
    // A second consumer reads the same messages again: nothing was removed by the first one's acks.
    assert.deepEqual(await read(c2, "st-offsets", 3, 2), [["d", 3], ["e", 4]]);
  });

  it("starts at next, last, a timestamp and an interval as RabbitMQ does", async () => {
    const ch = await fx.conn.createConfirmChannel();
    await ch.assertQueue("st-starts", STREAM);
    await publish(ch, "st-starts", ["old1", "old2"]);
    // amqplib's way of sending an AMQP timestamp (seconds).
    const before = { "!": "timestamp", value: Math.floor(Date.now() / 1000) - 1 };
    const reader = await fx.conn.createChannel();
    const next = read(reader, "st-starts", "next", 1);
    await new Promise((r) => setTimeout(r, 50));
    await publish(ch, "st-starts", ["new"]);
    assert.deepEqual(await next, [["new", 2]]);
    // "last" is the start of the newest chunk: "new" was stored alone, in a later batch.
    assert.deepEqual(await read(await fx.conn.createChannel(), "st-starts", "last", 1), [["new", 2]]);
    assert.deepEqual(await read(await fx.conn.createChannel(), "st-starts", before, 3), [["old1", 0], ["old2", 1], ["new", 2]]);
    assert.deepEqual(await read(await fx.conn.createChannel(), "st-starts", "10m", 3), [["old1", 0], ["old2", 1], ["new", 2]]);
  });

  it("refuses basic.get, no-ack consumers, consumers without a prefetch, and nack/reject", async () => {
    const ch = await fx.conn.createConfirmChannel();
    await ch.assertQueue("st-refusals", STREAM);
    await publish(ch, "st-refusals", ["x"]);
    // 540 NOT_IMPLEMENTED is a connection error in AMQP 0-9-1: RabbitMQ closes the connection.
    const connectionClosedBy = async (action: (c: Channel) => unknown): Promise<string> => {
      const conn = await amqp.connect(fx.broker.amqpUrl);
      const closed = new Promise<string>((resolve) => conn.on("error", (e: Error) => resolve(e.message)));
      const c = await conn.createChannel();
      c.on("error", () => {});
      await c.prefetch(10);
      void Promise.resolve(action(c)).catch(() => undefined);
      return withTimeout(closed, 5000, "connection close");
    };
    assert.match(await connectionClosedBy((c) => c.get("st-refusals")), /540 \(NOT-IMPLEMENTED\) with message "NOT_IMPLEMENTED - basic.get not supported by stream queues queue 'st-refusals' in vhost '\/'"/);
    assert.match(await connectionClosedBy((c) => c.consume("st-refusals", () => {}, { noAck: true })), /540 \(NOT-IMPLEMENTED\) with message "NOT_IMPLEMENTED - automatic acknowledgement not supported by stream queues queue 'st-refusals'/);
    assert.match(
      await connectionClosedBy((c) => c.consume("st-refusals", (m) => m && c.nack(m), { arguments: { "x-stream-offset": "first" } })),
      /540 \(NOT-IMPLEMENTED\) with message "NOT_IMPLEMENTED - basic.nack and basic.reject not supported by stream queues/,
    );
    assert.match(await channelClosedBy(fx.conn, (c) => c.consume("st-refusals", () => {})), /406 \(PRECONDITION-FAILED\) with message "PRECONDITION_FAILED - consumer prefetch count is not set for 'queue 'st-refusals' in vhost '\/''"/);
    // The queue is still there and readable: the refusals changed nothing.
    assert.deepEqual(await read(await fx.conn.createChannel(), "st-refusals", "first", 1), [["x", 0]]);
  });

  it("gives a consumer no more than its prefetch until it acks: acks only return credit", async () => {
    const ch = await fx.conn.createConfirmChannel();
    await ch.assertQueue("st-credit", STREAM);
    await publish(ch, "st-credit", ["1", "2", "3", "4"]);
    const c = await fx.conn.createChannel();
    await c.prefetch(2);
    const held: ConsumeMessage[] = [];
    await c.consume("st-credit", (m) => m && held.push(m), { arguments: { "x-stream-offset": "first" } });
    await withTimeout((async () => { while (held.length < 2) await new Promise((r) => setTimeout(r, 5)); })(), 5000, "two deliveries");
    // A third would follow at once if the prefetch allowed it.
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(held.length, 2);
    c.ack(held[0]!);
    await withTimeout((async () => { while (held.length < 3) await new Promise((r) => setTimeout(r, 5)); })(), 5000, "the third delivery");
    const q = fx.broker.broker.vhosts.get("/")!.queues.get("st-credit")!;
    assert.equal(q.messageCount, 4, "acked messages stay in the stream");
  });

  it("is read by @cloudamqp/amqp-client and listed as a stream in the API", async () => {
    const ch = await fx.conn.createConfirmChannel();
    await ch.assertQueue("st-client", STREAM);
    await publish(ch, "st-client", ["p", "q"]);
    const conn = await new AMQPClient(fx.broker.amqpUrl).connect();
    const c = await conn.channel();
    await c.prefetch(10);
    const bodies: string[] = [];
    const done = new Promise<void>((resolve) => {
      void c.basicConsume("st-client", { noAck: false, args: { "x-stream-offset": "first" } }, async (m) => {
        bodies.push(m.bodyToString() ?? "");
        assert.equal(typeof m.properties.headers?.["x-stream-offset"], "number");
        await m.ack();
        if (bodies.length === 2) resolve();
      });
    });
    await withTimeout(done, 5000, "@cloudamqp/amqp-client deliveries");
    assert.deepEqual(bodies, ["p", "q"]);
    await conn.close();
    const res = await fetch(`${fx.broker.httpUrl}/api/queues/%2F/st-client`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } });
    const rec = (await res.json()) as { type: string; durable: boolean; messages_ready: number };
    assert.equal(rec.type, "stream");
    assert.equal(rec.durable, true);
    assert.equal(rec.messages_ready, 2);
  });
});

describe("stream queues: storage", () => {
  it("keeps every confirmed message across a restart, whatever its delivery mode", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-stream-"));
    const first = await startTestBroker({ dataDir });
    const conn = await amqp.connect(first.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("st-durable", STREAM);
    await publish(ch, "st-durable", Array.from({ length: 50 }, (_, i) => `t${i}`));
    await conn.close();
    await first.close();
    const again = await startTestBroker({ dataDir });
    try {
      const c = await amqp.connect(again.amqpUrl);
      const got = await read(await c.createChannel(), "st-durable", "first", 50);
      assert.deepEqual(got.map(([b]) => b), Array.from({ length: 50 }, (_, i) => `t${i}`));
      assert.deepEqual(got.map(([, o]) => o), Array.from({ length: 50 }, (_, i) => i));
      const journal = again.broker.journal as unknown as { logs: Map<string, unknown> };
      assert.equal(journal.logs.has("/\u0000st-durable"), false, "a stream has no queue log in the message store");
      await c.close();
    } finally {
      await again.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("deletes whole old segments past x-max-length-bytes; a consumer from first starts after them", async () => {
    const b = await startTestBroker();
    try {
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("st-retention", { durable: true, arguments: { "x-queue-type": "stream", "x-max-length-bytes": 20_000, "x-stream-max-segment-size-bytes": 5_000 } });
      for (let round = 0; round < 20; round++) await publish(ch, "st-retention", Array.from({ length: 5 }, (_, i) => `${round}-${i}-${"x".repeat(400)}`));
      const q = b.broker.vhosts.get("/")!.queues.get("st-retention") as unknown as { stream: { firstOffset: number; bytes: number; segmentCount: number } };
      assert.ok(q.stream.firstOffset > 0, "old messages are gone");
      assert.ok(q.stream.bytes <= 20_000 + 5_000 + 3_000, `kept ${q.stream.bytes} bytes`);
      const [oldest] = await read(await conn.createChannel(), "st-retention", "first", 1);
      assert.equal(oldest![1], q.stream.firstOffset);
      await conn.close();
    } finally {
      await b.close();
    }
  });

  it("works in the in-memory test broker (coney/testing), nothing stored", async () => {
    const b = await startInMemory();
    try {
      const conn = await amqp.connect(b.amqpUrl);
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("st-memory", STREAM);
      await publish(ch, "st-memory", ["m1", "m2"]);
      assert.deepEqual(await read(await conn.createChannel(), "st-memory", "first", 2), [["m1", 0], ["m2", 1]]);
      await conn.close();
    } finally {
      await b.close();
    }
  });
});
