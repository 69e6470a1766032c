// Persistent bodies over recycled read slabs (src/store/held-bodies.ts, values/body-lease.ts): a
// persistent body of 256 B or more stays a slice of the socket's read slab under a lease, held
// by its entries in classic queues, durable or not, and by the message store until its group
// commit has written it. The pools here poison each slab they take back (0xdb), so a body read,
// written or paged back after a wrong release arrives corrupted. Covered: durable queues acked at
// once (often before their records are written) giving their slabs back, bodies of a plain and a
// priority queue held in memory and paged out across recycled slabs (giving them back too), and a restart that reads
// every unacked body from the files.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AMQPClient } from "@cloudamqp/amqp-client";
import type { TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { churn, consumeChecked, publishMany, startPooledBroker, type PooledBroker } from "../helpers/leased-bodies.js";
import { eventually, withTimeout } from "../helpers/wait.js";

describe("persistent bodies over recycled read slabs", () => {
  it("durable queues acked at once and beside a classic one give their slabs back", async () => {
    // The store's default paging limits: nothing is paged out here.
    const { pool, conn, close } = await startPooledBroker();
    try {
      await ackedAtOnceAndLater(conn);
      // Every body acked and written: each slab is back but the one the connection may be reading into.
      await eventually(() => pool.outstanding <= 1, 5000, "every slab but the reader's back in the pool");
    } finally {
      await close();
    }
  });
});

/** A durable and a classic queue on one fanout, both consumed: at once, and 200 ms late. */
async function ackedAtOnceAndLater(conn: AMQPClient): Promise<void> {
  const ch = await conn.channel();
  await ch.exchangeDeclare("dl-fan", "fanout", { autoDelete: true });
  await ch.queueDeclare("dl-fast", { durable: true });
  await ch.queueDeclare("dl-classic", { exclusive: true });
  for (const q of ["dl-fast", "dl-classic"]) await ch.queueBind(q, "dl-fan", "");
  // dl-fast acks as deliveries arrive, often before their records are written (they are then
  // skipped, pending-records.ts); the classic queue's consumer acks 200 ms late.
  const fast = consumeChecked(await conn.channel(), "dl-fast", 150, { prefetch: 200 });
  const classic = consumeChecked(await conn.channel(), "dl-classic", 150, { prefetch: 200, ackDelayMs: 200 });
  await publishMany(await conn.channel(), "dl-fan", "", 20_000, 150, true);
  await fast;
  await classic;
}

describe("persistent bodies paged out over recycled read slabs", () => {
  let broker: TestBroker;
  let conn: AMQPClient;
  let pooled: PooledBroker;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    // Small paging limits: a queue past 10 messages or 256 KiB in memory keeps the rest on disk only.
    pooled = await startPooledBroker({ messageStore: { paging: { maxEntries: 10, maxBytes: 256 * 1024 } } });
    ({ broker, conn } = pooled);
  });
  after(() => pooled.close());

  it("paged-out bodies of a plain and a priority queue are written intact and read back", async () => {
    const ch = await conn.channel();
    await ch.queueDeclare("dl-paged", { durable: true });
    await ch.queueDeclare("dl-paged-prio", { durable: true }, { "x-max-priority": 3 });
    await publishMany(ch, "", "dl-paged", 30_000, 80, true);
    await publishMany(await conn.channel(), "", "dl-paged-prio", 31_000, 80, true);
    const { json: paged } = await api("GET", "/api/queues/%2f/dl-paged");
    assert.ok(paged.messages_paged_out > 0, `messages paged out: ${paged.messages_paged_out}`);
    await churn(conn, "dl-churn-2", 32_000);
    await consumeChecked(await conn.channel(), "dl-paged", 80, { prefetch: 15 });
    await consumeChecked(await conn.channel(), "dl-paged-prio", 80, { prefetch: 15 });
    for (const q of ["dl-paged", "dl-paged-prio"]) await ch.queueDelete(q);
    // A paged-out record holds its body until written (stored-queue-log.ts), then lets go: once
    // every message is consumed, each slab is back but the one the connection may be reading into.
    await eventually(() => pooled.pool.outstanding <= 1, 5000, "every slab but the reader's back in the pool");
  });
});

describe("persistent bodies read back after a restart", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-leases-"));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("every unacked body is on disk as published, including those a consumer held", async () => {
    const first = await startPooledBroker({ dataDir });
    const conn = first.conn;
    const ch = await conn.channel();
    await ch.exchangeDeclare("rs-fan", "fanout", { durable: true });
    for (const q of ["rs-held", "rs-idle"]) {
      await ch.queueDeclare(q, { durable: true });
      await ch.queueBind(q, "rs-fan", "");
    }
    // rs-held's consumer takes every message and never acks; rs-idle has no consumer.
    const holder = await conn.channel();
    await holder.prefetch(200);
    let delivered = 0;
    const allDelivered = new Promise<void>((resolve) => void holder.basicConsume("rs-held", { noAck: false }, () => void (++delivered === 120 && resolve())));
    await publishMany(await conn.channel(), "rs-fan", "", 40_000, 120, true);
    await withTimeout(allDelivered, 20_000, "deliveries to the holding consumer");
    await churn(conn, "rs-churn", 41_000);
    await first.close();

    const second = await startPooledBroker({ dataDir });
    try {
      for (const q of ["rs-held", "rs-idle"]) {
        const seen = await consumeChecked(await second.conn.channel(), q, 120, { prefetch: 30 });
        assert.equal(new Set(seen).size, 120, q);
      }
    } finally {
      await second.close();
    }
  });
});
