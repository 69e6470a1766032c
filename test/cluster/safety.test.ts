// Safety of the in-sync set: a follower that fell behind is never elected (the lease side is in
// safety-etcd-cut.test.ts, a file of its own so each scenario has the runner's whole time budget).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NodeInfo } from "./cluster-fixture.js";
import { drainQueue, ids, publishThroughFailures, withCluster } from "./cluster-traffic.js";
import { eventually } from "../helpers/wait.js";

describe("cluster safety", { timeout: 200_000 }, () => {
  it("never elects a follower that fell behind; the in-sync one that returns leads with every confirmed message", async () => {
    await withCluster(async (cluster) => {
      const leader = await cluster.waitForLeader();
      const [upToDate, behind] = cluster.nodes.filter((n) => n !== leader) as [NodeInfo, NodeInfo];
      cluster.signal(behind.proc, "SIGSTOP");
      // Confirms wait for the stalled follower until the leader drops it from the in-sync set.
      const run = await publishThroughFailures(cluster, "behind-q", "b-", 500, Infinity, async () => undefined);
      await eventually(async () => (await cluster.nodesVia(leader))?.find((e) => e.name === behind.name)?.in_sync === false, 10_000, "the stalled follower out of the in-sync set");
      assert.equal((await cluster.nodesVia(leader))?.find((e) => e.name === upToDate.name)?.in_sync, true);
      await cluster.kill(leader);
      await cluster.kill(upToDate);
      cluster.signal(behind.proc, "SIGCONT");
      // Several lease times with no in-sync node alive: the behind one must not take over.
      const waitUntil = Date.now() + cluster.leaseTtl * 3000 + 1000;
      await eventually(() => {
        assert.deepEqual(cluster.logTimes(behind, "cluster: elected leader"), [], "the behind follower was elected");
        return Date.now() > waitUntil;
      }, cluster.leaseTtl * 3000 + 5000, "the wait to pass");
      cluster.startNode(upToDate);
      const next = await cluster.waitForLeader();
      assert.equal(next.name, upToDate.name);
      // The behind follower catches up from the new leader and rejoins the in-sync set.
      await eventually(async () => (await cluster.nodesVia(next))?.find((e) => e.name === behind.name)?.in_sync === true, 30_000, "the behind follower in sync");
      const expected = ids("b-", run.confirmed);
      const seen = await drainQueue(cluster, "behind-q", expected);
      assert.deepEqual([...expected].filter((e) => !seen.has(e)), []);
    });
  });
});
