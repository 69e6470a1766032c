// Sub-entry batches (several messages in one Publish entry, maybe compressed), as RabbitMQ: stored
// as they came, one offset per message, confirmed and deduplicated by their one publishing id;
// native readers get the entry as is (their client decompresses), AMQP 0-9-1 readers each
// message of an uncompressed or gzip batch, and skip the offsets of a codec Coney lacks.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import amqp from "amqplib";
import { Offset, type Client } from "rabbitmq-stream-js-client";
import { CompressionType } from "rabbitmq-stream-js-client/dist/compression.js";
import { encodeMessage } from "../../src/amqp10/message-sections.js";
import { StreamRawClient } from "../../src/bench/stream-raw-client.js";
import { FrameWriter, type FrameCursor } from "../../src/stream/wire.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import type { TestBroker } from "../helpers/broker.js";
import { startStreamBroker, streamClient } from "./stream-helpers.js";

const amqp10 = (text: string): Buffer => Buffer.concat(encodeMessage({ data: [Buffer.from(text)] }));

/** A sub-entry batch as a Publish entry carries it: header, then the (compressed) simple entries. */
function subEntry(compression: number, texts: string[], compress: (b: Buffer) => Buffer = (b) => b): Buffer {
  const plain = Buffer.concat(texts.flatMap((t) => {
    const m = amqp10(t);
    const size = Buffer.alloc(4);
    size.writeUInt32BE(m.length);
    return [size, m];
  }));
  const data = compress(plain);
  const head = Buffer.alloc(11);
  head[0] = 0x80 | (compression << 4);
  head.writeUInt16BE(texts.length, 1);
  head.writeUInt32BE(plain.length, 3);
  head.writeUInt32BE(data.length, 7);
  return Buffer.concat([head, data]);
}

function simpleEntry(text: string): Buffer {
  const m = amqp10(text);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(m.length);
  return Buffer.concat([size, m]);
}

/** A raw connection with one publisher, its confirms (publishing ids) and chunks delivered. */
async function rawPublisher(b: { streamPort: number }, stream: string, reference: string): Promise<{ c: StreamRawClient; confirms: number[]; publish(id: number, entry: Buffer): void }> {
  const c = await StreamRawClient.open(new URL(`rabbitmq-stream://guest:guest@127.0.0.1:${b.streamPort}/%2F`));
  const confirms: number[] = [];
  c.onFrame = (f) => {
    if (f.key !== 0x03) return;
    f.body.u8();
    for (let n = f.body.i32(); n > 0; n--) confirms.push(f.body.u64());
  };
  assert.equal(await c.request((corr) => new FrameWriter(0x0d).u32(corr).str(stream).map([]).frame()), 1, "stream created");
  assert.equal(await c.request((corr) => new FrameWriter(0x01).u32(corr).u8(0).str(reference).str(stream).frame()), 1, "publisher declared");
  return {
    c,
    confirms,
    publish(id, entry) {
      const head = new FrameWriter(0x02).u8(0).u32(1).u64(id).frame();
      // The entry is written as it is (its own size prefix or sub-batch header).
      head.writeUInt32BE(head.length - 4 + entry.length, 0);
      c.socket.write(Buffer.concat([head, entry]));
    },
  };
}

interface ChunkSeen {
  firstOffset: number;
  entries: number;
  records: number;
  data: Buffer;
}

/** Every chunk a raw subscriber from the first offset is sent, until `records` messages came. */
async function rawChunks(b: { streamPort: number }, stream: string, records: number): Promise<ChunkSeen[]> {
  const c = await StreamRawClient.open(new URL(`rabbitmq-stream://guest:guest@127.0.0.1:${b.streamPort}/%2F`));
  const seen: ChunkSeen[] = [];
  let total = 0;
  const done = collector<void>(1);
  c.onFrame = (f: { key: number; body: FrameCursor }) => {
    if (f.key !== 0x08) return;
    f.body.u8(); // subscription
    const chunk = f.body.slice(f.body.remaining);
    const entries = chunk.readUInt16BE(2);
    const n = chunk.readUInt32BE(4);
    seen.push({ firstOffset: Number(chunk.readBigUInt64BE(24)), entries, records: n, data: chunk.subarray(48, 48 + chunk.readUInt32BE(36)) });
    total += n;
    c.socket.write(new FrameWriter(0x09).u8(0).u16(1).frame());
    if (total >= records) done.push();
  };
  assert.equal(await c.request((corr) => new FrameWriter(0x07).u32(corr).u8(0).str(stream).u16(1).u16(10).map([]).frame()), 1, "subscribed");
  await withTimeout(done.done, 10_000, `${records} records`);
  c.close();
  return seen;
}

/** Every message an AMQP 0-9-1 consumer from `first` gets until the one at `lastOffset`: [offset, body]. */
async function amqpRead(conn: amqp.ChannelModel, stream: string, lastOffset: number): Promise<[number, string][]> {
  const ch = await conn.createChannel();
  await ch.prefetch(100);
  const got: [number, string][] = [];
  const done = collector<void>(1);
  await ch.consume(
    stream,
    (m) => {
      if (m === null) return;
      const offset = Number(m.properties.headers?.["x-stream-offset"]);
      got.push([offset, m.content.toString()]);
      ch.ack(m);
      if (offset === lastOffset) done.push();
    },
    { arguments: { "x-stream-offset": "first" } },
  );
  await withTimeout(done.done, 10_000, `the message at offset ${lastOffset}`);
  await ch.close();
  return got;
}

describe("sub-entry batches", () => {
  let b: TestBroker & { streamPort: number };
  let client: Client;
  let conn: amqp.ChannelModel;
  before(async () => {
    b = await startStreamBroker();
    client = await streamClient(b);
    conn = await amqp.connect(b.amqpUrl);
  });
  after(async () => {
    await conn?.close();
    await client?.close();
    await b?.close();
  });

  const texts = ["none-0", "none-1", "none-2", "gzip-3", "gzip-4", "gzip-5", "gzip-6", "simple-7"];

  it("rabbitmq-stream-js-client publishes none and gzip batches: confirmed, one offset per message, read back natively", async () => {
    await client.createStream({ stream: "batches", arguments: {} });
    const publisher = await client.declarePublisher({ stream: "batches" });
    let confirmed = 0;
    let wake: (() => void) | null = null;
    publisher.on("publish_confirm", (err, ids) => {
      assert.equal(err, null);
      confirmed += ids.length;
      wake?.();
    });
    const confirmedTo = (n: number): Promise<void> => withTimeout(new Promise<void>((r) => (wake = () => confirmed >= n && r())), 5000, `${n} confirms`);
    // One at a time, each its own chunk: the js client reads one sub-batch per chunk.
    let wait = confirmedTo(1);
    await publisher.sendSubEntries(texts.slice(0, 3).map((t) => ({ content: Buffer.from(t) })), CompressionType.None);
    await wait;
    wait = confirmedTo(2);
    await publisher.sendSubEntries(texts.slice(3, 7).map((t) => ({ content: Buffer.from(t) })), CompressionType.Gzip);
    await wait;
    wait = confirmedTo(3);
    await publisher.send(Buffer.from(texts[7]!));
    await wait;
    const got = collector<string>(texts.length);
    await client.declareConsumer({ stream: "batches", offset: Offset.first() }, (m) => got.push(m.content.toString()));
    assert.deepEqual(await withTimeout(got.done, 5000, "8 native messages"), texts);
  });

  it("the chunks hold each batch as one entry and count its messages as records, at the right offsets", async () => {
    const chunks = await rawChunks(b, "batches", texts.length);
    assert.deepEqual(
      chunks.map((c) => [c.firstOffset, c.entries, c.records]),
      [
        [0, 1, 3],
        [3, 1, 4],
        [7, 1, 1],
      ],
    );
    assert.equal(chunks[1]!.data[0]! >> 4, 0x8 | CompressionType.Gzip, "the gzip batch as it came");
    const res = await fetch(`${b.httpUrl}/api/queues/%2F/batches`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } });
    assert.equal(((await res.json()) as { messages: number }).messages, texts.length);
  });

  it("an AMQP 0-9-1 consumer gets each message of none and gzip batches at its own offset", async () => {
    assert.deepEqual(await amqpRead(conn, "batches", 7), texts.map((t, i) => [i, t]));
  });

  it("a batch in a codec Coney lacks (lz4) is kept for native readers and skipped by AMQP 0-9-1 readers", async () => {
    const p = await rawPublisher(b, "lz4-batches", "");
    const lz4 = subEntry(3, ["a", "b"], (x) => Buffer.concat([Buffer.from("not really lz4:"), x]));
    p.publish(1, simpleEntry("before"));
    p.publish(2, lz4);
    p.publish(3, simpleEntry("after"));
    await eventually(() => p.confirms.length === 3, 5000, "3 confirms");
    p.c.close();
    assert.deepEqual(await amqpRead(conn, "lz4-batches", 3), [
      [0, "before"],
      [3, "after"],
    ]);
    const chunks = await rawChunks(b, "lz4-batches", 4);
    const stored = Buffer.concat(chunks.map((c) => c.data));
    assert.ok(stored.includes(lz4), "the lz4 entry is stored byte for byte");
    assert.equal(chunks.reduce((n, c) => n + c.records, 0), 4);
  });

  it("deduplicates and confirms a batch by its one publishing id", async () => {
    const p = await rawPublisher(b, "dedup-batches", "batcher");
    p.publish(1, subEntry(1, ["d0", "d1", "d2"], gzipSync));
    await eventually(() => p.confirms.length === 1, 5000, "the first confirm");
    p.publish(1, subEntry(1, ["again-0", "again-1", "again-2"], gzipSync)); // the same id: not written again
    p.publish(2, subEntry(0, ["d3", "d4"]));
    await eventually(() => p.confirms.length === 3, 5000, "3 confirms");
    assert.deepEqual(p.confirms, [1, 1, 2]);
    assert.deepEqual(await amqpRead(conn, "dedup-batches", 4), ["d0", "d1", "d2", "d3", "d4"].map((t, i) => [i, t]));
    p.c.close();
  });
});
