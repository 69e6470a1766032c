// Safety of leases: a leader cut from etcd stops confirming within the lease time, and two nodes
// never confirm at once.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { drainQueue, ids, publishThroughFailures, withCluster } from "./cluster-traffic.js";

describe("cluster safety: etcd cut", { timeout: 110_000 }, () => {
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
      const again = await publishThroughFailures(cluster, "cut-q", "d-", 1000, Infinity, async () => undefined, () => false, 60_000);
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
