// A three-node cluster forms on a real etcd: one leader, every node's /api/nodes shows three,
// definitions made on the leader reach the followers' disks, and a follower's AMQP and HTTP
// ports reach the leader.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import amqp from "amqplib";
import { TestCluster, type NodesEntry } from "./cluster-fixture.js";
import { eventually } from "../helpers/wait.js";

describe("cluster formation", { timeout: 90_000 }, () => {
  const cluster = new TestCluster(3);
  before(async () => {
    try {
      await cluster.start();
    } catch (err) {
      console.error(cluster.logs());
      throw err;
    }
  });
  after(() => cluster.close());

  it("elects one leader that every node's /api/nodes reports, with three nodes", async () => {
    const leader = await cluster.waitForLeader();
    // A follower forwards once it has read the leader from etcd (within a poll of 200 ms), and a
    // node is known (nodes/) a moment before its member key says it runs (members/).
    let lists: Array<NodesEntry[] | null> = [];
    await eventually(async () => {
      lists = await Promise.all(cluster.nodes.map((n) => cluster.nodesVia(n)));
      return lists.every((l) => l !== null && l.length === 3 && l.every((e) => e.running));
    }, 20_000, "every node to answer /api/nodes with three running nodes");
    for (const list of lists) {
      assert.ok(list);
      assert.deepEqual(list.map((e) => e.name).sort(), cluster.nodes.map((n) => n.name).sort());
      assert.deepEqual(list.filter((e) => e.cluster_leader).map((e) => e.name), [leader.name]);
      assert.ok(list.every((e) => e.running));
    }
    await cluster.waitForInSync(3);
  });

  it("writes definitions made on the leader to the followers' disks, and serves AMQP and HTTP through a follower", async () => {
    const leader = await cluster.waitForLeader();
    const follower = cluster.nodes.find((n) => n !== leader)!;
    const conn = await amqp.connect(cluster.url(follower));
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("formation-q", { durable: true });
    ch.sendToQueue("formation-q", Buffer.from("hello"), { persistent: true });
    await ch.waitForConfirms();
    await conn.close();
    for (const n of cluster.nodes) {
      if (n === leader) continue;
      await eventually(() => {
        const f = join(n.dataDir, "definitions.json");
        return existsSync(f) && readFileSync(f, "utf8").includes('"formation-q"');
      }, 10_000, `definitions on ${n.name}`);
    }
    // The management API through the follower's port answers with the leader's queue.
    const r = await fetch(`http://127.0.0.1:${follower.httpPort}/api/queues/%2F/formation-q`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } });
    assert.equal(r.status, 200);
    const q = (await r.json()) as { messages: number; node: string };
    assert.equal(q.messages, 1);
  });
});
