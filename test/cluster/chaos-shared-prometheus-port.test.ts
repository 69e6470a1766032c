// Chaos case 7 (issue 23): every node asks for the same --prometheus-port. Only one can bind it;
// the others retry it in the background (src/listeners). The cluster must form and serve, and
// serve again within 15 s after its leader is killed.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { freePort } from "./cluster-fixture.js";
import { drainQueue, ids, publishThroughFailures, withCluster } from "./cluster-traffic.js";
import { chaosFigures } from "./chaos-report.js";

describe("chaos: a Prometheus port shared by every node", { timeout: 110_000 }, () => {
  it("forms, serves, and serves again within 15 s of the leader's kill -9", async (t) => {
    const shared = await freePort();
    await withCluster(async (cluster) => {
      const leader = await cluster.waitForLeader();
      // The followers could not bind the shared port: each says so once, and keeps following.
      const scrape = await (await fetch(`http://127.0.0.1:${shared}/metrics`)).text();
      assert.match(scrape, /coney_cluster_leader 1/, "the leader holds the shared port");
      const run = await publishThroughFailures(cluster, "chaos-prom-q", "p-", 3000, 1000, () => cluster.kill(leader), () => false, 60_000);
      assert.ok(run.failoverMs > 0 && run.failoverMs < 15_000, `service back ${run.failoverMs} ms after the kill`);
      const next = await cluster.waitForLeader(leader);
      assert.notEqual(next.name, leader.name);
      for (const n of cluster.nodes) {
        if (!n.proc) continue;
        assert.ok(!n.log.includes("fencing this node"), `${n.name} fenced itself`);
      }
      const expected = ids("p-", run.confirmed);
      const counts = { duplicates: 0 };
      const seen = await drainQueue(cluster, "chaos-prom-q", expected, 30_000, counts);
      const f = chaosFigures(t, "7 shared Prometheus port, leader killed", expected, seen, counts.duplicates, run.failoverMs);
      assert.equal(f.lost, 0);
    }, { leaseTtl: 2, extraArgs: ["--prometheus-port", String(shared)] });
  });
});
