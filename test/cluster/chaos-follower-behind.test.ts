// Chaos case 4 (issue 23): a follower is killed, 10,000 more messages are confirmed without it,
// it restarts and catches up into the in-sync set, then the leader is killed. Every confirmed
// message is on the new leader.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { drainQueue, ids, publishThroughFailures, withCluster } from "./cluster-traffic.js";
import { chaosFigures } from "./chaos-report.js";

describe("chaos: a follower returns behind, then the leader dies", { timeout: 115_000 }, () => {
  it("catches the follower up and loses nothing when the leader is killed after", async (t) => {
    await withCluster(async (cluster) => {
      const leader = await cluster.waitForLeader();
      const follower = cluster.nodes.find((n) => n !== leader)!;
      const before = await publishThroughFailures(cluster, "chaos-behind-q", "a-", 2000, Infinity, async () => undefined, () => false, 30_000, leader);
      await cluster.kill(follower);
      // 10,000 more, confirmed by the leader and the remaining follower.
      const without = await publishThroughFailures(cluster, "chaos-behind-q", "b-", 10_000, Infinity, async () => undefined, () => false, 60_000, leader);
      assert.equal(without.confirmed.size, 10_000);
      cluster.startNode(follower);
      const caughtUpFrom = Date.now();
      await cluster.waitForInSync(3, 40_000);
      const catchUpMs = Date.now() - caughtUpFrom;
      // Now the leader dies: the returned follower or the other one takes over with everything.
      const after = await publishThroughFailures(cluster, "chaos-behind-q", "c-", 2000, 500, () => cluster.kill(leader), () => false, 40_000);
      const expected = new Set([...ids("a-", before.confirmed), ...ids("b-", without.confirmed), ...ids("c-", after.confirmed)]);
      const counts = { duplicates: 0 };
      const seen = await drainQueue(cluster, "chaos-behind-q", expected, 30_000, counts);
      const f = chaosFigures(t, "4 follower behind by 10,000, then leader killed", expected, seen, counts.duplicates, after.failoverMs, { catchUpMs });
      assert.equal(f.lost, 0);
    }, { leaseTtl: 2 });
  });
});
