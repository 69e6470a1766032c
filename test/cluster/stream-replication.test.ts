// Streams in a cluster (docs/STREAMS.md, "Replication"): a stream's chunks are replicated in the
// leader's batches under the confirm rule, so every confirmed message is on the in-sync followers;
// retention on the leader deletes the same segments on the followers; a follower that stalls
// (SIGSTOP) leaves the in-sync set, is disconnected once silent for 5 s, and catches up by a full
// sync that compares sealed segments by digest; and
// after kill -9 of the leader the new leader serves every confirmed message, in order, from `first`.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { suiteCluster, type NodeInfo } from "./cluster-fixture.js";
import { copyOf, sameCopies } from "./store-copies.js";
import { declareStream, publishInOrder, readStream, throughAnyNode } from "./stream-traffic.js";
import { eventually } from "../helpers/wait.js";
import amqp from "amqplib";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);
const streamFiles = (n: NodeInfo): string[] => [...copyOf(n).keys()].filter((f) => f.startsWith("streams/"));

describe("streams in a cluster", { timeout: 180_000 }, () => {
  const { cluster, pass } = suiteCluster();
  const followers = (leader: NodeInfo): NodeInfo[] => cluster.nodes.filter((n) => n !== leader && n.proc !== null);

  it("deletes on the followers the segments retention deletes on the leader, and a deleted stream", { timeout: 60_000 }, async () => {
    const leader = await cluster.waitForLeader();
    // 16 KB segments, at most 64 KB kept: 1000 messages of 200 bytes roll ~13 segments, most deleted.
    await declareStream(cluster.url(leader), "retained", { "x-stream-max-segment-size-bytes": 16_000, "x-max-length-bytes": 64_000 });
    for (let i = 0; i < 10; i++) {
      const ids = range(i * 100, (i + 1) * 100);
      assert.equal((await publishInOrder(cluster.url(leader), "retained", "r", ids, 200)).size, 100);
    }
    const onLeader = streamFiles(leader);
    assert.ok(onLeader.length >= 2 && onLeader.length <= 6, `the leader keeps a few segments: ${onLeader.join(", ")}`);
    assert.ok(!onLeader.some((f) => f.endsWith("/00000000000000000000.segment")), "the first segment was deleted");
    for (const f of followers(leader)) await sameCopies(leader, f);
    // What is kept reads back, from the first offset kept.
    const kept = await readStream(cluster.url(leader), "retained", "first", 1);
    assert.ok(kept[0]!.offset > 0);
    // Deleting the stream deletes its files on every node; declared again, it starts from offset 0 everywhere.
    const conn = await amqp.connect(cluster.url(leader));
    await (await conn.createChannel()).deleteQueue("retained");
    await conn.close();
    for (const f of followers(leader)) await sameCopies(leader, f);
    assert.deepEqual(streamFiles(leader), []);
    await declareStream(cluster.url(leader), "retained");
    assert.equal((await publishInOrder(cluster.url(leader), "retained", "n", range(0, 10))).size, 10);
    for (const f of followers(leader)) await sameCopies(leader, f);
    assert.deepEqual((await readStream(cluster.url(leader), "retained", "first", 10)).map((r) => `${r.offset}:${r.id}`), range(0, 10).map((i) => `${i}:n${i}`));
    pass();
  });

  it("catches up a follower that was stopped (SIGSTOP) while the stream grew", { timeout: 60_000 }, async () => {
    const leader = await cluster.waitForLeader();
    const [stalled] = followers(leader) as [NodeInfo];
    await declareStream(cluster.url(leader), "caught-up", { "x-stream-max-segment-size-bytes": 32_000 });
    assert.equal((await publishInOrder(cluster.url(leader), "caught-up", "a", range(0, 1000), 200)).size, 1000);
    await sameCopies(leader, stalled);
    // Sealed segments it holds with a digest now (stream-digests.ts) stay valid while it is stopped.
    const sidecars = (): number => readdirSync(join(stalled.dataDir, "streams"), { recursive: true }).filter((f) => String(f).endsWith(".segment.sha256")).length;
    await eventually(() => sidecars() >= 3, 10_000, "sidecar digests of the sealed stream segments");
    const sealedBefore = sidecars();
    const from = leader.log.length;
    cluster.signal(stalled.proc, "SIGSTOP");
    try {
      // Confirms wait for the stalled follower until it leaves the in-sync set (--replica-ack-timeout), then go on.
      assert.equal((await publishInOrder(cluster.url(leader), "caught-up", "b", range(1000, 3000), 200)).size, 2000);
      await eventually(async () => (await cluster.nodesVia(leader))?.find((e) => e.name === stalled.name)?.in_sync === false, 15_000, `${stalled.name} out of the in-sync set`);
      // Silent for 5 s with batches outstanding, it is disconnected: back, it syncs again (docs/CLUSTERING.md, "Falling behind").
      await eventually(() => leader.log.slice(from).split("\n").some((l) => l.includes('"msg":"cluster: follower dropped"') && l.includes(`"follower":"${stalled.name}"`)), 20_000, `${stalled.name} disconnected`);
    } finally {
      cluster.signal(stalled.proc, "SIGCONT");
    }
    await cluster.waitForInSync(3, 40_000);
    await sameCopies(leader, stalled);
    // The sealed stream segments it held before the stop were compared by their digests, not read.
    const compared = leader.log.split("\n").filter((l) => l.includes('"msg":"cluster: catch-up compared"') && l.includes(`"follower":"${stalled.name}"`));
    const last = JSON.parse(compared[compared.length - 1]!) as { trustedSealedSegments: number };
    assert.ok(last.trustedSealedSegments >= sealedBefore, `sealed segments trusted by digest: ${last.trustedSealedSegments} (${sealedBefore} sealed stream segments before the stop)`);
    pass();
  });

  it("sends a consumer no chunk before the followers hold it (RabbitMQ delivers committed chunks only)", { timeout: 60_000 }, async () => {
    const leader = await cluster.waitForLeader();
    await declareStream(cluster.url(leader), "committed-only");
    await cluster.waitForInSync(3, 40_000);
    const conn = await amqp.connect(cluster.url(leader));
    try {
      const ch = await conn.createChannel();
      await ch.prefetch(10);
      const got: string[] = [];
      await ch.consume("committed-only", (m) => m && got.push(m.content.toString()), { arguments: { "x-stream-offset": "first" } });
      const stopped = followers(leader);
      for (const f of stopped) cluster.signal(f.proc, "SIGSTOP");
      try {
        const pub = await conn.createChannel();
        pub.sendToQueue("committed-only", Buffer.from("held"));
        // Written on the leader at once, but no follower can acknowledge it: it must not be read yet.
        // (Before the fix it reached the consumer within milliseconds; with no follower holding it,
        // none leaves the in-sync set — confirms could not go on without them — and none is
        // disconnected before 5 s of silence, longer than this wait.)
        await new Promise((r) => setTimeout(r, 1500));
        assert.deepEqual(got, [], "delivered before any follower held it");
      } finally {
        for (const f of stopped) cluster.signal(f.proc, "SIGCONT");
      }
      await eventually(() => got.length === 1, 30_000, "the message once the followers hold it");
      assert.deepEqual(got, ["held"]);
    } finally {
      await conn.close();
    }
    pass();
  });

  it("serves every confirmed message in order from `first` after kill -9 of the leader", { timeout: 60_000 }, async (t) => {
    const total = 6000;
    const leader = await cluster.waitForLeader();
    await declareStream(cluster.url(leader), "events", { "x-initial-cluster-size": 3 });
    // Half is confirmed before the kill, the rest is being published when the leader dies.
    assert.equal((await publishInOrder(cluster.url(leader), "events", "e", range(0, total / 2))).size, total / 2);
    // A consumer reads the first 1000 on the leader; after the failover it goes on from offset 1000.
    const head = await readStream(cluster.url(leader), "events", "first", 1000);
    assert.deepEqual(head.map((r) => r.offset), range(0, 1000));
    let killed = false;
    const kill = (): void => {
      if (!killed) void cluster.kill(leader);
      killed = true;
    };
    const confirmed = await publishInOrder(cluster.url(leader), "events", "e", range(total / 2, total), 100, (n) => n >= 500 && kill());
    kill();
    t.diagnostic(`confirmed before the leader died: ${total / 2 + confirmed.size} of ${total}`);
    for (let i = 0; i < total / 2; i++) confirmed.add(i);
    const next = await cluster.waitForLeader(leader);
    // What was not confirmed is published again, in order, through any node (the new leader, or a follower's proxy).
    await throughAnyNode(cluster, async (url) => {
      const rest = range(0, total).filter((i) => !confirmed.has(i));
      const got = await publishInOrder(url, "events", "e", rest);
      for (const i of got) confirmed.add(i);
      if (confirmed.size < total) throw new Error(`${total - confirmed.size} not confirmed yet`);
    });
    const resumed = await readStream(cluster.url(next), "events", head[999]!.offset + 1, 10);
    assert.deepEqual(resumed.map((r) => `${r.offset}:${r.id}`), range(1000, 1010).map((i) => `${i}:e${i}`), "the consumer continues where it stopped");
    // Republished messages may follow copies the old leader wrote but never confirmed: read until every id was seen.
    const ids = new Set<string>();
    let scanned = 0;
    const all = await readStream(cluster.url(next), "events", "first", (read) => {
      for (; scanned < read.length; scanned++) ids.add(read[scanned]!.id);
      return ids.size === total;
    }, 30_000).catch((err: Error) => assert.fail(`${err.message}; missing: ${range(0, total).filter((i) => !ids.has(`e${i}`)).slice(0, 10).join(", ")}…`));
    // Offsets are contiguous from 0; the first copy of each id comes in publish order; no confirmed id is missing.
    all.forEach((r, i) => assert.equal(r.offset, i));
    const firstSeen: number[] = [];
    const seen = new Set<string>();
    for (const r of all) {
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      firstSeen.push(Number(r.id.slice(1)));
    }
    assert.deepEqual(firstSeen.slice(0, total), range(0, total), "every confirmed message, in order");
    // The old leader returns as a follower and ends with the new leader's files.
    cluster.startNode(leader);
    await cluster.waitForInSync(3, 40_000);
    await sameCopies(next, leader);
    pass();
  });
});
