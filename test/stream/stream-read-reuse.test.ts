// Readers of a stream reuse their chunk buffers (an AMQP consumer's reader reads every chunk into
// one buffer; a native subscription's chunks go back to its cursor once the socket wrote them),
// and AMQP output blocks are reused once written. The bug that reuse invites: a body sent after
// its buffer was overwritten by a later chunk. Many chunks of distinct bodies (small ones, copied
// into the output, and large ones, over 4 KiB, which an ordinary queue's delivery references),
// read by slow consumers of both protocols and a non-borrowing consumer (a shovel), every byte checked.
import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { Offset } from "rabbitmq-stream-js-client";
import { decodeMessage } from "../../src/amqp10/message-sections.js";
import { StreamRawClient } from "../../src/bench/stream-raw-client.js";
import { chunkMessages } from "../../src/store/stream/chunk-format.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import { useStreamAndAmqp } from "./stream-helpers.js";

const CHUNKS = 40;
const PER_CHUNK = 25;
const TOTAL = CHUNKS * PER_CHUNK;

/** Message i's body: its own size and bytes, so a body overwritten by another message's shows. */
function bodyOf(i: number): Buffer {
  const size = i % 2 === 0 ? 200 + ((i * 37) % 3000) : 5000 + ((i * 7919) % 60_000);
  const b = Buffer.allocUnsafe(size);
  for (let j = 0; j < size; j++) b[j] = (i * 131 + j * 7 + (j >> 8)) & 0xff;
  b.writeUInt32BE(i, 0);
  return b;
}

function checkBody(i: number, got: Buffer): void {
  const want = bodyOf(i);
  if (!got.equals(want)) assert.fail(`message ${i}: ${got.length} bytes starting ${got.subarray(0, 8).toString("hex")}, expected ${want.length} starting ${want.subarray(0, 8).toString("hex")}`);
}

describe("stream readers reusing their buffers deliver every body intact", () => {
  const fx = useStreamAndAmqp();
  before(async () => {
    await fx.ch.assertQueue("reuse", { durable: true, arguments: { "x-queue-type": "stream" } });
    // One confirmed batch at a time: each becomes at least one chunk of its own in the segment file.
    for (let c = 0; c < CHUNKS; c++) {
      for (let k = 0; k < PER_CHUNK; k++) fx.ch.sendToQueue("reuse", bodyOf(c * PER_CHUNK + k));
      await fx.ch.waitForConfirms();
    }
  });

  it("an AMQP consumer reading across many chunks, acking late in bursts, gets every body intact", async () => {
    const reader = await fx.conn.createChannel();
    // Each burst of credit (50) spans chunks, so one dispatch reads several chunks into the
    // reader's one buffer before the connection's output is written.
    await reader.prefetch(50);
    let next = 0;
    const done = collector<void>(1);
    await reader.consume(
      "reuse",
      (m) => {
        if (m === null) return;
        assert.equal(Number(m.properties.headers?.["x-stream-offset"]), next);
        checkBody(next, m.content);
        next++;
        if (next === TOTAL) {
          reader.ack(m, true);
          done.push();
        } else if (next % 50 === 0) {
          // Slow: the acks come a little later, then many deliveries at once.
          setTimeout(() => reader.ack(m, true), 2);
        }
      },
      { arguments: { "x-stream-offset": "first" } },
    );
    await withTimeout(done.done, 30_000, `${TOTAL} AMQP deliveries`);
    await reader.close();
  });

  it("two AMQP consumers on one connection, reading from different offsets, get every body intact", async () => {
    // Their output shares one connection's blocks while each reader reuses its own chunk buffer.
    const a = await fx.conn.createChannel();
    const z = await fx.conn.createChannel();
    await a.prefetch(200);
    await z.prefetch(200);
    const got = { a: 0, z: 0 };
    const done = collector<string>(2);
    const start = { a: 0, z: TOTAL / 2 };
    for (const [name, c] of [["a", a], ["z", z]] as const) {
      await c.consume(
        "reuse",
        (m) => {
          if (m === null) return;
          const i = start[name] + got[name];
          checkBody(i, m.content);
          got[name]++;
          c.ack(m);
          if (i === TOTAL - 1) done.push(name);
        },
        { arguments: { "x-stream-offset": start[name] } },
      );
    }
    await withTimeout(done.done, 30_000, "both consumers to reach the end");
    await a.close();
    await z.close();
  });

  it("a slow native subscriber from the first offset gets every body intact", async () => {
    let next = 0;
    const done = collector<void>(1);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const consumer = await fx.client.declareConsumer({ stream: "reuse", offset: Offset.first() }, (m) => {
      // Slow (its event loop blocked a moment per message): the socket backs up, so the broker's
      // chunk writes wait in its buffer while the cursor reads on — into buffers not yet written.
      if (next < TOTAL / 2) Atomics.wait(pause, 0, 0, 2);
      assert.equal(Number(m.offset), next);
      checkBody(next, m.content);
      next++;
      if (next === TOTAL) done.push();
    });
    await withTimeout(done.done, 30_000, `${TOTAL} native deliveries`);
    await fx.client.closeConsumer(consumer.extendedId);
  });

  it("a native subscriber whose socket backs up gets every chunk intact (a chunk's buffer is reused only once written)", async () => {
    // Small chunks (a message or two of 5-7 KB): a write of one that the kernel cannot take yet
    // is still accepted (under the socket's 16 KiB high-water mark) and the cursor reads on; if
    // the buffer went back before its write completed, the next chunk would overwrite it.
    const CHUNKS_SMALL = 4000;
    const sizeOf = (i: number): number => 5000 + ((i * 13) % 2000);
    const small = (i: number): Buffer => {
      const b = Buffer.allocUnsafe(sizeOf(i));
      for (let j = 0; j < b.length; j++) b[j] = (i * 131 + j * 7 + (j >> 8)) & 0xff;
      b.writeUInt32BE(i, 0);
      return b;
    };
    await fx.ch.assertQueue("reuse-small", { durable: true, arguments: { "x-queue-type": "stream" } });
    // One message per round trip, without confirms (so no fsync to wait for): each arrives in a
    // turn of its own and becomes a chunk of its own, or of two.
    const pubConn = await amqp.connect(fx.b.amqpUrl, { noDelay: true });
    const pub = await pubConn.createChannel();
    for (let i = 0; i < CHUNKS_SMALL; i++) {
      pub.sendToQueue("reuse-small", small(i));
      await pub.checkQueue("reuse-small");
    }
    await pubConn.close();
    const c = await StreamRawClient.open(new URL(`rabbitmq-stream://guest:guest@127.0.0.1:${fx.b.streamPort}/%2F`));
    let next = 0;
    const done = collector<void>(1);
    c.onFrame = (f) => {
      if (f.key !== 0x08) return;
      f.body.u8();
      for (const m of chunkMessages(f.body.slice(f.body.remaining))) {
        const got = decodeMessage(m!).data![0]!;
        if (!got.equals(small(next))) assert.fail(`offset ${next}: ${got.length} bytes starting ${got.subarray(0, 8).toString("hex")}`);
        next++;
      }
      if (next === CHUNKS_SMALL) done.push();
    };
    // All the credit at once; then nothing read until the broker's side has backed up.
    assert.equal(await c.request((corr) => new FrameWriter(0x07).u32(corr).u8(0).str("reuse-small").u16(1).u16(65535).map([]).frame()), 1);
    c.socket.pause();
    const auth = `Basic ${Buffer.from("guest:guest").toString("base64")}`;
    const sent = async (): Promise<number> => {
      const list = (await (await fetch(`${fx.b.httpUrl}/api/stream/consumers`, { headers: { authorization: auth } })).json()) as { offset: number }[];
      return list[0]?.offset ?? 0;
    };
    // Backed up: the broker has stopped sending for a while (its socket is full), or sent everything.
    let last = -1;
    let since = Date.now();
    await eventually(
      async () => {
        const now = await sent();
        if (now !== last) {
          last = now;
          since = Date.now();
        }
        return now === CHUNKS_SMALL || Date.now() - since >= 300;
      },
      20_000,
      "the subscription to stop advancing",
    );
    c.socket.resume();
    await withTimeout(done.done, 30_000, `${CHUNKS_SMALL} messages read once the socket resumed`);
    c.close();
  });

  it("a shovel out of the stream (a consumer that keeps bodies) moves every body intact", async () => {
    // The shovel's local endpoint publishes what it gets into a classic queue, which keeps the
    // body by reference: it must not be lent a buffer the reader reuses.
    const auth = `Basic ${Buffer.from("guest:guest").toString("base64")}`;
    const res = await fetch(`${fx.b.httpUrl}/api/parameters/shovel/%2F/from-stream`, {
      method: "PUT",
      headers: { authorization: auth, "content-type": "application/json" },
      body: JSON.stringify({
        value: {
          "src-uri": "amqp://",
          "src-queue": "reuse",
          "src-consumer-args": { "x-stream-offset": "first" },
          "src-prefetch-count": 100,
          "dest-uri": "amqp://",
          "dest-queue": "copied",
          "ack-mode": "on-publish",
        },
      }),
    });
    assert.ok(res.status === 201 || res.status === 204, `shovel declared: ${res.status} ${await res.text()}`);
    const check = await fx.conn.createChannel();
    await eventually(async () => (await check.checkQueue("copied")).messageCount === TOTAL, 30_000, `${TOTAL} messages shovelled`);
    for (let i = 0; i < TOTAL; i++) {
      const m = await check.get("copied", { noAck: true });
      assert.ok(m !== false, `message ${i} in the queue`);
      checkBody(i, m.content);
    }
    await check.close();
  });
});
