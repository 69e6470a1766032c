// Safety of leases: a leader cut from etcd stops confirming within the lease time, and two nodes
// never confirm at once. Also chaos case 3 (issue 23): etcd is stopped for 4 lease TTLs under load,
// and once it answers again the cluster serves by itself.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { drainQueue, ids, publishThroughFailures, withCluster } from "./cluster-traffic.js";
import { chaosFigures } from "./chaos-report.js";

describe("cluster safety: etcd cut", { timeout: 110_000 }, () => {
  it("stops confirming within the lease time when etcd stops answering, and never has two nodes confirming", async (t) => {
    await withCluster(async (cluster) => {
      const leader = await cluster.waitForLeader();
      let stoppedAt = 0;
      const ttlMs = cluster.leaseTtl * 1000;
      // Publish, stop etcd after 500 confirms, and keep trying to publish for four lease times.
      const cut = await publishThroughFailures(
        cluster,
        "cut-q",
        "c-",
        100_000,
        500,
        async () => {
          await cluster.stopped(cluster.etcd);
          stoppedAt = Date.now();
        },
        () => stoppedAt > 0 && Date.now() > stoppedAt + ttlMs * 4,
      );
      const late = cut.confirmTimes.filter((t) => t > stoppedAt);
      const last = late.length > 0 ? Math.max(...late) : stoppedAt;
      assert.ok(last - stoppedAt < ttlMs, `a confirm ${last - stoppedAt} ms after etcd stopped (lease ${ttlMs} ms)`);
      const contAt = Date.now();
      cluster.signal(cluster.etcd, "SIGCONT");
      // Once etcd answers again, one leader serves and confirms again, by itself.
      const again = await publishThroughFailures(cluster, "cut-q", "d-", 1000, Infinity, async () => undefined, () => false, 60_000);
      const serveAgainMs = again.confirmTimes.length > 0 ? Math.min(...again.confirmTimes) - contAt : null;
      t.diagnostic(`last confirm ${last - stoppedAt} ms after etcd stopped (lease ${ttlMs} ms); ${cut.confirmed.size} confirmed before`);
      // The old leader fenced itself before any other node was elected.
      const fencedAt = cluster.logTimes(leader, "cluster: leadership lost; fencing this node");
      assert.ok(fencedAt.length > 0, "the cut-off leader fenced itself");
      for (const n of cluster.nodes) {
        if (n === leader) continue;
        for (const t of cluster.logTimes(n, "cluster: elected leader")) assert.ok(t > fencedAt[0]!, `${n.name} elected while ${leader.name} still led`);
      }
      const expected = new Set([...ids("c-", cut.confirmed), ...ids("d-", again.confirmed)]);
      const counts = { duplicates: 0 };
      const seen = await drainQueue(cluster, "cut-q", expected, 60_000, counts);
      assert.deepEqual([...expected].filter((e) => !seen.has(e)), []);
      chaosFigures(t, "3 etcd SIGSTOP 4 TTLs under load", expected, seen, counts.duplicates, serveAgainMs, { lastConfirmAfterCutMs: last - stoppedAt });
    });
  });
});
