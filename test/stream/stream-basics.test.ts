// The native stream protocol driven by rabbitmq-stream-js-client: create and delete, publish with
// confirms, consume from first/next/offset/last/timestamp, stream stats, metadata.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Offset } from "rabbitmq-stream-js-client";
import { collector, withTimeout } from "../helpers/wait.js";
import { useStreamBroker } from "./stream-helpers.js";

describe("native stream protocol with rabbitmq-stream-js-client", () => {
  const s = useStreamBroker();

  it("creates a stream, publishes with confirms and reads from the first offset", async () => {
    await s.client.createStream({ stream: "basics-1", arguments: { "max-length-bytes": 10_000_000 } });
    const publisher = await s.client.declarePublisher({ stream: "basics-1" });
    const confirmed = collector<bigint>(50);
    publisher.on("publish_confirm", (err, ids) => {
      assert.equal(err, null);
      for (const id of ids) confirmed.push(id);
    });
    for (let i = 0; i < 50; i++) await publisher.send(Buffer.from(`m${i}`));
    await publisher.flush();
    const ids = await withTimeout(confirmed.done, 5000, "50 confirms");
    assert.equal(ids.length, 50);
    const got = collector<string>(50);
    const offsets: bigint[] = [];
    await s.client.declareConsumer({ stream: "basics-1", offset: Offset.first() }, (m) => {
      offsets.push(m.offset!);
      got.push(m.content.toString());
    });
    const bodies = await withTimeout(got.done, 5000, "50 deliveries");
    assert.deepEqual(bodies, Array.from({ length: 50 }, (_, i) => `m${i}`));
    assert.deepEqual(offsets, Array.from({ length: 50 }, (_, i) => BigInt(i)));
    const q = s.b.broker.vhosts.get("/")!.queues.get("basics-1")!;
    assert.equal(q.messageCount, 50);
  });

  it("reads from next, from an offset, from last and from a timestamp", async () => {
    await s.client.createStream({ stream: "basics-2" });
    const publisher = await s.client.declarePublisher({ stream: "basics-2" });
    for (let i = 0; i < 10; i++) await publisher.send(Buffer.from(`a${i}`));
    await publisher.flush();
    const q = s.b.broker.vhosts.get("/")!.queues.get("basics-2")!;
    await withTimeout((async () => { while (q.messageCount < 10) await new Promise((r) => setTimeout(r, 5)); })(), 5000, "10 stored");
    const fromOffset = collector<string>(3);
    await s.client.declareConsumer({ stream: "basics-2", offset: Offset.offset(7n) }, (m) => fromOffset.push(m.content.toString()));
    assert.deepEqual(await withTimeout(fromOffset.done, 5000, "offset 7.."), ["a7", "a8", "a9"]);
    const fromNext = collector<string>(1);
    await s.client.declareConsumer({ stream: "basics-2", offset: Offset.next() }, (m) => fromNext.push(m.content.toString()));
    const fromTimestamp = collector<string>(1);
    const marker = new Date(Date.now() + 1);
    await new Promise((r) => setTimeout(r, 5));
    await publisher.send(Buffer.from("after"));
    await publisher.flush();
    assert.deepEqual(await withTimeout(fromNext.done, 5000, "next"), ["after"]);
    await s.client.declareConsumer({ stream: "basics-2", offset: Offset.timestamp(marker) }, (m) => fromTimestamp.push(m.content.toString()));
    assert.deepEqual(await withTimeout(fromTimestamp.done, 5000, "timestamp"), ["after"]);
    const fromLast = collector<string>(1);
    await s.client.declareConsumer({ stream: "basics-2", offset: Offset.last() }, (m) => fromLast.push(m.content.toString()));
    assert.deepEqual(await withTimeout(fromLast.done, 5000, "last"), ["after"]);
  });

  it("answers stream stats and metadata, and deletes a stream", async () => {
    await s.client.createStream({ stream: "basics-3" });
    const publisher = await s.client.declarePublisher({ stream: "basics-3" });
    await publisher.send(Buffer.from("x"));
    await publisher.flush();
    const stats = await s.client.streamStatsRequest("basics-3");
    assert.equal(stats.firstChunkId, 0n);
    const [meta] = await s.client.queryMetadata({ streams: ["basics-3"] });
    assert.equal(meta!.leader?.host, "127.0.0.1");
    assert.equal(meta!.leader?.port, s.b.streamPort);
    await s.client.deleteStream({ stream: "basics-3" });
    assert.equal(s.b.broker.vhosts.get("/")!.queues.has("basics-3"), false);
    await assert.rejects(s.client.deleteStream({ stream: "basics-3" }));
  });
});
