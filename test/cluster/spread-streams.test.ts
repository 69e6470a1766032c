// A spread cluster (`--cluster-mode spread`): streams of any `x-initial-cluster-size`, homed by
// placement like any queue, in the home's replicated store (its segments follow the store to every
// other node). Three real `node bin/coney.js` nodes on a real etcd, each with a stream port of its
// own: a stream declared through node0 is listed by every node with RabbitMQ's stream fields (node,
// leader, members: the nodes holding a copy of node0's store); amqplib publishes with confirms
// through node1 and reads from an offset through node2; rabbitmq-stream-js-client connected to node2
// follows Metadata to node0's stream port (publisher confirms, every offset), AMQP 1.0 reads it
// through node1; a publisher or a subscription on a node that does not home the stream is served
// there, from and to the home's log (as RabbitMQ writes to a stream's leader from any node).
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { ConsumeMessage } from "amqplib";
import { connect as connectStream, Offset, type Client } from "rabbitmq-stream-js-client";
import { spreadCluster } from "./spread-fixture.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import { bodyOf, close as closeAmqp1, connect as connectAmqp1, data, openSender, receive, rhea, sendAll } from "../helpers/rhea-client.js";
import { RawStreamClient } from "../stream/raw-stream-client.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { CMD, OFFSET_TYPE, RC, RESPONSE } from "../../src/stream/protocol.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

interface StreamRecord {
  node: string;
  type: string;
  leader?: string;
  members?: string[];
  online?: string[];
  arguments?: Record<string, unknown>;
  messages?: number;
}

describe("a spread cluster: replicated streams reached from every node, over every protocol", () => {
  const sc = spreadCluster({ streams: true });
  const names = [0, 1, 2].map((i) => `node${i}@test`);

  const streamClient = async (i: number): Promise<Client> => {
    const c = await connectStream({ hostname: "127.0.0.1", port: await sc.streamPort(i), username: "guest", password: "guest", vhost: "/", heartbeat: 0 }, silent);
    sc.onClose(() => c.close());
    return c;
  };

  /** Consumes `n` messages of stream `s` through node `via` over AMQP 0-9-1 from `offset`. */
  const readVia = async (via: number, s: string, offset: number | string, n: number): Promise<Array<[string, number]>> => {
    const ch = await (await sc.connect(via)).createChannel();
    await ch.prefetch(50);
    const got: ConsumeMessage[] = [];
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        ch.consume(s, (m) => {
          if (m === null) return reject(new Error("cancelled"));
          got.push(m);
          ch.ack(m);
          if (got.length === n) resolve();
        }, { arguments: { "x-stream-offset": offset } }).catch(reject);
      }),
      15_000,
      `${n} messages of ${s} through node${via}`,
    );
    await ch.close();
    // A stream consumer is sent a whole prefetch at once: the first n are the ones asked for.
    return got.slice(0, n).map((m) => [m.content.toString(), Number(m.properties.headers!["x-stream-offset"])]);
  };

  sc.it("accepts streams of any x-initial-cluster-size, homed where placement says; every node lists node, leader and the store's copies as members", async () => {
    const ch = await (await sc.connect(0)).createChannel();
    await ch.assertQueue("sps-default", { durable: true, arguments: { "x-queue-type": "stream", "x-max-length-bytes": 50_000_000 } });
    await ch.assertQueue("sps-three", { durable: true, arguments: { "x-queue-type": "stream", "x-initial-cluster-size": 3 } });
    await ch.assertQueue("sps-one", { durable: true, arguments: { "x-queue-type": "stream", "x-initial-cluster-size": 1 } });
    for (const s of ["sps-default", "sps-three", "sps-one"]) await sc.seenEverywhere(s, 200);
    // Every store's in-sync set lists all three nodes once the followers caught up (stage 2).
    for (let i = 0; i < 3; i++) {
      await eventually(async () => ((await sc.api(i, "GET", "/api/queues/%2F/sps-three")).json as StreamRecord).members?.length === 3, 15_000, `node${i} listing three members`);
      const r = (await sc.api(i, "GET", "/api/queues/%2F/sps-default")).json as StreamRecord;
      assert.deepEqual([r.type, r.node, r.leader], ["stream", names[0], names[0]], `node${i}'s record`);
      assert.deepEqual([...r.members!].sort(), [...names].sort(), `node${i}: the nodes holding a copy of node0's store`);
      assert.equal(r.members![0], names[0], "the leader first");
      await eventually(async () => (((await sc.api(i, "GET", "/api/queues/%2F/sps-default")).json as StreamRecord).online ?? []).length === 3, 10_000, `node${i}: all three online`);
      assert.equal(r.arguments?.["x-max-length-bytes"], 50_000_000);
    }
  });

  sc.it("publishes with confirms through node1 and reads from an offset through node2 and node0 over AMQP 0-9-1", async () => {
    const pub = await (await sc.connect(1)).createConfirmChannel();
    for (let i = 0; i < 30; i++) pub.sendToQueue("sps-default", Buffer.from(`a${i}`), { persistent: true });
    await withTimeout(pub.waitForConfirms(), 10_000, "30 confirms through node1");
    assert.deepEqual(await readVia(2, "sps-default", "first", 30), range(0, 30).map((i) => [`a${i}`, i]), "from the first offset through node2");
    assert.deepEqual(await readVia(2, "sps-default", 25, 5), range(25, 30).map((i) => [`a${i}`, i]), "from offset 25 through node2");
    assert.deepEqual(await readVia(0, "sps-default", 10, 3), range(10, 13).map((i) => [`a${i}`, i]), "from offset 10 on its home");
    await eventually(async () => ((await sc.api(2, "GET", "/api/queues/%2F/sps-default")).json as StreamRecord).messages === 30, 10_000, "node2 counting 30");
  });

  sc.it("the stream protocol: a client on node2 follows Metadata to node0's stream port, publishes with confirms and reads every offset", async () => {
    const c = await streamClient(2);
    const [meta] = await c.queryMetadata({ streams: ["sps-default"] });
    assert.deepEqual({ host: meta!.leader?.host, port: meta!.leader?.port }, { host: "127.0.0.1", port: await sc.streamPort(0) }, "Metadata names the home's stream port");
    assert.deepEqual(meta!.replicas ?? [], [], "no replica serves reads: the copies wait to be adopted");
    const publisher = await c.declarePublisher({ stream: "sps-default", publisherRef: "sps-pub" });
    const confirmed = collector<bigint>(10);
    publisher.on("publish_confirm", (err, ids) => {
      assert.equal(err, null);
      for (const id of ids) confirmed.push(id);
    });
    for (let i = 0; i < 10; i++) await publisher.send(Buffer.from(`n${i}`), { publishingId: BigInt(i + 1) });
    await publisher.flush();
    assert.deepEqual([...(await withTimeout(confirmed.done, 10_000, "10 confirms"))].sort((a, b) => Number(a - b)), range(1, 11).map(BigInt));
    const first = collector<[bigint, string]>(40);
    await c.declareConsumer({ stream: "sps-default", offset: Offset.first() }, (m) => first.push([m.offset!, m.content.toString()]));
    const got = await withTimeout(first.done, 10_000, "40 from the first offset");
    assert.deepEqual(got.map(([o, b]) => [Number(o), b]), [...range(0, 30).map((i): [number, string] => [i, `a${i}`]), ...range(0, 10).map((i): [number, string] => [30 + i, `n${i}`])]);
    const from = collector<bigint>(5);
    await c.declareConsumer({ stream: "sps-default", offset: Offset.offset(35n) }, (m) => from.push(m.offset!));
    assert.deepEqual(await withTimeout(from.done, 10_000, "35.."), [35n, 36n, 37n, 38n, 39n]);
    // The locator connection on node2 asks the home for what lives in its log.
    const stats = await c.streamStatsRequest("sps-default");
    assert.equal(stats.firstChunkId, 0n);
    // AMQP 0-9-1 through node1 sees the native publishes too.
    assert.deepEqual(await readVia(1, "sps-default", 30, 10), range(0, 10).map((i) => [`n${i}`, 30 + i]));
  });

  sc.it("a stream homed on node1, created over the stream protocol through node1, is read through node0 and published to through node2 over AMQP 1.0", async () => {
    const c = await streamClient(1);
    await c.createStream({ stream: "sps-native" });
    const publisher = await c.declarePublisher({ stream: "sps-native" });
    const confirmed = collector<bigint>(12);
    publisher.on("publish_confirm", (_err, ids) => ids.forEach((id) => confirmed.push(id)));
    for (let i = 0; i < 12; i++) await publisher.send(Buffer.from(`q${i}`));
    await publisher.flush();
    await withTimeout(confirmed.done, 10_000, "12 confirms");
    // Create is answered once every node applied it: node0 knows the stream and its home at once.
    const r = (await sc.api(0, "GET", "/api/queues/%2F/sps-native")).json as StreamRecord;
    assert.deepEqual([r.type, r.node], ["stream", names[1]]);
    const a = await connectAmqp1(sc.node(0).amqpPort);
    sc.onClose(() => closeAmqp1(a));
    const filter = { "rabbitmq:stream-offset-spec": rhea.types.wrap_described("first", "rabbitmq:stream-offset-spec") };
    const { messages } = receive(a, "/queues/sps-native", 12, { source: { address: "/queues/sps-native", filter }, credit_window: 5, autoaccept: true } as never);
    const got = await withTimeout(messages, 10_000, "12 over AMQP 1.0 through node0");
    assert.deepEqual(got.map((m) => bodyOf(m.message).toString()), range(0, 12).map((i) => `q${i}`));
    assert.deepEqual(got.map((m) => Number(m.message.message_annotations?.["x-stream-offset"])), range(0, 12));
    // Published over AMQP 1.0 through node2: accepted once stored on node1 and its followers.
    const b = await connectAmqp1(sc.node(2).amqpPort);
    sc.onClose(() => closeAmqp1(b));
    const sender = await openSender(b, "/queues/sps-native");
    const outcomes = await withTimeout(sendAll(sender, range(0, 3).map((i) => ({ body: data(`w${i}`) }) as never)), 10_000, "3 outcomes over AMQP 1.0 through node2");
    assert.deepEqual(outcomes.map((o) => o.outcome), ["accepted", "accepted", "accepted"]);
    assert.deepEqual(await readVia(0, "sps-native", 12, 3), range(0, 3).map((i) => [`w${i}`, 12 + i]));
  });

  sc.it("a publisher on a node that does not home the stream is confirmed by the home; a subscription there is served from the home's log", async () => {
    const direct = await RawStreamClient.login(await sc.streamPort(1));
    sc.onClose(() => direct.close());
    const publish = await direct.request((corr) => new FrameWriter(CMD.declarePublisher).u32(corr).u8(1).str("sps-remote").str("sps-default").frame(), CMD.declarePublisher);
    assert.equal(publish.code, RC.ok, "declare_publisher on node1");
    // One message (an AMQP 1.0 data section), confirmed once the home stored and replicated it.
    direct.send(new FrameWriter(CMD.publish).u8(1).i32(1).u64(0).bytes(Buffer.from([0x00, 0x53, 0x75, 0xa0, 2, 0x70, 0x30])).frame());
    const confirmed = (await direct.next(CMD.publishConfirm, 10_000)).body;
    assert.deepEqual([confirmed.u8(), confirmed.i32(), confirmed.u64()], [1, 1, 0], "PublishConfirm with the client's id");
    const subscribe = await direct.request((corr) => new FrameWriter(CMD.subscribe).u32(corr).u8(1).str("sps-default").u16(OFFSET_TYPE.first).u16(10).map([]).frame(), CMD.subscribe);
    assert.equal(subscribe.code, RC.ok, "subscribe on node1");
    // The first chunk of the log, with the log's own offsets (chunk header after the subscription id: first offset at 24).
    const deliver = (await direct.next(CMD.deliver, 10_000)).raw.subarray(4);
    assert.equal(deliver[0], 1);
    assert.equal(deliver.readBigUInt64BE(1 + 24), 0n);
    assert.ok(deliver.readUInt32BE(1 + 4) > 0);
  });

  sc.it("a single-active-consumer group with members on two nodes that do not home the stream: one active at a time, the turn passed on", async () => {
    const s = "sps-sac";
    const ch = await (await sc.connect(0)).createConfirmChannel();
    await ch.assertQueue(s, { durable: true, arguments: { "x-queue-type": "stream" } });
    for (const b of ["a0", "a1", "a2"]) ch.sendToQueue(s, Buffer.from(b), { persistent: true });
    await ch.waitForConfirms();
    await ch.close();
    await sc.seenEverywhere(s, 200);
    const [one, two] = await Promise.all([1, 2].map(async (i) => RawStreamClient.login(await sc.streamPort(i))));
    sc.onClose(() => one!.close());
    sc.onClose(() => two!.close());
    const sacSubscribe = (c: RawStreamClient, sub: number) =>
      c.request((corr) => new FrameWriter(CMD.subscribe).u32(corr).u8(sub).str(s).u16(OFFSET_TYPE.first).u16(100).map([["single-active-consumer", "true"], ["name", "g"]]).frame(), CMD.subscribe);
    /** Waits for a ConsumerUpdate on `c` and answers it: start from the first offset. */
    const answerUpdate = async (c: RawStreamClient): Promise<{ sub: number; active: boolean }> => {
      const f = await c.next(CMD.consumerUpdate, 10_000);
      const corr = f.body.u32();
      const sub = f.body.u8();
      const active = f.body.u8() === 1;
      c.send(new FrameWriter(CMD.consumerUpdate | RESPONSE).u32(corr).u16(RC.ok).u16(OFFSET_TYPE.first).frame());
      return { sub, active };
    };
    const firstOffset = async (c: RawStreamClient): Promise<number> => Number((await c.next(CMD.deliver, 10_000)).raw.subarray(4).readBigUInt64BE(1 + 24));
    assert.equal((await sacSubscribe(one!, 1)).code, RC.ok, "a single-active-consumer Subscribe on node1");
    assert.deepEqual(await answerUpdate(one!), { sub: 1, active: true });
    assert.equal(await firstOffset(one!), 0);
    // The second member, on node2, waits: the group is the home's one group.
    assert.equal((await sacSubscribe(two!, 2)).code, RC.ok, "a single-active-consumer Subscribe on node2");
    assert.deepEqual(two!.take(CMD.consumerUpdate), [], "no turn for node2's member while node1's is active");
    assert.deepEqual(two!.take(CMD.deliver), [], "nor a chunk");
    const unsubscribed = await one!.request((corr) => new FrameWriter(CMD.unsubscribe).u32(corr).u8(1).frame(), CMD.unsubscribe);
    assert.equal(unsubscribed.code, RC.ok);
    // node1's member left: node2's is activated, from where its answer says.
    assert.deepEqual(await answerUpdate(two!), { sub: 2, active: true });
    assert.equal(await firstOffset(two!), 0);
  });
});
