// Deduplication and offset tracking with rabbitmq-stream-js-client, through reconnects and a broker
// restart: the same publisher reference and publishing ids sent twice are stored once (and
// confirmed both times), QueryPublisherSequence answers the last id, StoreOffset/QueryOffset keep
// a consumer's position, and all of it survives a restart (the stream's tracking file).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Offset, type Client, type Consumer, type Publisher } from "rabbitmq-stream-js-client";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import type { TestBroker } from "../helpers/broker.js";
import { startStreamBroker, streamClient } from "./stream-helpers.js";

/** Sends ids `from`..`to` with explicit publishing ids and waits until each is confirmed. */
async function sendIds(p: Publisher, from: number, to: number): Promise<void> {
  const confirmed = collector<bigint>(to - from + 1);
  p.on("publish_confirm", (err, ids) => {
    if (err === null) for (const id of ids) confirmed.push(id);
  });
  for (let id = from; id <= to; id++) await p.basicSend(BigInt(id), Buffer.from(`msg-${id}`));
  await p.flush();
  await withTimeout(confirmed.done, 5000, `confirms of ${from}..${to}`);
}

describe("stream deduplication and offset tracking", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-stream-tracking-"));
  let b: TestBroker & { streamPort: number };
  let client: Client;
  before(async () => {
    b = await startStreamBroker({ dataDir });
    client = await streamClient(b);
  });
  after(async () => {
    await client?.close();
    await b?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const count = (): number => b.broker.vhosts.get("/")!.queues.get("dedup")?.messageCount ?? -1;

  it("stores a publisher's ids once, also after reconnecting and after a restart", async () => {
    await client.createStream({ stream: "dedup" });
    const p1 = await client.declarePublisher({ stream: "dedup", publisherRef: "orders" });
    await sendIds(p1, 1, 10);
    await sendIds(p1, 1, 10);
    assert.equal(count(), 10);
    assert.equal(await p1.getLastPublishingId(), 10n);
    await client.close();

    client = await streamClient(b);
    const p2 = await client.declarePublisher({ stream: "dedup", publisherRef: "orders" });
    assert.equal(await p2.getLastPublishingId(), 10n);
    await sendIds(p2, 5, 15);
    assert.equal(count(), 15);
    // A publisher without a reference is never deduplicated.
    const plain = await client.declarePublisher({ stream: "dedup" });
    await sendIds(plain, 1, 2);
    assert.equal(count(), 17);
    await client.close();

    await b.close();
    b = await startStreamBroker({ dataDir });
    client = await streamClient(b);
    const p3 = await client.declarePublisher({ stream: "dedup", publisherRef: "orders" });
    assert.equal(await p3.getLastPublishingId(), 15n);
    await sendIds(p3, 1, 16);
    assert.equal(count(), 18);
  });

  it("keeps a consumer's stored offset across a restart", async () => {
    await client.createStream({ stream: "tracked" });
    const p = await client.declarePublisher({ stream: "tracked" });
    for (let i = 0; i < 20; i++) await p.send(Buffer.from(`t${i}`));
    await p.flush();
    const got = collector<bigint>(20);
    const consumer = await client.declareConsumer({ stream: "tracked", consumerRef: "reader-1", offset: Offset.first() }, (m) => got.push(m.offset!));
    await withTimeout(got.done, 5000, "20 deliveries");
    await assert.rejects(client.queryOffset({ reference: "reader-1", stream: "tracked" }));
    await consumer.storeOffset(12n);
    await eventually(async () => (await client.queryOffset({ reference: "reader-1", stream: "tracked" }).catch(() => -1n)) === 12n, 5000, "offset stored");
    await client.close();
    await b.close();
    b = await startStreamBroker({ dataDir });
    client = await streamClient(b);
    assert.equal(await client.queryOffset({ reference: "reader-1", stream: "tracked" }), 12n);
    const resumed = collector<string>(7);
    await client.declareConsumer({ stream: "tracked", offset: Offset.offset(13n) }, (m) => resumed.push(m.content.toString()));
    assert.deepEqual(await withTimeout(resumed.done, 5000, "resumed"), ["t13", "t14", "t15", "t16", "t17", "t18", "t19"]);
  });

  // Issue 48 (rabbitmq-stream-js-client's own suite): a new reference's publishing ids start at 0.
  it("stores publishing id 0 of a reference that has published nothing yet", async () => {
    await client.createStream({ stream: "dedup-from-0" });
    const p = await client.declarePublisher({ stream: "dedup-from-0", publisherRef: "fresh" });
    await sendIds(p, 0, 99);
    await sendIds(p, 0, 99);
    assert.equal(b.broker.vhosts.get("/")!.queues.get("dedup-from-0")?.messageCount, 100);
    assert.equal(await p.getLastPublishingId(), 99n);
  });

  // Issue 48: the suite's handler stores offsets through the consumer declareConsumer returns.
  it("sends a subscription's first chunk after the Subscribe response, so the handler can use its consumer", async () => {
    await client.createStream({ stream: "store-in-handler" });
    const p = await client.declarePublisher({ stream: "store-in-handler", publisherRef: "writer" });
    await sendIds(p, 1, 4);
    const seen: boolean[] = [];
    const got = collector<bigint>(4);
    let consumer: Consumer | undefined = undefined;
    consumer = await client.declareConsumer({ stream: "store-in-handler", consumerRef: "in-handler", offset: Offset.first() }, async (m) => {
      seen.push(consumer !== undefined);
      if (m.offset === 1n) await consumer?.storeOffset(m.offset);
      got.push(m.offset!);
    });
    await withTimeout(got.done, 5000, "4 deliveries");
    assert.deepEqual(seen, [true, true, true, true]);
    await eventually(async () => (await client.queryOffset({ reference: "in-handler", stream: "store-in-handler" }).catch(() => -1n)) === 1n, 5000, "offset stored from the handler");
  });
});
