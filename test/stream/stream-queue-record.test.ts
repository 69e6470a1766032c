// A stream in /api/queues (issue 24, operators): RabbitMQ's stream fields (leader, members,
// online, readers, committed_offset, first_offset, segments) and Coney's last_offset on the list
// and the one-queue record, and stream_consumers on the latter: an AMQP 0-9-1 consumer that holds
// unacked deliveries at its offset, and a native subscription, each with its offset and lag.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp, { type ChannelModel, type ConsumeMessage } from "amqplib";
import { Offset, type Client } from "rabbitmq-stream-js-client";
import type { TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import { startStreamBroker, streamClient } from "./stream-helpers.js";

const COUNT = 20;
const BODY = Buffer.alloc(1000, "s");

describe("a stream's record in /api/queues", () => {
  let b: TestBroker & { streamPort: number };
  let conn: ChannelModel;
  let native: Client;
  // On disk whatever CONEY_TEST_STORE says: segments are files.
  const dataDir = mkdtempSync(join(tmpdir(), "coney-stream-record-"));
  const api = apiClient(() => b.httpUrl);

  before(async () => {
    b = await startStreamBroker({ dataDir });
    conn = await amqp.connect(b.amqpUrl);
    const pub = await conn.createConfirmChannel();
    await pub.assertQueue("rec", { durable: true, arguments: { "x-queue-type": "stream", "x-stream-max-segment-size-bytes": 5000 } });
    for (let i = 0; i < COUNT; i++) {
      pub.sendToQueue("rec", BODY);
      await pub.waitForConfirms();
    }
    // An AMQP consumer from offset 15 with prefetch 2 that never acks: it is sent 15 and 16, and is at 17.
    const ch = await conn.createChannel();
    await ch.prefetch(2);
    const got = collector<number>(2);
    await ch.consume("rec", (m: ConsumeMessage | null) => m && got.push(Number(m.properties.headers!["x-stream-offset"])), { arguments: { "x-stream-offset": 15 } });
    assert.deepEqual(await withTimeout(got.done, 5000, "AMQP deliveries"), [15, 16]);
    // A native subscription from offset 10 reads to the end.
    native = await streamClient(b);
    const read = collector<number>(COUNT - 10);
    await native.declareConsumer({ stream: "rec", offset: Offset.offset(10n) }, () => read.push(1));
    await withTimeout(read.done, 5000, "native deliveries");
  });
  after(async () => {
    await native?.close();
    await conn?.close();
    await b?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("lists the stream with its segments, offsets, readers and members", async () => {
    const list = await api("GET", "/api/queues/%2F");
    assert.equal(list.status, 200);
    const r = list.json.find((q: { name: string }) => q.name === "rec");
    assert.ok(r, JSON.stringify(list.json));
    const node = r.node as string;
    assert.equal(r.type, "stream");
    assert.equal(r.leader, node);
    assert.deepEqual(r.members, [node]);
    assert.deepEqual(r.online, [node]);
    assert.deepEqual(r.readers, { [node]: 2 });
    assert.equal(r.first_offset, 0);
    assert.equal(r.last_offset, COUNT - 1);
    assert.equal(r.committed_offset, COUNT - 1);
    // Unacked deliveries stay in the stream: counted once, as RabbitMQ does.
    assert.equal(r.messages, COUNT);
    assert.equal(r.messages_ready, COUNT);
    // 20 KB of bodies in 5 KB segments: several files, as the log holds them.
    const log = (b.broker.vhosts.get("/")!.queues.get("rec") as unknown as { stream: { segmentCount: number; bytes: number } }).stream;
    assert.ok(r.segments >= 4, `segments ${r.segments}`);
    assert.equal(r.segments, log.segmentCount);
    assert.equal(r.message_bytes, log.bytes);
    assert.ok(r.message_bytes > COUNT * BODY.length, `bytes ${r.message_bytes}`);
    assert.equal(r.stream_consumers, undefined, "the list leaves consumers out, as RabbitMQ's does");
    // Memory and paging figures would claim the log is held in memory: left out, as RabbitMQ leaves them.
    for (const f of ["memory", "messages_ram", "message_bytes_ram", "messages_paged_out", "messages_persistent"]) assert.equal(r[f], undefined, f);
  });

  it("the one-queue record lists each reader with its offset and lag", async () => {
    await eventually(async () => (await api("GET", "/api/queues/%2F/rec")).json.stream_consumers?.length === 2, 5000, "two stream consumers");
    const r = (await api("GET", "/api/queues/%2F/rec")).json;
    const [amqpReader, nativeReader] = r.stream_consumers;
    assert.equal(amqpReader.protocol, "amqp091");
    assert.match(amqpReader.consumer_tag, /^amq\.ctag-/);
    assert.equal(amqpReader.offset, 17);
    assert.equal(amqpReader.offset_lag, COUNT - 17);
    assert.equal(amqpReader.user, "guest");
    assert.match(amqpReader.channel, / \(\d+\)$/);
    assert.equal(nativeReader.protocol, "stream");
    assert.equal(nativeReader.offset, COUNT);
    assert.equal(nativeReader.offset_lag, 0);
    assert.ok(nativeReader.consumed >= COUNT - 10, `consumed ${nativeReader.consumed}`);
    assert.equal(typeof nativeReader.connection_name, "string");
    assert.equal(r.consumers, 2);
  });

  it("a classic queue's record carries none of the stream fields", async () => {
    const ch = await conn.createChannel();
    await ch.assertQueue("rec-classic");
    const r = (await api("GET", "/api/queues/%2F/rec-classic")).json;
    for (const f of ["segments", "committed_offset", "first_offset", "last_offset", "readers", "stream_consumers"]) assert.equal(r[f], undefined, f);
    assert.equal(typeof r.memory, "number");
    await ch.close();
  });
});
