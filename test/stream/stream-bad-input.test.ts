// Bad input on the native stream port, answered as RabbitMQ answers it: a malformed or unknown
// frame after login closes that connection with UNKNOWN_FRAME, an oversized one with
// FRAME_TOO_LARGE, garbage before login just closes the socket; requests about missing streams,
// subscriptions or publishers get their response codes on a connection that stays open. Nothing a
// malformed frame carried is written, and another client goes on undisturbed.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Offset, type Client } from "rabbitmq-stream-js-client";
import { collector, withTimeout } from "../helpers/wait.js";
import type { TestBroker } from "../helpers/broker.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { RawStreamClient } from "./raw-stream-client.js";
import { startStreamBroker, streamClient } from "./stream-helpers.js";

/** The Close the server sent: its code and reason. */
async function serverClose(c: RawStreamClient): Promise<{ code: number; reason: string }> {
  const f = await c.next(0x16);
  const corr = f.body.u32();
  const code = f.body.u16();
  const reason = f.body.str() ?? "";
  c.send(new FrameWriter(0x8016).u32(corr).u16(1).frame());
  await c.whenClosed();
  return { code, reason };
}

describe("bad input on the stream port", () => {
  let b: TestBroker & { streamPort: number };
  let bystander: Client;
  before(async () => {
    b = await startStreamBroker();
    bystander = await streamClient(b);
    await bystander.createStream({ stream: "calm" });
    await bystander.createStream({ stream: "target" });
  });
  after(async () => {
    await bystander?.close();
    await b?.close();
  });

  /** The bystander still publishes and reads. */
  async function bystanderWorks(tag: string): Promise<void> {
    const p = await bystander.declarePublisher({ stream: "calm" });
    await p.send(Buffer.from(tag));
    await p.flush();
    const got = collector<string>(1);
    const consumer = await bystander.declareConsumer({ stream: "calm", offset: Offset.last() }, (m) => {
      if (m.content.toString() === tag) got.push(tag);
    });
    await withTimeout(got.done, 5000, `bystander reads ${tag}`);
    await bystander.closeConsumer(consumer.extendedId);
    await bystander.deletePublisher(p.extendedId);
  }

  it("closes with UNKNOWN_FRAME on a truncated Publish, writing none of it", async () => {
    const c = await RawStreamClient.login(b.streamPort);
    assert.equal((await c.request((corr) => new FrameWriter(0x01).u32(corr).u8(1).str("").str("target").frame(), 0x01)).code, 1);
    const whole = new FrameWriter(0x02).u8(1).i32(2).u64(1).bytes(Buffer.from([0x00, 0x53, 0x75, 0xa0, 0x01, 0x61])).u64(2).bytes(Buffer.from([0x00, 0x53, 0x75, 0xa0, 0x01, 0x62])).frame();
    // The second message's bytes are cut off; the frame's size says so.
    const cut = whole.subarray(0, whole.length - 3);
    cut.writeUInt32BE(cut.length - 4, 0);
    c.send(cut);
    assert.deepEqual(await serverClose(c), { code: 0x0d, reason: "unknown frame" });
    assert.equal(b.broker.vhosts.get("/")!.queues.get("target")!.messageCount, 0);
    await bystanderWorks("after-truncated");
  });

  it("closes with UNKNOWN_FRAME on an unknown command", async () => {
    const c = await RawStreamClient.login(b.streamPort);
    c.send(new FrameWriter(0x7f).u32(1).frame());
    assert.equal((await serverClose(c)).code, 0x0d);
    await bystanderWorks("after-unknown");
  });

  it("closes with FRAME_TOO_LARGE on a frame above the negotiated frame max", async () => {
    const c = await RawStreamClient.login(b.streamPort);
    const head = Buffer.alloc(8);
    head.writeUInt32BE(2 * 1024 * 1024, 0);
    head.writeUInt16BE(0x02, 4);
    head.writeUInt16BE(1, 6);
    c.send(head);
    c.send(Buffer.alloc(64 * 1024));
    assert.equal((await serverClose(c)).code, 0x0e);
    await bystanderWorks("after-oversized");
  });

  it("closes the socket without a word on garbage before login", async () => {
    const c = await RawStreamClient.open(b.streamPort);
    c.send(Buffer.from("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    await c.whenClosed();
    await bystanderWorks("after-garbage");
  });

  it("answers requests about missing things with their codes and stays open", async () => {
    const c = await RawStreamClient.login(b.streamPort);
    const sub = (id: number, stream: string, type = 1, offset = -1) => (corr: number): Buffer => {
      const w = new FrameWriter(0x07).u32(corr).u8(id).str(stream).u16(type);
      if (offset >= 0) w.u64(offset);
      return w.u16(1).map([]).frame();
    };
    assert.equal((await c.request(sub(0, "no-such-stream"), 0x07)).code, 0x02);
    assert.equal((await c.request((corr) => new FrameWriter(0x0d).u32(corr).str("target").map([]).frame(), 0x0d)).code, 0x05);
    assert.equal((await c.request((corr) => new FrameWriter(0x0e).u32(corr).str("no-such-stream").frame(), 0x0e)).code, 0x02);
    assert.equal((await c.request((corr) => new FrameWriter(0x0b).u32(corr).str("r").str("no-such-stream").frame(), 0x0b)).code, 0x02);
    assert.equal((await c.request((corr) => new FrameWriter(0x06).u32(corr).u8(9).frame(), 0x06)).code, 0x12);
    assert.equal((await c.request((corr) => new FrameWriter(0x0c).u32(corr).u8(9).frame(), 0x0c)).code, 0x04);
    assert.equal((await c.request((corr) => new FrameWriter(0x0d).u32(corr).str("bad-args").map([["max-length-bytes", "lots"]]).frame(), 0x0d)).code, 0x11);
    // Credit on an unknown subscription: the Credit response (no correlation id).
    c.send(new FrameWriter(0x09).u8(42).u16(5).frame());
    const credit = await c.next(0x8009);
    assert.equal(credit.body.u16(), 0x04);
    assert.equal(credit.body.u8(), 42);
    // Publish through an undeclared publisher: PublishError PUBLISHER_DOES_NOT_EXIST per id.
    c.send(new FrameWriter(0x02).u8(7).i32(1).u64(99).bytes(Buffer.from([0x00, 0x53, 0x75, 0xa0, 0x00])).frame());
    const err = await c.next(0x04);
    assert.equal(err.body.u8(), 7);
    assert.equal(err.body.i32(), 1);
    assert.equal(err.body.u64(), 99);
    assert.equal(err.body.u16(), 0x12);
    // A subscription id used twice; an offset past the end waits at the end.
    assert.equal((await c.request(sub(1, "target", 4, 1_000_000), 0x07)).code, 0x01);
    assert.equal((await c.request(sub(1, "target"), 0x07)).code, 0x03);
    // Metadata of a missing stream: its own code inside an answer.
    const corr = c.nextCorrelation();
    c.send(new FrameWriter(0x0f).u32(corr).i32(1).str("no-such-stream").frame());
    const meta = await c.next(0x800f);
    assert.equal(meta.body.u32(), corr);
    assert.equal(meta.body.i32(), 0);
    assert.equal(meta.body.i32(), 1);
    assert.equal(meta.body.str(), "no-such-stream");
    assert.equal(meta.body.u16(), 0x02);
    assert.equal(c.closed, false);
    c.close();
  });

  it("sends only as many chunks as the subscription has credit for", async () => {
    // Chunk boundaries are the file log's (one per batch): this test keeps its own broker on disk
    // even when the suite runs against the in-memory test broker.
    const dataDir = mkdtempSync(join(tmpdir(), "coney-stream-credit-"));
    const disk = await startStreamBroker({ dataDir });
    try {
      await creditFlow(disk);
    } finally {
      await disk.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  async function creditFlow(b: TestBroker & { streamPort: number }): Promise<void> {
    const conn = await amqp.connect(b.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("credited", { durable: true, arguments: { "x-queue-type": "stream" } });
    // One message per confirm round: each is its own chunk.
    for (let i = 0; i < 4; i++) {
      ch.sendToQueue("credited", Buffer.from(`c${i}`));
      await ch.waitForConfirms();
    }
    await conn.close();
    const c = await RawStreamClient.login(b.streamPort);
    assert.equal((await c.request((corr) => new FrameWriter(0x07).u32(corr).u8(3).str("credited").u16(1).u16(1).map([]).frame(), 0x07)).code, 1);
    const first = await c.next(0x08);
    assert.equal(first.body.u8(), 3);
    assert.equal(first.body.u8(), 0x50, "an osiris chunk follows the subscription id (Deliver v1)");
    // No credit left: nothing more arrives until Credit is sent. The server answers in order and
    // sends chunks as soon as credit allows, so a chunk sent wrongly would come before this answer.
    const roundTrip = async (): Promise<void> => void (await c.request((corr) => new FrameWriter(0x0b).u32(corr).str("r").str("credited").frame(), 0x0b));
    await roundTrip();
    assert.equal(c.take(0x08).length, 0);
    c.send(new FrameWriter(0x09).u8(3).u16(2).frame());
    await c.next(0x08);
    await c.next(0x08);
    await roundTrip();
    assert.equal(c.take(0x08).length, 0);
    c.send(new FrameWriter(0x09).u8(3).u16(5).frame());
    await c.next(0x08);
    c.close();
  }

  it("tells clients with MetadataUpdate when their stream is deleted", async () => {
    await bystander.createStream({ stream: "doomed" });
    const c = await RawStreamClient.login(b.streamPort);
    assert.equal((await c.request((corr) => new FrameWriter(0x07).u32(corr).u8(0).str("doomed").u16(1).u16(1).map([]).frame(), 0x07)).code, 1);
    await bystander.deleteStream({ stream: "doomed" });
    const update = await c.next(0x10);
    assert.equal(update.body.u16(), 0x06);
    assert.equal(update.body.str(), "doomed");
    assert.equal((await c.request((corr) => new FrameWriter(0x0c).u32(corr).u8(0).frame(), 0x0c)).code, 0x04);
    c.close();
  });
});
