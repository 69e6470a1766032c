// Chunk filters (RabbitMQ 3.13 stream filtering, docs/STREAMS.md "Chunk filters"): messages
// published with a filter value (Publish v2, or the AMQP header x-stream-filter-value) give their
// chunk a Bloom filter; a consumer asking for values (filter.N, or x-stream-filter over AMQP) is
// sent only chunks that may hold one of them, with match-unfiltered also those without values.
// The consumers here accept every message they are sent (no client-side filter), so a chunk the
// broker should have skipped shows up as a wrong message.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { Offset } from "rabbitmq-stream-js-client";
import type { Message } from "rabbitmq-stream-js-client/dist/publisher.js";
import { useStreamBroker } from "./stream-helpers.js";
import { RawStreamClient } from "./raw-stream-client.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { eventually } from "../helpers/wait.js";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { streamDirId } from "../../src/store/stream/stream-files.js";

const CHUNKS = 40;
const PER_CHUNK = 50;
/** Chunk k holds region A (k even), B (k odd), or no value at all (every 10th). */
const regionOf = (k: number): string | undefined => (k % 10 === 9 ? undefined : k % 2 === 0 ? "A" : "B");

describe("stream chunk filters", { timeout: 60_000 }, () => {
  const s = useStreamBroker();

  it("publishes chunks of regions A and B (one chunk per confirmed batch)", async () => {
    await s.client.createStream({ stream: "regions" });
    const publisher = await s.client.declarePublisher({ stream: "regions" }, (m) => m.applicationProperties?.["region"] as string | undefined);
    let confirmed = 0;
    publisher.on("publish_confirm", (err, ids) => {
      if (err === null) confirmed += ids.length;
    });
    for (let k = 0; k < CHUNKS; k++) {
      const region = regionOf(k);
      for (let i = 0; i < PER_CHUNK; i++) await publisher.send(Buffer.from(`${region ?? "-"}:${k}:${i}`.padEnd(200, ".")), region === undefined ? {} : { applicationProperties: { region } });
      await publisher.flush();
      // The batch is confirmed before the next starts, so each batch is a chunk of its own.
      await eventually(() => confirmed === (k + 1) * PER_CHUNK, 10_000, `batch ${k} confirmed`);
    }
    await publisher.close();
  });

  const consume = async (filter: { values: string[]; matchUnfiltered: boolean } | null): Promise<string[]> => {
    const got: string[] = [];
    const options = filter === null ? {} : { filter: { ...filter, postFilterFunc: (_m: Message) => true } };
    const consumer = await s.client.declareConsumer({ stream: "regions", offset: Offset.first(), ...options }, (m) => void got.push(m.content.toString().split(":")[0]!));
    const want = Array.from({ length: CHUNKS }, (_, k) => regionOf(k)).filter((r) => (filter === null ? true : r === undefined ? filter.matchUnfiltered : filter.values.includes(r))).length * PER_CHUNK;
    await eventually(() => got.length >= want, 10_000, `${want} messages`);
    // Nothing more comes: the last chunk is one the consumer wants, so anything extra was before it.
    await s.client.closeConsumer(consumer.extendedId);
    assert.equal(got.length, want);
    return got;
  };

  it("sends a consumer filtering on A only the chunks of A", async () => {
    const got = await consume({ values: ["A"], matchUnfiltered: false });
    assert.deepEqual([...new Set(got)], ["A"]);
  });

  it("with match-unfiltered, also the chunks of messages without a value", async () => {
    const got = await consume({ values: ["B"], matchUnfiltered: true });
    assert.deepEqual([...new Set(got)].sort(), ["-", "B"]);
  });

  it("sends an unfiltered consumer everything", async () => {
    const got = await consume(null);
    assert.deepEqual([...new Set(got)].sort(), ["-", "A", "B"]);
  });

  it("a consumer filtering on A reads about half the bytes (measured on the wire)", async () => {
    const bytesFor = async (properties: Array<[string, string]>, messages: number): Promise<number> => {
      const raw = await RawStreamClient.login(s.b.streamPort);
      const sub = await raw.request((corr) => new FrameWriter(0x07).u32(corr).u8(1).str("regions").u16(1).u16(1000).map(properties).frame(), 0x07);
      assert.equal(sub.code, 1);
      let bytes = 0;
      let got = 0;
      const count = (): void => {
        for (const f of raw.take(0x08)) {
          bytes += f.raw.length + 4;
          got += f.raw.subarray(5).readUInt32BE(4);
        }
      };
      await eventually(() => (count(), got >= messages), 10_000, `${messages} messages delivered`);
      // Unsubscribed, anything still on its way has arrived (frames keep their order).
      await raw.request((corr) => new FrameWriter(0x0c).u32(corr).u8(1).frame(), 0x0c);
      count();
      raw.close();
      assert.equal(got, messages);
      return bytes;
    };
    const all = await bytesFor([], CHUNKS * PER_CHUNK);
    const onlyA = await bytesFor([["filter.0", "A"], ["match-unfiltered", "false"]], 20 * PER_CHUNK);
    const ratio = onlyA / all;
    console.log(`FILTER ${JSON.stringify({ allBytes: all, filteredBytes: onlyA, ratio: Number(ratio.toFixed(3)) })}`);
    // 20 of the 40 chunks are A's: half the bytes.
    assert.ok(ratio > 0.45 && ratio < 0.55, `ratio ${ratio}`);
  });

  it("x-stream-filter-size-bytes (stream-filter-size-bytes natively) sizes the filter: 16 to 255, as RabbitMQ checks", async () => {
    await s.client.createStream({ stream: "wide-filter", arguments: { "stream-filter-size-bytes": 64 } as never });
    const publisher = await s.client.declarePublisher({ stream: "wide-filter" }, () => "A");
    await publisher.send(Buffer.from("a"));
    await publisher.flush();
    const got: string[] = [];
    await s.client.declareConsumer({ stream: "wide-filter", offset: Offset.first(), filter: { values: ["A"], matchUnfiltered: false, postFilterFunc: () => true } }, (m) => void got.push(m.content.toString()));
    await eventually(() => got.length === 1, 10_000, "the message of A");
    const dir = join(s.b.dataDir, "streams", streamDirId("/", "wide-filter"));
    const segment = readFileSync(join(dir, readdirSync(dir).find((f) => f.endsWith(".segment"))!));
    assert.equal(segment[44], 64, "the chunk's bloom size");
    await assert.rejects(s.client.createStream({ stream: "narrow-filter", arguments: { "stream-filter-size-bytes": 8 } as never }));
    const conn = await amqp.connect(s.b.amqpUrl);
    conn.on("error", () => undefined);
    const ch = await conn.createChannel();
    ch.on("error", () => undefined);
    await assert.rejects(ch.assertQueue("too-wide", { durable: true, arguments: { "x-queue-type": "stream", "x-stream-filter-size-bytes": 256 } }), /PRECONDITION_FAILED - Invalid value for x-stream-filter-size-bytes/);
    await conn.close().catch(() => undefined);
  });

  it("over AMQP 0-9-1: x-stream-filter-value on publish, x-stream-filter and x-stream-match-unfiltered on consume", async () => {
    const conn = await amqp.connect(s.b.amqpUrl);
    try {
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("amqp-regions", { durable: true, arguments: { "x-queue-type": "stream" } });
      for (let k = 0; k < 12; k++) {
        const region = regionOf(k);
        for (let i = 0; i < 20; i++) ch.sendToQueue("amqp-regions", Buffer.from(`${region ?? "-"}:${k}`), region === undefined ? {} : { headers: { "x-stream-filter-value": region } });
        await ch.waitForConfirms();
      }
      const read = async (args: Record<string, unknown>, want: number): Promise<string[]> => {
        const c = await conn.createChannel();
        await c.prefetch(1000);
        const got: string[] = [];
        await c.consume("amqp-regions", (m) => {
          if (m === null) return;
          got.push(m.content.toString().split(":")[0]!);
          c.ack(m);
        }, { arguments: { "x-stream-offset": "first", ...args } });
        await eventually(() => got.length >= want, 10_000, `${want} messages`);
        await c.close();
        return got;
      };
      // Chunks 0..11: A at 0,2,4,6,8,10 (6), B at 1,3,5,7,11 (5), none at 9 (1).
      assert.deepEqual([...new Set(await read({ "x-stream-filter": "A" }, 120))], ["A"]);
      assert.deepEqual([...new Set(await read({ "x-stream-filter": ["B"], "x-stream-match-unfiltered": true }, 120))].sort(), ["-", "B"]);
      const bad = await conn.createChannel();
      bad.on("error", () => undefined);
      await assert.rejects(bad.consume("amqp-regions", () => undefined, { arguments: { "x-stream-filter": 42 } }), /PRECONDITION_FAILED/);
    } finally {
      await conn.close().catch(() => undefined);
    }
  });

  // Issue 48: one Publish frame (one event-loop turn) holding messages with a value and without
  // one becomes two chunks, so a consumer of A is not sent the messages without a value.
  it("cuts a turn's messages where those with a filter value end and those without begin", async () => {
    await s.client.createStream({ stream: "one-turn" });
    const publisher = await s.client.declarePublisher({ stream: "one-turn" }, (m) => m.applicationProperties?.["region"] as string | undefined);
    // 50 of A then 50 without a value, without awaiting in between: the client sends one frame of 100.
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < 50; i++) sends.push(publisher.send(Buffer.from(`A:${i}`), { applicationProperties: { region: "A" } }));
    for (let i = 0; i < 50; i++) sends.push(publisher.send(Buffer.from(`-:${i}`)));
    await Promise.all(sends);
    await publisher.flush();
    await eventually(() => s.b.broker.vhosts.get("/")!.queues.get("one-turn")?.messageCount === 100, 10_000, "100 stored");
    const got: string[] = [];
    await s.client.declareConsumer({ stream: "one-turn", offset: Offset.first(), filter: { values: ["A"], matchUnfiltered: false, postFilterFunc: () => true } }, (m) => void got.push(m.content.toString()));
    // A last message of A, in a later chunk: once it is there, everything before it was sent.
    await publisher.send(Buffer.from("A:last"), { applicationProperties: { region: "A" } });
    await publisher.flush();
    await eventually(() => got.includes("A:last"), 10_000, "the last message of A");
    assert.deepEqual([...new Set(got.map((m) => m.split(":")[0]))], ["A"]);
    assert.equal(got.length, 51);
  });
});
