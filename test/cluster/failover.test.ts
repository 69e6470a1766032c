// Failover with data: 20,000 persistent messages published with confirms through the cluster
// while the leader is killed with SIGKILL mid-stream, then again with the new leader killed.
// Every confirmed message must be found afterwards (duplicates of unconfirmed ones are allowed).
// The killed node restarts, catches up by a full sync and rejoins the in-sync set.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { TestCluster } from "./cluster-fixture.js";
import { drainQueue, publishThroughFailures } from "./cluster-traffic.js";

const TOTAL = 20_000;

describe("cluster failover", () => {
  const cluster = new TestCluster(3);
  // What the test was doing, and whether it finished: a stall is reported with the nodes' logs
  // (the test's own timeout ends it well inside the runner's per-file limit).
  let phase = "starting";
  let passed = false;
  const started = Date.now();
  const at = (p: string): void => {
    phase = `${p} (at ${Date.now() - started} ms)`;
  };
  before(() => cluster.start());
  after(async () => {
    if (!passed) console.error(`failover test stopped while: ${phase}\n${cluster.logs()}`);
    await cluster.close();
  });

  it("loses no confirmed message when the leader, then the next leader, is killed with SIGKILL", { timeout: 100_000 }, async (t) => {
    at("waiting for three nodes in sync");
    await cluster.waitForInSync(3);
    const expected = new Set<string>();
    for (const round of [1, 2]) {
      const victim = await cluster.waitForLeader();
      at(`round ${round}: publishing, killing ${victim.name}`);
      const run = await publishThroughFailures(cluster, "failover-q", `r${round}-`, TOTAL, TOTAL / 4, () => cluster.kill(victim), () => false, 40_000);
      for (const id of run.confirmed) expected.add(`r${round}-${id}`);
      assert.equal(run.confirmed.size, TOTAL);
      assert.ok(run.failoverMs > 0, "a publish was confirmed after the kill");
      t.diagnostic(`round ${round}: killed leader ${victim.name}; kill -> first confirmed publish: ${run.failoverMs} ms; connections used: ${run.reconnects}`);
      at(`round ${round}: waiting for a new leader`);
      const next = await cluster.waitForLeader(victim);
      assert.notEqual(next.name, victim.name);
      // The old leader comes back as a follower, discards its copy, and rejoins the in-sync set.
      at(`round ${round}: restarted ${victim.name}, waiting for it to rejoin the in-sync set`);
      cluster.startNode(victim);
      const nodes = await cluster.waitForInSync(3, 30_000);
      assert.deepEqual(nodes.filter((e) => e.cluster_leader).map((e) => e.name), [next.name]);
    }
    at("draining the queue");
    const seen = await drainQueue(cluster, "failover-q", expected, 20_000);
    const lost = [...expected].filter((e) => !seen.has(e));
    assert.deepEqual(lost.slice(0, 10), [], `${lost.length} confirmed messages lost`);
    passed = true;
  });
});
