// A native stream publisher on the worker that does not lead the stream (`coney --workers 2`,
// issue 42): its batches go to the leader over the node link, which deduplicates by the
// publisher's reference and confirms once stored, as RabbitMQ writes to a stream's leader from any
// node. A raw client on the non-leading worker's own port (no Metadata to follow): DeclarePublisher
// with and without a reference, Publish v1 and v2 (filter values), PublishConfirm/PublishError with
// the client's ids, deduplication after a reconnect, QueryPublisherSequence on either worker,
// DeletePublisher, order across many frames read from either worker (raw reads, amqplib and
// rabbitmq-stream-js-client), the leader killed -9 → MetadataUpdate stream_not_available, and a
// single-active-consumer group with members on both workers, decided on the leader.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { Offset } from "rabbitmq-stream-js-client";
import { eventually } from "../helpers/wait.js";
import { chunkOf, ledBy, streamWorkersSuite } from "./stream-workers-suite.js";
import type { RawFrame, RawStreamClient } from "../stream/raw-stream-client.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { queueGroupOf } from "../../src/broker/index.js";
import { CMD, OFFSET_TYPE, RC, RESPONSE } from "../../src/stream/protocol.js";


/** An AMQP 1.0 message with one data section holding `body`. */
function amqp10(body: string): Buffer {
  const b = Buffer.from(body);
  return Buffer.concat([Buffer.from([0x00, 0x53, 0x75, 0xa0, b.length]), b]);
}

/** A Publish frame (v2 when `filters` is given). */
function publishFrame(publisher: number, messages: readonly [number, string][], filters?: readonly string[]): Buffer {
  const w = new FrameWriter(CMD.publish, filters ? 2 : 1, 64 + messages.length * 64).u8(publisher).i32(messages.length);
  messages.forEach(([id, body], i) => {
    w.u64(id);
    if (filters) w.str(filters[i]!);
    w.bytes(amqp10(body));
  });
  return w.frame();
}

/** PublishConfirm's or PublishError's ids (and codes). */
function idsOf(f: RawFrame): { publisher: number; ids: number[]; codes: number[] } {
  const publisher = f.body.u8();
  const n = f.body.i32();
  const ids: number[] = [];
  const codes: number[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(f.body.u64());
    if (f.key === CMD.publishError) codes.push(f.body.u16());
  }
  return { publisher, ids, codes };
}


describe("a native stream publisher on the worker that does not lead the stream", () => {
  const suite = streamWorkersSuite();
  const { raw, jsClient } = suite;
  const create = async (c: RawStreamClient, s: string): Promise<void> => {
    assert.equal((await c.request((corr) => new FrameWriter(CMD.create).u32(corr).str(s).map([]).frame(), CMD.create)).code, RC.ok);
  };
  const declare = async (c: RawStreamClient, id: number, s: string, reference = ""): Promise<number> =>
    (await c.request((corr) => new FrameWriter(CMD.declarePublisher).u32(corr).u8(id).str(reference).str(s).frame(), CMD.declarePublisher)).code;
  const sequenceOf = async (c: RawStreamClient, s: string, reference: string): Promise<number> => {
    const r = await c.request((corr) => new FrameWriter(CMD.queryPublisherSequence).u32(corr).str(reference).str(s).frame(), CMD.queryPublisherSequence);
    assert.equal(r.code, RC.ok);
    return r.frame.body.u64();
  };
  /** Confirmed ids until `n` have come. */
  const confirms = async (c: RawStreamClient, n: number): Promise<number[]> => {
    const ids: number[] = [];
    while (ids.length < n) ids.push(...idsOf(await c.next(CMD.publishConfirm, 10_000)).ids);
    return ids;
  };
  /** Offsets read by a raw subscription from the first, until `n`. */
  const readOffsets = async (c: RawStreamClient, sub: number, s: string, n: number): Promise<number[]> => {
    const r = await c.request((corr) => new FrameWriter(CMD.subscribe).u32(corr).u8(sub).str(s).u16(OFFSET_TYPE.first).u16(1000).map([]).frame(), CMD.subscribe);
    assert.equal(r.code, RC.ok);
    const got: number[] = [];
    while (got.length < n) {
      const d = chunkOf(await c.next(CMD.deliver, 10_000));
      for (let i = 0; i < d.count; i++) got.push(d.first + i);
    }
    return got;
  };
  /** The bodies an AMQP 0-9-1 stream consumer reads from the first, until `n`. */
  const amqpBodies = async (s: string, n: number): Promise<string[]> => {
    const conn = await amqp.connect(`amqp://guest:guest@127.0.0.1:${suite.p.amqpPort}`);
    conn.on("error", () => undefined);
    const ch = await conn.createChannel();
    await ch.prefetch(1000);
    const bodies: string[] = [];
    await ch.consume(s, (m) => m && (bodies.push(m.content.toString()), ch.ack(m)), { arguments: { "x-stream-offset": "first" } });
    await eventually(() => bodies.length >= n, 10_000, `${n} bodies over AMQP`);
    await conn.close();
    return bodies;
  };

  it("confirms v1 and v2 publishes with the client's ids; dedups after a reconnect; QueryPublisherSequence answers the leader's figure", async () => {
    const s = ledBy(0, "pub-any");
    let c = await raw(1);
    await create(c, s);
    assert.equal(await declare(c, 1, s, "ref-a"), RC.ok, "DeclarePublisher with a reference on the non-leading worker");
    assert.equal(await declare(c, 2, s), RC.ok, "and without one");
    assert.equal(await declare(c, 3, s, "ref-a"), RC.preconditionFailed, "the same reference twice on one connection");
    c.send(publishFrame(1, [[0, "a0"], [1, "a1"], [2, "a2"]]));
    assert.deepEqual(await confirms(c, 3), [0, 1, 2]);
    c.send(publishFrame(1, [[3, "a3"], [4, "a4"]], ["red", "blue"]));
    assert.deepEqual(await confirms(c, 2), [3, 4], "Publish v2 with filter values");
    c.send(publishFrame(2, [[100, "n0"]]));
    assert.deepEqual(await confirms(c, 1), [100], "a publisher without a reference");
    assert.equal(await sequenceOf(c, s, "ref-a"), 4, "QueryPublisherSequence on the non-leading worker");
    assert.equal(await sequenceOf(await raw(0), s, "ref-a"), 4, "and on the leader");

    // A reconnect resends 3..6 under the same reference: 3 and 4 are confirmed and not written again.
    c.close();
    c = await raw(1);
    assert.equal(await declare(c, 7, s, "ref-a"), RC.ok);
    c.send(publishFrame(7, [[3, "a3"], [4, "a4"], [5, "a5"], [6, "a6"]]));
    assert.deepEqual(await confirms(c, 4), [3, 4, 5, 6], "duplicates are confirmed too");
    assert.equal(await sequenceOf(c, s, "ref-a"), 6);
    assert.deepEqual(await amqpBodies(s, 8), ["a0", "a1", "a2", "a3", "a4", "n0", "a5", "a6"], "each message once, in order");
    // A sub-entry batch (two messages, uncompressed) under one publishing id: confirmed once, each message kept.
    const records = Buffer.concat(["b0", "b1"].map((b) => Buffer.concat([Buffer.alloc(4), amqp10(b)])).map((r) => (r.writeUInt32BE(r.length - 4, 0), r)));
    const sub = new FrameWriter(CMD.publish, 1, 128).u8(7).i32(1).u64(7).u8(0x80).u16(2).u32(records.length).u32(records.length);
    const subFrame = Buffer.concat([sub.frame(), records]);
    subFrame.writeUInt32BE(subFrame.length - 4, 0);
    c.send(subFrame);
    assert.deepEqual(await confirms(c, 1), [7], "a sub-entry batch forwarded");
    assert.deepEqual((await amqpBodies(s, 10)).slice(8), ["b0", "b1"]);

    // DeletePublisher there; a Publish for it then is refused with the client's ids.
    assert.equal((await c.request((corr) => new FrameWriter(CMD.deletePublisher).u32(corr).u8(7).frame(), CMD.deletePublisher)).code, RC.ok);
    c.send(publishFrame(7, [[7, "x"]]));
    const err = idsOf(await c.next(CMD.publishError));
    assert.deepEqual([err.publisher, err.ids, err.codes], [7, [7], [RC.publisherDoesNotExist]]);
    assert.equal(await declare(c, 8, "no-such-stream"), RC.streamDoesNotExist);
  });

  it("keeps a publisher's order over many frames; read in order from either worker", async () => {
    const s = ledBy(1, "pub-order");
    const c = await raw(0);
    await create(c, s);
    assert.equal(await declare(c, 1, s, "ordered"), RC.ok);
    const total = 3000;
    for (let at = 0; at < total; at += 100) c.send(publishFrame(1, Array.from({ length: 100 }, (_, i) => [at + i, `m${at + i}`] as [number, string])));
    const ids = await confirms(c, total);
    assert.deepEqual(ids, Array.from({ length: total }, (_, i) => i), "confirms in order, each once");
    const expected = Array.from({ length: total }, (_, i) => i);
    assert.deepEqual(await readOffsets(await raw(0), 1, s, total), expected, "read on the worker that published (not the leader)");
    assert.deepEqual(await readOffsets(await raw(1), 1, s, total), expected, "read on the leader");
    // rabbitmq-stream-js-client on the shared port (it follows Metadata): the bodies, in order.
    const js = await jsClient();
    const bodies: string[] = [];
    await js.declareConsumer({ stream: s, offset: Offset.first() }, (m) => void bodies.push(m.content.toString()));
    await eventually(() => bodies.length >= total, 15_000, "the js client's reads");
    assert.deepEqual(bodies, expected.map((i) => `m${i}`));
    assert.equal(await sequenceOf(c, s, "ordered"), total - 1);
  });

  it("a single-active-consumer group with members on both workers: one active at a time, ConsumerUpdate to the right client", async () => {
    const s = ledBy(0, "sac-any");
    const leader = await raw(0);
    const other = await raw(1);
    await create(leader, s);
    assert.equal(await declare(leader, 1, s), RC.ok);
    leader.send(publishFrame(1, [[0, "s0"], [1, "s1"], [2, "s2"]]));
    await confirms(leader, 3);
    const sacSubscribe = (c: RawStreamClient, sub: number, props: [string, string][] = [["single-active-consumer", "true"], ["name", "g"]]) =>
      c.request((corr) => new FrameWriter(CMD.subscribe).u32(corr).u8(sub).str(s).u16(OFFSET_TYPE.first).u16(100).map(props).frame(), CMD.subscribe);
    /** Waits for a ConsumerUpdate on `c` and answers it (from `offset` when activated). */
    const answerUpdate = async (c: RawStreamClient, offset: number): Promise<{ sub: number; active: boolean }> => {
      const f = await c.next(CMD.consumerUpdate, 10_000);
      const corr = f.body.u32();
      const sub = f.body.u8();
      const active = f.body.u8() === 1;
      c.send(new FrameWriter(CMD.consumerUpdate | RESPONSE).u32(corr).u16(RC.ok).u16(OFFSET_TYPE.offset).u64(offset).frame());
      return { sub, active };
    };

    assert.equal((await sacSubscribe(other, 5, [["single-active-consumer", "true"]])).code, RC.preconditionFailed, "no name");
    // The first member is on the non-leading worker: it is made active on the leader and starts where it answers.
    assert.equal((await sacSubscribe(other, 1)).code, RC.ok, "a single-active-consumer Subscribe on the non-leading worker");
    assert.deepEqual(await answerUpdate(other, 1), { sub: 1, active: true });
    const first = chunkOf(await other.next(CMD.deliver, 10_000));
    assert.ok(first.first <= 1 && first.first + first.count > 1, "from the offset its ConsumerUpdate answer gave");
    // A second member on the leader's worker waits: the group is the leader's one group.
    assert.equal((await sacSubscribe(leader, 2)).code, RC.ok);
    leader.send(publishFrame(1, [[3, "s3"]]));
    await confirms(leader, 1);
    const next = chunkOf(await other.next(CMD.deliver, 10_000));
    assert.equal(next.first, 3, "the active member gets the new chunk");
    assert.equal(await sequenceOf(leader, s, "none"), 0);
    assert.deepEqual(leader.take(CMD.deliver), [], "the waiting member on the leader got nothing");
    assert.deepEqual(leader.take(CMD.consumerUpdate), [], "nor a turn");
    // The active one leaves: the leader's member is activated.
    assert.equal((await other.request((corr) => new FrameWriter(CMD.unsubscribe).u32(corr).u8(1).frame(), CMD.unsubscribe)).code, RC.ok);
    assert.deepEqual(await answerUpdate(leader, 3), { sub: 2, active: true });
    assert.equal(chunkOf(await leader.next(CMD.deliver, 10_000)).first, 3);
    // And back: a member on the non-leading worker waits until the leader's leaves.
    assert.equal((await sacSubscribe(other, 3)).code, RC.ok);
    assert.equal(await sequenceOf(other, s, "none"), 0);
    assert.deepEqual(other.take(CMD.consumerUpdate), [], "no turn while the leader's member is active");
    assert.equal((await leader.request((corr) => new FrameWriter(CMD.unsubscribe).u32(corr).u8(2).frame(), CMD.unsubscribe)).code, RC.ok);
    assert.deepEqual(await answerUpdate(other, 0), { sub: 3, active: true });
    const got: number[] = [];
    while (got.length < 4) {
      const d = chunkOf(await other.next(CMD.deliver, 10_000));
      for (let i = 0; i < d.count; i++) got.push(d.first + i);
    }
    assert.deepEqual(got, [0, 1, 2, 3]);
  });

  it("a super stream partition's group across the workers: member (index mod size) active, the remote one told it lost its turn", async () => {
    // A super stream whose partition 1 worker 0 leads; its group's members are subscribed on worker 1 first, then on worker 0.
    let ss = "";
    for (let i = 0; ss === ""; i++) if (queueGroupOf("/", `sac-ss-${i}-1`, 2) === 0) ss = `sac-ss-${i}`;
    const js = await jsClient();
    await js.createSuperStream({ streamName: ss });
    const partition = `${ss}-1`;
    const other = await raw(1);
    const leader = await raw(0);
    const props: [string, string][] = [["single-active-consumer", "true"], ["name", "ssg"], ["super-stream", ss]];
    const sacSubscribe = (c: RawStreamClient, sub: number) =>
      c.request((corr) => new FrameWriter(CMD.subscribe).u32(corr).u8(sub).str(partition).u16(OFFSET_TYPE.first).u16(10).map(props).frame(), CMD.subscribe);
    const update = async (c: RawStreamClient): Promise<boolean> => {
      const f = await c.next(CMD.consumerUpdate, 10_000);
      const corr = f.body.u32();
      f.body.u8();
      const active = f.body.u8() === 1;
      c.send(new FrameWriter(CMD.consumerUpdate | RESPONSE).u32(corr).u16(RC.ok).u16(OFFSET_TYPE.next).frame());
      return active;
    };
    assert.equal((await sacSubscribe(other, 1)).code, RC.ok);
    assert.equal(await update(other), true, "alone in the group: active");
    // Partition 1 of a group of two activates member 1: the one on the leader; the remote one is told first.
    assert.equal((await sacSubscribe(leader, 1)).code, RC.ok);
    assert.equal(await update(other), false, "the remote member loses its turn");
    assert.equal(await update(leader), true, "then the leader's member is active");
  });

  it("a connection with a publisher and two subscriptions on a stream the other worker leads is told of its deletion once, and again once it uses the stream anew", async () => {
    const s = ledBy(1, "told-once");
    const c = await raw(0);
    const owner = await raw(1);
    const subscribe = (sub: number): Promise<{ code: number }> => c.request((corr) => new FrameWriter(CMD.subscribe).u32(corr).u8(sub).str(s).u16(OFFSET_TYPE.first).u16(10).map([]).frame(), CMD.subscribe);
    const remove = (): Promise<{ code: number }> => owner.request((corr) => new FrameWriter(CMD.delete).u32(corr).str(s).frame(), CMD.delete);
    await create(owner, s);
    assert.equal(await declare(c, 1, s), RC.ok);
    assert.equal((await subscribe(1)).code, RC.ok);
    assert.equal((await subscribe(2)).code, RC.ok);
    assert.equal((await remove()).code, RC.ok);
    const update = await c.next(CMD.metadataUpdate, 10_000);
    assert.deepEqual([update.body.u16(), update.body.str()], [RC.streamNotAvailable, s]);
    // Each path that hears of the loss (the deletion applied here, each read's end on the leader)
    // has run once the connection holds none of them: what they sent came before these answers.
    // Credit is the probe that changes nothing: a live subscription takes it silently, an ended one
    // answers subscription_id_does_not_exist.
    const ended = new Set<number>();
    await eventually(async () => {
      for (const sub of [1, 2]) if (!ended.has(sub)) c.send(new FrameWriter(CMD.credit).u8(sub).u16(1).frame());
      const answer = await c.next(CMD.credit | RESPONSE, 200).catch(() => null);
      if (answer !== null && answer.body.u16() === RC.subscriptionIdDoesNotExist) ended.add(answer.body.u8());
      return ended.size === 2;
    }, 10_000, "both subscriptions ended");
    c.send(publishFrame(1, [[0, "late"]]));
    assert.deepEqual(idsOf(await c.next(CMD.publishError)).codes, [RC.publisherDoesNotExist], "the publisher is gone");
    assert.deepEqual(c.take(CMD.metadataUpdate), [], "told once, as RabbitMQ tells a connection once per stream");
    // Used anew, the stream's next loss is told again.
    await create(owner, s);
    assert.equal((await subscribe(3)).code, RC.ok);
    assert.equal((await remove()).code, RC.ok);
    const again = await c.next(CMD.metadataUpdate, 10_000);
    assert.deepEqual([again.body.u16(), again.body.str()], [RC.streamNotAvailable, s]);
  });

  it("the leader killed -9: the publisher on the other worker is told stream_not_available and is gone", async () => {
    const s = ledBy(1, "pub-kill");
    const c = await raw(0);
    await create(c, s);
    assert.equal(await declare(c, 1, s, "k"), RC.ok);
    c.send(publishFrame(1, [[0, "k0"]]));
    assert.deepEqual(await confirms(c, 1), [0]);
    await suite.killLeaderOf(c, 1, s);
    c.send(publishFrame(1, [[1, "k1"]]));
    const err = idsOf(await c.next(CMD.publishError));
    assert.deepEqual([err.ids, err.codes], [[1], [RC.publisherDoesNotExist]], "the publisher is gone, as RabbitMQ's after that update");
    // Once the leader is back a new publisher with the same reference goes on where the log is.
    await eventually(async () => (await declare(c, 2, s, "k")) === RC.ok, 40_000, "a publisher declared again after the leader's restart");
    assert.equal(await sequenceOf(c, s, "k"), 0);
    c.send(publishFrame(2, [[0, "k0"], [1, "k1"]]));
    assert.deepEqual(await confirms(c, 2), [0, 1]);
    assert.deepEqual(await amqpBodies(s, 2), ["k0", "k1"], "the repeat of 0 is not written again");
  });

});
