// Read slabs that come back (src/listeners/slab-pool.ts, values/body-lease.ts): a body of 256 B
// or more stays a slice of the socket's read slab, and the slab returns to the pool once every
// holder is done. Here the pool poisons each slab it takes back (0xdb), so a body read after its
// slab was wrongly released arrives corrupted. Every path that keeps a body is driven with large
// bodies and each delivery is checked byte for byte: acks, fanout with unlike consumers, no-ack,
// basic.get, requeue, a closed channel's redelivery, dead-lettering, a local shovel (a consumer
// that does not count its holds), a stream and a durable queue beside a classic one.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { AMQPClient } from "@cloudamqp/amqp-client";
import type { SlabPool } from "../../src/listeners/slab-pool.js";
import type { TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { body, check, churn, consumeChecked, publishMany, sizeOf, startPooledBroker, type PooledBroker } from "../helpers/leased-bodies.js";
import { eventually, withTimeout } from "../helpers/wait.js";

describe("lent bodies over recycled read slabs", () => {
  let broker: TestBroker;
  let pool: SlabPool;
  let conn: AMQPClient;
  let pooled: PooledBroker;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    pooled = await startPooledBroker();
    ({ broker, pool, conn } = pooled);
  });
  after(() => pooled.close());

  it("acked deliveries give their slabs back, and every body arrives intact", async () => {
    const ch = await conn.channel();
    await ch.queueDeclare("lease-plain", { exclusive: true });
    const pub = await conn.channel();
    const consumed = consumeChecked(ch, "lease-plain", 400, { prefetch: 50 });
    await publishMany(pub, "", "lease-plain", 0, 400);
    assert.equal((await consumed).length, 400);
    // Every body acked: each slab is back but the one the connection may be reading into.
    await eventually(() => pool.outstanding <= 1, 5000, "every slab but the reader's back in the pool");
  });

  it("fanout to a fast, a slow and a no-ack consumer", async () => {
    const ch = await conn.channel();
    await ch.exchangeDeclare("lease-fan", "fanout", { autoDelete: true });
    for (const q of ["lease-fan-a", "lease-fan-b", "lease-fan-c"]) {
      await ch.queueDeclare(q, { exclusive: true });
      await ch.queueBind(q, "lease-fan", "");
    }
    const runs = [
      consumeChecked(await conn.channel(), "lease-fan-a", 120),
      consumeChecked(await conn.channel(), "lease-fan-b", 120, { ackDelayMs: 300 }),
      consumeChecked(await conn.channel(), "lease-fan-c", 120, { noAck: true }),
    ];
    await publishMany(await conn.channel(), "lease-fan", "", 1000, 120);
    for (const r of runs) assert.equal((await r).length, 120);
  });

  it("basic.get with and without ack", async () => {
    const ch = await conn.channel();
    await ch.queueDeclare("lease-get", { exclusive: true });
    await publishMany(ch, "", "lease-get", 2000, 40);
    for (let i = 0; i < 40; i++) {
      const m = await ch.basicGet("lease-get", { noAck: i % 2 === 0 });
      assert.ok(m, `get ${i}`);
      check(m);
      if (i % 2 === 1) await m.ack();
    }
  });

  it("requeued deliveries and a closed channel's unacked ones come back intact", async () => {
    const setup = await conn.channel();
    await setup.queueDeclare("lease-requeue", { exclusive: true });
    await publishMany(setup, "", "lease-requeue", 3000, 60);
    // First consumer: nacks the even ones once with requeue (they come back to it, redelivered),
    // keeps everything else unacked, then closes its channel: all 60 go back to the queue.
    const first = await conn.channel();
    await first.prefetch(60);
    let got = 0;
    const held = new Promise<void>((resolve) =>
      void first.basicConsume("lease-requeue", { noAck: false }, (m) => {
        const seed = check(m);
        if (!m.redelivered && seed % 2 === 0) void m.nack(true);
        if (++got === 90) resolve();
      }),
    );
    await withTimeout(held, 20_000, "first consumer");
    await first.close();
    await churn(conn, "lease-churn", 4000);
    const seen = await consumeChecked(await conn.channel(), "lease-requeue", 60);
    assert.equal(new Set(seen).size, 60);
  });

  it("dead-lettered copies stay intact after the originals are gone", async () => {
    const ch = await conn.channel();
    await ch.exchangeDeclare("lease-dlx", "fanout", { autoDelete: true });
    for (const q of ["lease-dead-1", "lease-dead-2"]) {
      await ch.queueDeclare(q, { exclusive: true });
      await ch.queueBind(q, "lease-dlx", "");
    }
    await ch.queueDeclare("lease-dying", { exclusive: true }, { "x-dead-letter-exchange": "lease-dlx" });
    await ch.exchangeDeclare("lease-both", "fanout", { autoDelete: true });
    await ch.queueDeclare("lease-live", { exclusive: true });
    await ch.queueBind("lease-dying", "lease-both", "");
    await ch.queueBind("lease-live", "lease-both", "");
    await publishMany(ch, "lease-both", "", 5000, 50);
    // The live copies are acked (their holds released), the dying ones rejected into the dead-letter queues.
    await consumeChecked(await conn.channel(), "lease-live", 50);
    const rejecter = await conn.channel();
    let rejected = 0;
    const allRejected = new Promise<void>((resolve) =>
      void rejecter.basicConsume("lease-dying", { noAck: false }, (m) => {
        check(m);
        void m.reject(false);
        if (++rejected === 50) resolve();
      }),
    );
    await withTimeout(allRejected, 20_000, "rejections");
    await churn(conn, "lease-churn-2", 6000);
    await consumeChecked(await conn.channel(), "lease-dead-1", 50);
    await consumeChecked(await conn.channel(), "lease-dead-2", 50);
  });

  it("a delayed exchange keeps the bodies it holds until it releases them", async () => {
    const ch = await conn.channel();
    await ch.exchangeDeclare("lease-delay", "x-delayed-message", { autoDelete: true }, { "x-delayed-type": "fanout" });
    await ch.queueDeclare("lease-delayed", { exclusive: true });
    await ch.queueBind("lease-delayed", "lease-delay", "");
    await publishMany(ch, "lease-delay", "", 9000, 30, false, { "x-delay": 400 });
    await churn(conn, "lease-churn-3", 9100);
    await consumeChecked(await conn.channel(), "lease-delayed", 30);
  });

  it("a transaction's publishes and acks", async () => {
    const ch = await conn.channel();
    await ch.queueDeclare("lease-tx", { exclusive: true });
    await ch.txSelect();
    for (let seed = 9500; seed < 9530; seed++) await ch.basicPublish("", "lease-tx", body(sizeOf(seed), seed), { messageId: String(seed) });
    await churn(conn, "lease-churn-4", 9600);
    await ch.txCommit();
    const consumer = await conn.channel();
    await consumer.txSelect();
    let n = 0;
    const all = new Promise<void>((resolve) =>
      void consumer.basicConsume("lease-tx", { noAck: false }, (m) => {
        check(m);
        void m.ack();
        if (++n === 30) resolve();
      }),
    );
    await withTimeout(all, 20_000, "tx deliveries");
    await consumer.txCommit();
  });

  it("a local shovel (a consumer that does not count holds) moves bodies that stay intact", async () => {
    const ch = await conn.channel();
    await ch.queueDeclare("lease-shovel-in", { durable: false });
    await ch.queueDeclare("lease-shovel-out", { durable: false });
    await ch.exchangeDeclare("lease-shovel-fan", "fanout", { autoDelete: true });
    await ch.queueDeclare("lease-shovel-side", { exclusive: true });
    await ch.queueBind("lease-shovel-in", "lease-shovel-fan", "");
    await ch.queueBind("lease-shovel-side", "lease-shovel-fan", "");
    const r = await api("PUT", "/api/parameters/shovel/%2f/lease-mover", { value: { "src-uri": "amqp://", "src-queue": "lease-shovel-in", "dest-uri": "amqp://", "dest-queue": "lease-shovel-out" } });
    assert.ok(r.status === 201 || r.status === 204, `shovel: ${r.status}`);
    await publishMany(ch, "lease-shovel-fan", "", 7000, 60);
    await consumeChecked(await conn.channel(), "lease-shovel-side", 60);
    await consumeChecked(await conn.channel(), "lease-shovel-out", 60);
    await api("DELETE", "/api/parameters/shovel/%2f/lease-mover");
    await ch.queueDelete("lease-shovel-in");
    await ch.queueDelete("lease-shovel-out");
  });

  it("a stream and a durable queue beside a classic queue keep their bodies", async () => {
    const ch = await conn.channel();
    await ch.exchangeDeclare("lease-mixed", "fanout", { autoDelete: true });
    await ch.queueDeclare("lease-stream", { durable: true }, { "x-queue-type": "stream" });
    await ch.queueDeclare("lease-durable", { durable: true });
    await ch.queueDeclare("lease-classic", { exclusive: true });
    for (const q of ["lease-stream", "lease-durable", "lease-classic"]) await ch.queueBind(q, "lease-mixed", "");
    await publishMany(ch, "lease-mixed", "", 8000, 40, true);
    await publishMany(await conn.channel(), "lease-mixed", "", 8040, 40, false);
    await consumeChecked(await conn.channel(), "lease-classic", 80);
    await consumeChecked(await conn.channel(), "lease-durable", 80);
    const stream = await conn.channel();
    await consumeChecked(stream, "lease-stream", 80, { prefetch: 100, args: { "x-stream-offset": "first" } });
    await ch.queueDelete("lease-stream");
    await ch.queueDelete("lease-durable");
  });
});
