// Safety of the in-sync set and of leases: a follower that fell behind is never elected, and a
// leader cut from etcd stops confirming within the lease time, with never two nodes confirming.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { TestCluster, type NodeInfo } from "./cluster-fixture.js";
import { drainQueue, publishThroughFailures } from "./cluster-traffic.js";
import { eventually } from "../helpers/wait.js";

async function withCluster(body: (c: TestCluster) => Promise<void>): Promise<void> {
  const cluster = new TestCluster(3);
  try {
    await cluster.start();
    await cluster.waitForInSync(3);
    await body(cluster);
  } catch (err) {
    console.error(cluster.logs());
    throw err;
  } finally {
    await cluster.close();
  }
}

const ids = (prefix: string, s: ReadonlySet<number>): Set<string> => new Set([...s].map((i) => `${prefix}${i}`));

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

  it("stops confirming within the lease time when etcd stops answering, and never has two nodes confirming", async (t) => {
    await withCluster(async (cluster) => {
      const leader = await cluster.waitForLeader();
      let stoppedAt = 0;
      const ttlMs = cluster.leaseTtl * 1000;
      // Publish, stop etcd after 500 confirms, and keep trying to publish for two lease times.
      const cut = await publishThroughFailures(
        cluster,
        "cut-q",
        "c-",
        100_000,
        500,
        async () => {
          stoppedAt = Date.now();
          cluster.signal(cluster.etcd, "SIGSTOP");
        },
        () => stoppedAt > 0 && Date.now() > stoppedAt + ttlMs * 2 + 2000,
      );
      const late = cut.confirmTimes.filter((t) => t > stoppedAt);
      const last = late.length > 0 ? Math.max(...late) : stoppedAt;
      assert.ok(last - stoppedAt < ttlMs, `a confirm ${last - stoppedAt} ms after etcd stopped (lease ${ttlMs} ms)`);
      cluster.signal(cluster.etcd, "SIGCONT");
      // Once etcd answers again, one leader serves and confirms again.
      const again = await publishThroughFailures(cluster, "cut-q", "d-", 1000, Infinity, async () => undefined);
      t.diagnostic(`last confirm ${last - stoppedAt} ms after etcd stopped (lease ${ttlMs} ms); ${cut.confirmed.size} confirmed before`);
      // The old leader fenced itself before any other node was elected.
      const fencedAt = cluster.logTimes(leader, "cluster: leadership lost; fencing this node");
      assert.ok(fencedAt.length > 0, "the cut-off leader fenced itself");
      for (const n of cluster.nodes) {
        if (n === leader) continue;
        for (const t of cluster.logTimes(n, "cluster: elected leader")) assert.ok(t > fencedAt[0]!, `${n.name} elected while ${leader.name} still led`);
      }
      const expected = new Set([...ids("c-", cut.confirmed), ...ids("d-", again.confirmed)]);
      const seen = await drainQueue(cluster, "cut-q", expected);
      assert.deepEqual([...expected].filter((e) => !seen.has(e)), []);
    });
  });
});

