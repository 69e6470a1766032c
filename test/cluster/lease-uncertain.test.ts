// The lease between certain and expired (src/cluster/etcd-session.ts, docs/CLUSTERING.md "The
// confirm rule"): a node whose event loop stalled past TTL − 1 s is not sure its lease lives, so a
// leader holds its confirms, but it is not deposed until the lease has certainly expired — the
// next renewal etcd accepts makes it certain again. Before, a one-second stall on a busy machine
// (a large recovery at boot) cost the leadership although etcd never let the lease expire.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EtcdSession } from "../../src/cluster/etcd-session.js";
import { ReplicationLeader } from "../../src/cluster/replication-leader.js";
import { createLogger } from "../../src/logging/logger.js";
import { eventually } from "../helpers/wait.js";
import { TestCluster } from "./cluster-fixture.js";

/** Holds the event loop, as a long synchronous recovery does. */
function stall(until: number): void {
  while (performance.now() < until) {
    // busy: no timer, no socket is served
  }
}

describe("a lease renewed late", { timeout: 60_000 }, () => {
  const logger = createLogger("silent");

  it("is uncertain, not lost, after a stall shorter than its TTL, and certain again on the next renewal", async () => {
    const etcd = new TestCluster(0);
    after(() => etcd.close());
    await etcd.startEtcd();
    const live = new EtcdSession([etcd.etcdUrl], 3, logger);
    try {
      let lost = 0;
      live.onLost = () => lost++;
      const granted = performance.now();
      await live.grant();
      assert.ok(live.leaseValid && !live.leaseExpired);
      // 2.4 s after the grant was sent: past TTL − 1 s (no longer certain), short of the TTL.
      stall(granted + 2400);
      assert.equal(live.leaseValid, false, "past TTL − 1 s without a renewal the lease is not certain");
      assert.equal(live.leaseExpired, false, "nor has it expired: etcd keeps it for the whole TTL");
      await eventually(() => live.leaseValid, 5000, "the renewal that follows the stall");
      assert.equal(lost, 0);
      // A stall longer than the TTL: expired as far as this node can know.
      stall(performance.now() + 3200);
      assert.equal(live.leaseExpired, true);
    } finally {
      await live.close();
    }
    assert.equal(live.leaseExpired, false, "a closed session holds no lease");
  });

  it("makes a leader hold its confirms while uncertain, confirm once certain again, and step down only when expired", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-lease-uncertain-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const lease = { valid: false, expired: false };
    const deposed: string[] = [];
    const leader = new ReplicationLeader(dir, Buffer.alloc(32, 1), { writeInSync: async () => true, minInSync: () => 0, leaseValid: () => lease.valid, leaseExpired: () => lease.expired, deposed: (why) => deposed.push(why), ackTimeoutMs: 400 }, logger);
    try {
      let confirmed: boolean | null = null;
      void leader.replicated(1).then((ok) => (confirmed = ok));
      // The leader's tick runs every 100 ms: three ticks while uncertain.
      await new Promise((r) => setTimeout(r, 350));
      assert.equal(confirmed, null, "no confirm while the lease is uncertain");
      assert.deepEqual(deposed, [], "an uncertain lease does not depose");
      lease.valid = true;
      await eventually(() => confirmed === true, 2000, "the held confirm");
      lease.valid = false;
      lease.expired = true;
      await eventually(() => deposed.length > 0, 2000, "the leader to step down");
      assert.deepEqual(deposed.slice(0, 1), ["etcd lease not renewed in time"]);
    } finally {
      leader.fence();
    }
  });
});
