// Followers serve the stream port (docs/STREAMS.md, "Followers serve the stream port"): Metadata on
// any node names the leader and the in-sync followers, and each node advertises itself in Open; a consumer on a follower is sent the
// committed chunks from the follower's own files (shown by stopping the leader while it reads);
// a publisher declared on a follower is accepted, as RabbitMQ accepts it, and its messages
// confirmed by the leader; and after kill -9 of the leader a follower's connections go on: the
// consumer keeps receiving, in order, and a publisher can be declared on the same connection.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect, Offset, type Client } from "rabbitmq-stream-js-client";
import type { Message } from "rabbitmq-stream-js-client/dist/publisher.js";
import { suiteCluster, type NodeInfo, type TestCluster } from "./cluster-fixture.js";
import { eventually } from "../helpers/wait.js";
import { RawStreamClient } from "../stream/raw-stream-client.js";
import { FrameWriter } from "../../src/stream/wire.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function streamPort(cluster: TestCluster, n: NodeInfo): Promise<number> {
  const info = JSON.parse((await cluster.etcdKey(`members/${n.name}`)) ?? "{}") as { stream?: { port: number } };
  if (!info.stream) throw new Error(`${n.name} registered no stream port`);
  return info.stream.port;
}

function client(port: number): Promise<Client> {
  return connect({ hostname: "127.0.0.1", port, username: "guest", password: "guest", vhost: "/", heartbeat: 0 }, silent);
}

/** Publishes `${prefix}${i}` for i in [from, to) from a client on the leader, and waits for every confirm. */
async function publish(c: Client, stream: string, prefix: string, from: number, to: number): Promise<void> {
  const publisher = await c.declarePublisher({ stream });
  let confirmed = 0;
  publisher.on("publish_confirm", (err, ids) => {
    if (err === null) confirmed += ids.length;
  });
  for (let i = from; i < to; i++) await publisher.send(Buffer.from(`${prefix}${i}`));
  await publisher.flush();
  await eventually(() => confirmed === to - from, 20_000, `${to - from} confirms`);
  await publisher.close();
}

/** An AMQP 1.0 message of one data section (what a stream client publishes). */
function amqpData(text: string): Buffer {
  const body = Buffer.from(text);
  return Buffer.concat([Buffer.from([0x00, 0x53, 0x75, 0xa0, body.length]), body]);
}

/** Offsets and message counts of the Deliver v1 frames received so far (chunk header after the subscription id). */
function delivered(raw: RawStreamClient): Array<{ first: number; count: number }> {
  return raw.take(0x08).map((f) => {
    const chunk = f.raw.subarray(5);
    return { first: Number(chunk.readBigUInt64BE(24)), count: chunk.readUInt32BE(4) };
  });
}

describe("followers serve the stream port", { timeout: 240_000 }, () => {
  const { cluster, pass } = suiteCluster(3, ["--stream-port", "0"]);
  const followers = (leader: NodeInfo): NodeInfo[] => cluster.nodes.filter((n) => n !== leader && n.proc !== null);

  it("Metadata, asked on the leader or on a follower, names the leader and both followers", async () => {
    await cluster.waitForInSync(3);
    const leader = await cluster.waitForLeader();
    const onLeader = await client(await streamPort(cluster, leader));
    await onLeader.createStream({ stream: "meta" });
    const followerPorts = await Promise.all(followers(leader).map((f) => streamPort(cluster, f)));
    for (const via of [leader, ...followers(leader)]) {
      const c = via === leader ? onLeader : await client(await streamPort(cluster, via));
      const [meta] = await c.queryMetadata({ streams: ["meta"] });
      assert.equal(meta!.leader!.port, await streamPort(cluster, leader), `leader as told by ${via.name}`);
      assert.deepEqual(meta!.replicas!.map((r) => r.port).sort(), [...followerPorts].sort(), `replicas as told by ${via.name}`);
      assert.ok(meta!.replicas!.every((r) => r.host === "127.0.0.1"));
      // Each node says it is itself in Open (the address resolver of the clients checks it).
      assert.equal(c.getConnectionInfo().port, await streamPort(cluster, via), `Open's advertised port on ${via.name}`);
      if (c !== onLeader) await c.close();
    }
    await onLeader.close();
    pass();
  });

  it("a consumer placed on a replica gets every message published on the leader, in order, at the same offsets", async () => {
    const leader = await cluster.waitForLeader();
    const onLeader = await client(await streamPort(cluster, leader));
    await onLeader.createStream({ stream: "fanout" });
    // The locator on a follower: the client picks a replica from Metadata for its consumer.
    const viaFollower = await client(await streamPort(cluster, followers(leader)[0]!));
    const got: Message[] = [];
    await viaFollower.declareConsumer({ stream: "fanout", offset: Offset.first() }, (m) => void got.push(m));
    await publish(onLeader, "fanout", "m", 0, 3000);
    await eventually(() => got.length >= 3000, 20_000, "3000 messages on the replica's consumer");
    assert.equal(got.length, 3000);
    got.forEach((m, i) => {
      assert.equal(m.content.toString(), `m${i}`);
      assert.equal(Number(m.offset), i);
    });
    await viaFollower.close();
    await onLeader.close();
    pass();
  });

  it("serves a follower's consumer from the follower's own files (the leader stopped meanwhile)", async () => {
    const leader = await cluster.waitForLeader();
    const follower = followers(leader)[0]!;
    const raw = await RawStreamClient.login(await streamPort(cluster, follower));
    const sub = await raw.request((corr) => new FrameWriter(0x07).u32(corr).u8(1).str("fanout").u16(1).u16(0).frame(), 0x07);
    assert.equal(sub.code, 1, "the leader accepted the subscription");
    cluster.signal(leader.proc, "SIGSTOP");
    try {
      raw.send(new FrameWriter(0x09).u8(1).u16(1000).frame());
      const chunks: Array<{ first: number; count: number }> = [];
      await eventually(() => {
        chunks.push(...delivered(raw));
        return chunks.reduce((n, c) => n + c.count, 0) >= 3000;
      }, 10_000, "every committed chunk from the follower while the leader is stopped");
      let next = 0;
      for (const c of chunks) {
        assert.equal(c.first, next, "chunks in order, none missing");
        next += c.count;
      }
    } finally {
      cluster.signal(leader.proc, "SIGCONT");
    }
    raw.close();
    pass();
  });

  it("accepts a publisher declared on a follower, as RabbitMQ does, and the leader confirms its messages", async () => {
    const leader = await cluster.waitForLeader();
    const onLeader = await client(await streamPort(cluster, leader));
    await onLeader.createStream({ stream: "via-follower" });
    const raw = await RawStreamClient.login(await streamPort(cluster, followers(leader)[1]!));
    const declared = await raw.request((corr) => new FrameWriter(0x01).u32(corr).u8(7).str("").str("via-follower").frame(), 0x01);
    assert.equal(declared.code, 1);
    raw.send(new FrameWriter(0x02).u8(7).u32(2).u64(1).bytes(amqpData("f1")).u64(2).bytes(amqpData("f2")).frame());
    const confirm = await raw.next(0x03, 10_000);
    assert.equal(confirm.body.u8(), 7);
    // The leader wrote them: a consumer on the leader reads both.
    const read: string[] = [];
    await onLeader.declareConsumer({ stream: "via-follower", offset: Offset.first() }, (m) => void read.push(m.content.toString()));
    await eventually(() => read.length === 2, 10_000, "both messages on the leader");
    assert.deepEqual(read, ["f1", "f2"]);
    // Unknown streams get RabbitMQ's answer, from the leader.
    const missing = await raw.request((corr) => new FrameWriter(0x01).u32(corr).u8(8).str("").str("no-such-stream").frame(), 0x01);
    assert.equal(missing.code, 2);
    raw.close();
    await onLeader.close();
    pass();
  });

  it("applies a consumer's chunk filter on a follower too", async () => {
    const leader = await cluster.waitForLeader();
    const onLeader = await client(await streamPort(cluster, leader));
    await onLeader.createStream({ stream: "filtered" });
    const publisher = await onLeader.declarePublisher({ stream: "filtered" }, (m) => m.applicationProperties?.["region"] as string | undefined);
    let confirmed = 0;
    publisher.on("publish_confirm", (err, ids) => {
      if (err === null) confirmed += ids.length;
    });
    // Ten chunks, A and B in turn (one confirmed batch each).
    for (let k = 0; k < 10; k++) {
      for (let i = 0; i < 20; i++) await publisher.send(Buffer.from(`${k}`), { applicationProperties: { region: k % 2 === 0 ? "A" : "B" } });
      await publisher.flush();
      await eventually(() => confirmed === (k + 1) * 20, 10_000, `batch ${k}`);
    }
    await onLeader.close();
    const raw = await RawStreamClient.login(await streamPort(cluster, followers(leader)[0]!));
    const sub = await raw.request((corr) => new FrameWriter(0x07).u32(corr).u8(1).str("filtered").u16(1).u16(100).map([["filter.0", "A"]]).frame(), 0x07);
    assert.equal(sub.code, 1);
    const chunks: Array<{ first: number; count: number }> = [];
    await eventually(() => (chunks.push(...delivered(raw)), chunks.length >= 5), 10_000, "the five chunks of A");
    await raw.request((corr) => new FrameWriter(0x0c).u32(corr).u8(1).frame(), 0x0c);
    chunks.push(...delivered(raw));
    assert.deepEqual(chunks.map((c) => c.first), [0, 40, 80, 120, 160], "only A's chunks, from the follower's files");
    raw.close();
    pass();
  });

  it("after kill -9 of the leader, a follower's consumer goes on in order and its connection takes a publisher", { timeout: 90_000 }, async () => {
    const leader = await cluster.waitForLeader();
    const onLeader = await client(await streamPort(cluster, leader));
    await onLeader.createStream({ stream: "failover" });
    await publish(onLeader, "failover", "a", 0, 500);
    await onLeader.close();
    const consumers: Array<{ node: NodeInfo; raw: RawStreamClient }> = [];
    for (const f of followers(leader)) {
      const raw = await RawStreamClient.login(await streamPort(cluster, f));
      const sub = await raw.request((corr) => new FrameWriter(0x07).u32(corr).u8(1).str("failover").u16(1).u16(10_000).frame(), 0x07);
      assert.equal(sub.code, 1);
      consumers.push({ node: f, raw });
    }
    const seen = consumers.map(() => [] as Array<{ first: number; count: number }>);
    const count = (i: number): number => {
      seen[i]!.push(...delivered(consumers[i]!.raw));
      return seen[i]!.reduce((n, c) => n + c.count, 0);
    };
    // And the real client: its locator and its consumer on followers (the consumer on a replica it picked).
    const jsClient = await client(await streamPort(cluster, followers(leader)[0]!));
    const jsGot: Message[] = [];
    await jsClient.declareConsumer({ stream: "failover", offset: Offset.first() }, (m) => void jsGot.push(m));
    await eventually(() => consumers.every((_, i) => count(i) >= 500) && jsGot.length >= 500, 10_000, "the first 500 on both followers");
    await cluster.kill(leader);
    const next = await cluster.waitForLeader(leader, 30_000);
    const onNext = await client(await streamPort(cluster, next));
    await publish(onNext, "failover", "b", 500, 1000);
    await eventually(() => consumers.every((_, i) => count(i) >= 1000) && jsGot.length >= 1000, 20_000, "all 1000 on both followers' consumers");
    assert.deepEqual(jsGot.map((m) => `${Number(m.offset)}:${m.content.toString()}`), Array.from({ length: 1000 }, (_, i) => `${i}:${i < 500 ? "a" : "b"}${i}`));
    await jsClient.close().catch(() => undefined);
    for (const s of seen) {
      let at = 0;
      for (const c of s) {
        assert.equal(c.first, at, "in order, no chunk twice or missing");
        at += c.count;
      }
      assert.equal(at, 1000);
    }
    // The same connections, after the failover: a publisher is declared and confirmed on each.
    for (const { raw } of consumers) {
      const declared = await raw.request((corr) => new FrameWriter(0x01).u32(corr).u8(3).str("").str("failover").frame(), 0x01);
      assert.equal(declared.code, 1);
      raw.send(new FrameWriter(0x02).u8(3).u32(1).u64(1).bytes(amqpData("after")).frame());
      assert.equal((await raw.next(0x03, 10_000)).body.u8(), 3);
      raw.close();
    }
    await onNext.close();
    pass();
  });
});
