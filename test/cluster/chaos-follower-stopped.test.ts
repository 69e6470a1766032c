// Chaos case 15 (docs/CLUSTERING.md "Falling behind"), the replicated cluster's side of case 14:
// three real nodes on a real etcd (one leader), a publisher with confirms through the leader; one
// follower, listed in sync, SIGSTOPped under the load — its socket open and silent, as behind a cut
// network. Asserted: the leader's confirms never stop for 1 s or more (the longest gap between
// confirms, from before the stop until after the follower is back in sync), the stopped follower
// is out of the in-sync set while stopped and back in it after SIGCONT; then the leader is killed
// -9 and every confirmed message is read back through the new leader (0 lost). Every step waits
// for an event (a confirm count, /api/nodes); the stop lasts at least STOP_MS.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";
import type { NodeInfo, TestCluster } from "./cluster-fixture.js";
import { chaosFigures } from "./chaos-report.js";
import { Publisher, longestGap } from "./chaos-load.js";
import { drainQueue, withCluster } from "./cluster-traffic.js";

const QUEUE = "chaos-follower-stopped";
const PHASE_CONFIRMS = 100;
/** Longer than the 1 s bound: a leader that waited for the stopped follower would fail it. */
const STOP_MS = 1500;
/** The wait fails past this: well inside the 8 s lease (renewed every third of it), so the stopped follower stays a member. */
const STOP_MAX_MS = 4000;

/** Whether the leader's /api/nodes lists `n` in sync. */
async function inSync(cluster: TestCluster, leader: NodeInfo, n: NodeInfo): Promise<boolean | undefined> {
  return (await cluster.nodesVia(leader))?.find((e) => e.name === n.name)?.in_sync;
}

describe("chaos: a follower stopped (SIGSTOP) under load", { timeout: 110_000 }, () => {
  it("the leader keeps confirming without it, it rejoins, and a failover after loses nothing", async (t) => {
    await withCluster(async (cluster) => {
      const leader = await cluster.waitForLeader();
      const stopped = cluster.nodes.find((n) => n !== leader)!;
      const conn = await amqp.connect(cluster.url(leader));
      conn.on("error", () => undefined);
      const ch = await conn.createChannel();
      await ch.assertQueue(QUEUE, { durable: true });
      await ch.close();
      const publisher = new Publisher("p", conn, 8);
      await publisher.start([QUEUE]);
      const after = (at: number): number => publisher.confirmsAfter(QUEUE, at);
      await eventually(() => after(0) >= PHASE_CONFIRMS, 30_000, "load before the stop");
      await cluster.waitForInSync(3, 30_000);
      const watchFrom = Date.now();
      await eventually(() => after(watchFrom) >= PHASE_CONFIRMS, 30_000, "load with all three in sync");

      const stoppedAt = Date.now();
      cluster.signal(stopped.proc, "SIGSTOP");
      let stoppedMs: number;
      try {
        await eventually(async () => Date.now() - stoppedAt >= STOP_MS && after(stoppedAt) >= PHASE_CONFIRMS && (await inSync(cluster, leader, stopped)) === false, STOP_MAX_MS, "the leader confirming without the stopped follower, out of the in-sync set");
      } finally {
        cluster.signal(stopped.proc, "SIGCONT");
        stoppedMs = Date.now() - stoppedAt;
      }
      const resumedAt = Date.now();
      await eventually(async () => (await inSync(cluster, leader, stopped)) === true, 30_000, "the follower in sync again");
      const rejoinedMs = Date.now() - resumedAt;
      await eventually(() => after(resumedAt + rejoinedMs) >= PHASE_CONFIRMS, 30_000, "load after it rejoined");
      const watchTo = Date.now();
      await withTimeout(publisher.stop(), 30_000, "the publisher's last confirms");
      const gapMs = longestGap(publisher, [QUEUE], watchFrom, watchTo);
      await conn.close().catch(() => undefined);

      // Quiet: every node in sync; then the leader dies and a follower takes over with everything.
      await cluster.waitForInSync(3, 30_000);
      const killedAt = Date.now();
      await cluster.kill(leader);
      await cluster.waitForLeader(leader, 30_000);
      const failoverMs = Date.now() - killedAt;
      const counts = { duplicates: 0 };
      const seen = await drainQueue(cluster, QUEUE, publisher.confirmed, 30_000, counts);
      const f = chaosFigures(t, "15 follower SIGSTOP (replicated, 3 nodes)", publisher.confirmed, seen, counts.duplicates, failoverMs, { longestGapMs: gapMs, stoppedMs, rejoinedAfterMs: rejoinedMs });
      assert.equal(f.lost, 0, "no confirmed message lost");
      assert.ok(stoppedMs >= STOP_MS, `the follower was stopped ${stoppedMs} ms`);
      assert.ok(gapMs < 1000, `the leader confirmed with no gap over 1 s while a follower was stopped (longest ${gapMs} ms)`);
    }, { leaseTtl: 8 });
  });
});
