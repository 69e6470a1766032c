// Chaos case 1 (issue 23): the leader is SIGSTOPped for 4 lease TTLs while one publisher writes
// through it and one through a follower. After SIGCONT exactly one node leads, the old leader
// confirmed nothing once its lease had run out, and every confirmed message is there.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { drainQueue, ids, publishThroughFailures, withCluster } from "./cluster-traffic.js";
import { chaosFigures } from "./chaos-report.js";

describe("chaos: leader stopped for 4 lease TTLs", { timeout: 110_000 }, () => {
  it("elects another leader; the stopped one confirms nothing after its lease and rejoins", async (t) => {
    await withCluster(async (cluster) => {
      const ttlMs = cluster.leaseTtl * 1000;
      const leader = await cluster.waitForLeader();
      // Publisher A: one connection straight to the leader, never reconnecting; every confirm's time kept.
      const conn = await amqp.connect(cluster.url(leader));
      let closedA = false;
      conn.on("error", () => undefined);
      conn.on("close", () => (closedA = true));
      const ch = await conn.createConfirmChannel();
      ch.on("error", () => undefined);
      await ch.assertQueue("chaos-stop-q", { durable: true });
      const confirmedA = new Set<number>();
      const confirmTimesA: number[] = [];
      let stopAt = 0;
      let contAt = 0;
      let sent = 0;
      const pumpA = setInterval(() => {
        for (let k = 0; k < 50 && !closedA; k++) {
          const id = sent++;
          try {
            ch.publish("", "chaos-stop-q", Buffer.from(`a-${id}`), { persistent: true }, (err: unknown) => {
              if (err) return;
              confirmedA.add(id);
              confirmTimesA.push(Date.now());
            });
          } catch {
            return;
          }
        }
      }, 20);
      // Publisher B: through a follower (its proxy to the leader), then reconnecting through any node.
      let faultOver = false;
      const follower = cluster.nodes.find((n) => n !== leader)!;
      const runB = publishThroughFailures(cluster, "chaos-stop-q", "b-", 1_000_000, Infinity, async () => undefined, () => faultOver && Date.now() > contAt + 3000, 90_000, follower);
      await new Promise((r) => setTimeout(r, 1500));
      stopAt = Date.now();
      cluster.signal(leader.proc, "SIGSTOP");
      // Held for 4 TTLs: bounded by design, the fault itself.
      await new Promise((r) => setTimeout(r, 4 * ttlMs));
      const during = await cluster.waitForLeader(leader, 20_000);
      assert.notEqual(during.name, leader.name, "another node leads while the old one is stopped");
      contAt = Date.now();
      cluster.signal(leader.proc, "SIGCONT");
      faultOver = true;
      const b = await runB;
      clearInterval(pumpA);
      await conn.close().catch(() => undefined);
      // A confirm decided before the stop may still leave the old leader's buffer right after
      // SIGCONT; none may come later, and none for a lease that had run out.
      const late = confirmTimesA.filter((at) => at > contAt + 500);
      assert.deepEqual(late, [], "the old leader confirmed after its lease ran out");
      // Exactly one node leads once the old leader is back.
      const nodes = await cluster.waitForInSync(3, 30_000);
      assert.equal(nodes.filter((e) => e.cluster_leader).length, 1);
      assert.ok(cluster.logTimes(leader, "cluster: leadership lost; fencing this node").length > 0, "the old leader fenced itself");
      const expected = new Set([...ids("a-", confirmedA), ...ids("b-", b.confirmed)]);
      const counts = { duplicates: 0 };
      const seen = await drainQueue(cluster, "chaos-stop-q", expected, 30_000, counts);
      const firstAfter = b.confirmTimes.find((at) => at > stopAt + ttlMs);
      const f = chaosFigures(t, "1 leader SIGSTOP 4 TTLs", expected, seen, counts.duplicates, firstAfter === undefined ? null : firstAfter - stopAt, {
        confirmsAfterCont: confirmTimesA.filter((at) => at > contAt).length,
      });
      assert.equal(f.lost, 0);
    }, { leaseTtl: 2 });
  });
});
