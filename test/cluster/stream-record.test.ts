// A stream's record in a cluster (issue 24, operators): the leader, which writes every stream, is
// its `leader`; every node keeps a copy, so all are `members`; a node that is down drops out of
// `online` but stays a member. Asked through a follower's HTTP port (proxied to the leader) too.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { suiteCluster, type NodeInfo } from "./cluster-fixture.js";
import { declareStream, publishInOrder } from "./stream-traffic.js";
import { eventually } from "../helpers/wait.js";

interface StreamRecord {
  leader: string;
  members: string[];
  online: string[];
  committed_offset: number;
}

async function recordVia(n: NodeInfo, name: string): Promise<StreamRecord | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${n.httpPort}/api/queues/%2F/${name}`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` }, signal: AbortSignal.timeout(2000) });
    return r.ok ? ((await r.json()) as StreamRecord) : null;
  } catch {
    return null;
  }
}

describe("a stream's record in a cluster", { timeout: 120_000 }, () => {
  const { cluster, pass } = suiteCluster();

  it("names the leader, every node as a member, and the running ones as online", { timeout: 60_000 }, async () => {
    const leader = await cluster.waitForLeader();
    await declareStream(cluster.url(leader), "rec");
    assert.equal((await publishInOrder(cluster.url(leader), "rec", "m", [0, 1, 2])).size, 3);
    const all = cluster.nodes.map((n) => n.name).sort();
    const [follower] = cluster.nodes.filter((n) => n !== leader) as [NodeInfo];
    for (const via of [leader, follower]) {
      const r = await recordVia(via, "rec");
      assert.ok(r, `the record through ${via.name}`);
      assert.equal(r.leader, leader.name);
      assert.deepEqual([...r.members].sort(), all);
      assert.deepEqual([...r.online].sort(), all);
      assert.equal(r.committed_offset, 2);
    }
    await cluster.kill(follower);
    await eventually(async () => !(await recordVia(leader, "rec"))?.online.includes(follower.name), 30_000, "the stopped follower out of online");
    const r = (await recordVia(leader, "rec"))!;
    assert.deepEqual([...r.members].sort(), all, "a stopped node keeps its copy: still a member");
    assert.deepEqual([...r.online].sort(), all.filter((n) => n !== follower.name));
    pass();
  });
});
