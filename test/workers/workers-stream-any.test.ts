// A native stream Subscribe on the worker that does not lead the stream (`coney --workers 2`,
// issue 42): served from the leader's log over the node link, as RabbitMQ serves it on any node
// with a member. A raw client on the non-leading worker's own port (no Metadata to follow):
// every offset specification, chunks in order with the log's own offsets, messages published on
// either worker, credit bounding what arrives, Unsubscribe, chunk filters, retention under a slow reader, StoreOffset/QueryOffset there, and the
// leader killed -9 → MetadataUpdate stream_not_available, then a new Subscribe reads it all again.
// Real process tree, real clients (raw stream socket, rabbitmq-stream-js-client, amqplib).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { eventually } from "../helpers/wait.js";
import { chunkOf, ledBy, streamWorkersSuite } from "./stream-workers-suite.js";
import type { RawStreamClient } from "../stream/raw-stream-client.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { CMD, OFFSET_TYPE, RC } from "../../src/stream/protocol.js";



describe("a native stream subscription on the worker that does not lead the stream", () => {
  const suite = streamWorkersSuite();
  const { raw, jsClient } = suite;
  /** Publishes `bodies` natively (on the leader), one chunk each (each waits for its confirm). */
  const publishChunks = async (s: string, bodies: string[]): Promise<void> => {
    const c = await jsClient();
    const publisher = await c.declarePublisher({ stream: s });
    let confirmed = 0;
    publisher.on("publish_confirm", (_err, ids) => (confirmed += ids.length));
    for (const [i, body] of bodies.entries()) {
      await publisher.send(Buffer.from(body));
      await publisher.flush();
      await eventually(() => confirmed === i + 1, 10_000, `the confirm of ${body}`);
    }
  };
  const subscribe = (c: RawStreamClient, sub: number, s: string, offset: (w: FrameWriter) => FrameWriter, credit: number, props: [string, string][] = []) =>
    c.request((corr) => offset(new FrameWriter(CMD.subscribe).u32(corr).u8(sub).str(s)).u16(credit).map(props).frame(), CMD.subscribe);
  /** A round trip through the leader on `c`'s connection (StreamStats asks the leader over the same link): every chunk the leader wrote before it has arrived. */
  const barrier = async (c: RawStreamClient, s: string): Promise<void> => {
    const r = await c.request((corr) => new FrameWriter(CMD.streamStats).u32(corr).str(s).frame(), CMD.streamStats);
    assert.equal(r.code, RC.ok);
  };
  const delivers = async (c: RawStreamClient, n: number): Promise<{ sub: number; first: number; count: number }[]> => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(chunkOf(await c.next(CMD.deliver, 10_000)));
    return out;
  };

  it("reads from first, an offset, next and a timestamp, in order with the log's offsets, published on either worker", async () => {
    const s = ledBy(0, "any-read");
    const c = await raw(1);
    assert.equal((await c.request((corr) => new FrameWriter(CMD.create).u32(corr).str(s).map([]).frame(), CMD.create)).code, RC.ok);
    await publishChunks(s, ["a0", "a1", "a2"]);
    // Three more over AMQP 0-9-1, on whichever worker the shared port hands the connection to (and one on each worker's own port below).
    const conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${suite.p.amqpPort}`);
    conn.on("error", () => undefined);
    const ch = await conn.createConfirmChannel();
    for (const body of ["b3", "b4", "b5"]) {
      ch.sendToQueue(s, Buffer.from(body));
      await ch.waitForConfirms();
    }
    await conn.close();

    const fromFirst = await subscribe(c, 1, s, (w) => w.u16(OFFSET_TYPE.first), 100);
    assert.equal(fromFirst.code, RC.ok, "subscribe on the non-leading worker");
    const got: number[] = [];
    while (got.length < 6) {
      const d = chunkOf(await c.next(CMD.deliver, 10_000));
      assert.equal(d.sub, 1);
      for (let i = 0; i < d.count; i++) got.push(d.first + i);
    }
    assert.deepEqual(got, [0, 1, 2, 3, 4, 5], "every offset once, in order");

    const fromOffset = await subscribe(c, 2, s, (w) => w.u16(OFFSET_TYPE.offset).u64(4), 100);
    assert.equal(fromOffset.code, RC.ok);
    const [first] = await delivers(c, 1);
    assert.ok(first!.first <= 4 && first!.first + first!.count > 4, "the chunk holding offset 4 comes first (the client skips below its start)");

    assert.equal((await subscribe(c, 3, s, (w) => w.u16(OFFSET_TYPE.next), 100)).code, RC.ok);
    assert.equal((await subscribe(c, 4, s, (w) => w.u16(OFFSET_TYPE.timestamp).i64(Date.now() - 60_000), 100)).code, RC.ok);
    assert.equal((await subscribe(c, 5, s, (w) => w.u16(OFFSET_TYPE.last), 100)).code, RC.ok);
    await barrier(c, s);
    const before = c.take(CMD.deliver).map(chunkOf);
    assert.deepEqual(before.filter((d) => d.sub === 3), [], "next: nothing until something new");
    assert.ok(before.filter((d) => d.sub === 4).reduce((n, d) => n + d.count, 0) === 6, "a minute back: all six");
    assert.ok(before.some((d) => d.sub === 5 && d.first + d.count === 6), "last: the last chunk");
    // Every subscription gets the new chunk, `next` included.
    await publishChunks(s, ["c6"]);
    const after = (await delivers(c, 5)).map((d) => [d.sub, d.first, d.count]).sort((x, y) => x[0]! - y[0]!);
    assert.deepEqual(after, [1, 2, 3, 4, 5].map((sub) => [sub, 6, 1]));
    assert.equal((await c.request((corr) => new FrameWriter(CMD.unsubscribe).u32(corr).u8(3).frame(), CMD.unsubscribe)).code, RC.ok);
    assert.equal((await c.request((corr) => new FrameWriter(CMD.unsubscribe).u32(corr).u8(3).frame(), CMD.unsubscribe)).code, RC.subscriptionIdDoesNotExist);
    assert.equal((await subscribe(c, 1, s, (w) => w.u16(OFFSET_TYPE.first), 1)).code, RC.subscriptionIdAlreadyExists);
    assert.equal((await subscribe(c, 9, "no-such-stream", (w) => w.u16(OFFSET_TYPE.first), 1)).code, RC.streamDoesNotExist);
  });

  it("credit bounds what arrives; unsubscribe stops it; the consumer shows on the management API", async () => {
    const s = ledBy(0, "any-credit");
    const c = await raw(1);
    assert.equal((await c.request((corr) => new FrameWriter(CMD.create).u32(corr).str(s).map([]).frame(), CMD.create)).code, RC.ok);
    await publishChunks(s, Array.from({ length: 10 }, (_, i) => `m${i}`));
    assert.equal((await subscribe(c, 7, s, (w) => w.u16(OFFSET_TYPE.first), 3)).code, RC.ok);
    const three = await delivers(c, 3);
    await barrier(c, s);
    assert.deepEqual(c.take(CMD.deliver), [], "no chunk beyond the initial credit of 3");
    assert.deepEqual(three.map((d) => d.first), [0, 1, 2]);
    c.send(new FrameWriter(CMD.credit).u8(7).u16(4).frame());
    const four = await delivers(c, 4);
    await barrier(c, s);
    assert.deepEqual(c.take(CMD.deliver), [], "no chunk beyond the 7 credits given");
    assert.deepEqual(four.map((d) => d.first), [3, 4, 5, 6]);
    await eventually(async () => {
      const q = (await suite.p.api("GET", `/api/queues/%2F/${s}`)).json as { consumers?: number };
      return q.consumers === 1;
    }, 10_000, "the subscription counted as the stream's consumer");
    assert.equal((await c.request((corr) => new FrameWriter(CMD.unsubscribe).u32(corr).u8(7).frame(), CMD.unsubscribe)).code, RC.ok);
    c.send(new FrameWriter(CMD.credit).u8(7).u16(10).frame());
    const refused = await c.next(CMD.credit | 0x8000);
    assert.equal(refused.body.u16(), RC.subscriptionIdDoesNotExist, "credit for the ended subscription");
    await barrier(c, s);
    assert.deepEqual(c.take(CMD.deliver), [], "nothing after the unsubscribe");
    await eventually(async () => ((await suite.p.api("GET", `/api/queues/%2F/${s}`)).json as { consumers?: number }).consumers === 0, 10_000, "the leader's read cancelled");
  });

  it("filter.N: only the chunks that may hold the value, filtered on the leader", async () => {
    const s = ledBy(0, "any-filter");
    const c = await raw(1);
    assert.equal((await c.request((corr) => new FrameWriter(CMD.create).u32(corr).str(s).map([]).frame(), CMD.create)).code, RC.ok);
    const js = await jsClient();
    const publisher = await js.declarePublisher({ stream: s }, (m) => m.applicationProperties?.["region"] as string | undefined);
    let confirmed = 0;
    publisher.on("publish_confirm", (_err, ids) => (confirmed += ids.length));
    for (const [i, region] of ["A", "B", "A", "B"].entries()) {
      await publisher.send(Buffer.from(`${region}${i}`), { applicationProperties: { region } });
      await publisher.flush();
      await eventually(() => confirmed === i + 1, 10_000, `the confirm of chunk ${i}`);
    }
    assert.equal((await subscribe(c, 1, s, (w) => w.u16(OFFSET_TYPE.first), 10, [["filter.1", "A"]])).code, RC.ok);
    const got = await delivers(c, 2);
    await barrier(c, s);
    assert.deepEqual(c.take(CMD.deliver), [], "no chunk of B");
    assert.deepEqual(got.map((d) => d.first), [0, 2]);
  });

  it("retention deleting the segments a slow subscription is reading: it reads on, in order, to the end", async () => {
    const s = ledBy(0, "any-retention");
    const c = await raw(1);
    const create = await c.request((corr) => new FrameWriter(CMD.create).u32(corr).str(s).map([["max-length-bytes", "4000"], ["stream-max-segment-size-bytes", "1000"]]).frame(), CMD.create);
    assert.equal(create.code, RC.ok);
    const body = (i: number): string => `r${i}:`.padEnd(300, ".");
    await publishChunks(s, Array.from({ length: 6 }, (_, i) => body(i)));
    assert.equal((await subscribe(c, 1, s, (w) => w.u16(OFFSET_TYPE.first), 1)).code, RC.ok);
    const [head] = await delivers(c, 1);
    // Far more than the retention keeps: the segments after the subscription's place are deleted on the leader.
    await publishChunks(s, Array.from({ length: 30 }, (_, i) => body(6 + i)));
    const stats = await c.request((corr) => new FrameWriter(CMD.streamStats).u32(corr).str(s).frame(), CMD.streamStats);
    const figures = new Map<string, number>();
    for (let n = stats.frame.body.i32(); n > 0; n--) figures.set(stats.frame.body.str() ?? "", stats.frame.body.i64());
    assert.ok(figures.get("first_chunk_id")! > head!.first + 1, "retention removed the chunks after the subscription's place");
    c.send(new FrameWriter(CMD.credit).u8(1).u16(100).frame());
    const got = [head!];
    while (got.at(-1)!.first + got.at(-1)!.count < 36) got.push(chunkOf(await c.next(CMD.deliver, 10_000)));
    for (let i = 1; i < got.length; i++) assert.ok(got[i]!.first >= got[i - 1]!.first + got[i - 1]!.count, `in order: ${JSON.stringify(got)}`);
    assert.equal(got.at(-1)!.first + got.at(-1)!.count, 36, "read to the end");
  });

  it("StoreOffset and QueryOffset on the non-leading worker", async () => {
    const s = ledBy(1, "any-offsets");
    const c = await raw(0);
    assert.equal((await c.request((corr) => new FrameWriter(CMD.create).u32(corr).str(s).map([]).frame(), CMD.create)).code, RC.ok);
    await publishChunks(s, ["o0", "o1"]);
    assert.equal((await subscribe(c, 1, s, (w) => w.u16(OFFSET_TYPE.first), 10, [["name", "tracker"]])).code, RC.ok);
    await delivers(c, 2);
    c.send(new FrameWriter(CMD.storeOffset).str("tracker").str(s).u64(1).frame());
    await eventually(async () => {
      const r = await c.request((corr) => new FrameWriter(CMD.queryOffset).u32(corr).str("tracker").str(s).frame(), CMD.queryOffset);
      return r.code === RC.ok && Number(r.frame.body.u64()) === 1;
    }, 10_000, "the stored offset read back on the non-leading worker");
  });

  it("the leader killed -9: the subscription on the other worker is told stream_not_available, and a new one reads everything once it is back", async () => {
    const s = ledBy(1, "any-kill");
    const c = await raw(0);
    assert.equal((await c.request((corr) => new FrameWriter(CMD.create).u32(corr).str(s).map([]).frame(), CMD.create)).code, RC.ok);
    await publishChunks(s, ["k0", "k1", "k2"]);
    assert.equal((await subscribe(c, 1, s, (w) => w.u16(OFFSET_TYPE.first), 10)).code, RC.ok);
    await delivers(c, 3);
    await suite.killLeaderOf(c, 1, s);
    // The client subscribes again (as clients do on that update) once the leader is back: all three.
    let sub = 10;
    await eventually(async () => {
      const id = ++sub;
      const r = await subscribe(c, id, s, (w) => w.u16(OFFSET_TYPE.first), 10);
      if (r.code !== RC.ok) return false;
      const got = await delivers(c, 1).catch(() => []);
      return got.length === 1 && got[0]!.first === 0;
    }, 40_000, "a new subscription served after the leader's restart");
  });
});
