// Chaos case 6 (issue 23): two of three nodes are down. The remaining node, the leader, accepts
// publishes but confirms none (it cannot reach --min-in-sync-replicas followers); once both
// return, the waiting publishes are confirmed, and every confirmed message is there.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { drainQueue, ids, publishThroughFailures, withCluster } from "./cluster-traffic.js";
import { chaosFigures } from "./chaos-report.js";
import { eventually } from "../helpers/wait.js";

describe("chaos: two of three nodes down", { timeout: 115_000 }, () => {
  it("confirms nothing while alone, then everything once both return", async (t) => {
    await withCluster(async (cluster) => {
      const leader = await cluster.waitForLeader();
      const first = await publishThroughFailures(cluster, "chaos-two-q", "a-", 2000, Infinity, async () => undefined, () => false, 30_000, leader);
      const [f1, f2] = cluster.nodes.filter((n) => n !== leader);
      await cluster.kill(f1!);
      await cluster.kill(f2!);
      // One publisher on the lone leader: its publishes wait for confirms.
      const conn = await amqp.connect(cluster.url(leader));
      conn.on("error", () => undefined);
      const ch = await conn.createConfirmChannel();
      ch.on("error", () => undefined);
      const waiting = new Set<number>();
      const confirmed = new Set<number>();
      for (let i = 0; i < 200; i++) {
        waiting.add(i);
        ch.publish("", "chaos-two-q", Buffer.from(`w-${i}`), { persistent: true }, (err: unknown) => {
          if (!err) confirmed.add(i);
        });
      }
      // Three lease times alone: no confirm may come (a bounded hold of the fault itself).
      await new Promise((r) => setTimeout(r, 3 * cluster.leaseTtl * 1000));
      assert.equal(confirmed.size, 0, "a publish was confirmed with no follower holding it");
      const backAt = Date.now();
      cluster.startNode(f1!);
      cluster.startNode(f2!);
      await eventually(() => confirmed.size === waiting.size, 60_000, "the waiting publishes confirmed once the followers are back");
      const serveAgainMs = Date.now() - backAt;
      await conn.close().catch(() => undefined);
      await cluster.waitForInSync(3, 30_000);
      const expected = new Set([...ids("a-", first.confirmed), ...ids("w-", confirmed)]);
      const counts = { duplicates: 0 };
      const seen = await drainQueue(cluster, "chaos-two-q", expected, 30_000, counts);
      const f = chaosFigures(t, "6 two of three down", expected, seen, counts.duplicates, serveAgainMs, { confirmsWhileAlone: 0 });
      assert.equal(f.lost, 0);
    }, { leaseTtl: 2 });
  });
});
