// Chaos case 2 (issue 23): the leader is killed with SIGKILL three times in a row, each time
// restarted and waited for until it is back in the in-sync set. No confirmed message is lost.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { drainQueue, ids, publishThroughFailures, withCluster } from "./cluster-traffic.js";
import { chaosFigures } from "./chaos-report.js";

const PER_ROUND = 4000;

describe("chaos: leader kill -9 three times", { timeout: 115_000 }, () => {
  it("loses no confirmed message and serves again after each kill", async (t) => {
    await withCluster(async (cluster) => {
      const expected = new Set<string>();
      const failovers: number[] = [];
      for (const round of [1, 2, 3]) {
        const victim = await cluster.waitForLeader();
        const run = await publishThroughFailures(cluster, "chaos-kill-q", `k${round}-`, PER_ROUND, PER_ROUND / 4, () => cluster.kill(victim), () => false, 30_000);
        assert.equal(run.confirmed.size, PER_ROUND);
        assert.ok(run.failoverMs > 0, "a publish was confirmed after the kill");
        failovers.push(run.failoverMs);
        for (const e of ids(`k${round}-`, run.confirmed)) expected.add(e);
        const next = await cluster.waitForLeader(victim);
        assert.notEqual(next.name, victim.name);
        cluster.startNode(victim);
        await cluster.waitForInSync(3, 30_000);
      }
      const counts = { duplicates: 0 };
      const seen = await drainQueue(cluster, "chaos-kill-q", expected, 30_000, counts);
      const f = chaosFigures(t, "2 leader kill -9 three times", expected, seen, counts.duplicates, Math.max(...failovers), { failoversMs: failovers.join(" / ") });
      assert.equal(f.lost, 0);
    }, { leaseTtl: 2 });
  });
});
