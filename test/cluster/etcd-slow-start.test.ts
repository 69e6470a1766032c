// A node's start against a slow etcd (src/cluster/etcd-session.ts atStart): etcd that does not
// answer for a while (stopped here with SIGSTOP, as a busy disk under its fsync holds it) fails a
// start step past its timeout; the step is tried again, logged, and the start goes on once etcd
// answers. CI saw a node die of it: "etcd: create the cluster secret timed out after 666 ms".
// A step that keeps failing still fails the start, after its attempts.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { EtcdSession, ClusterKeys } from "../../src/cluster/etcd-session.js";
import { clusterSecret } from "../../src/cluster/replication-auth.js";
import { createLogger } from "../../src/logging/logger.js";
import { TestCluster } from "./cluster-fixture.js";

describe("a node's start against an etcd that stalls", { timeout: 60_000 }, () => {
  it("tries the lease grant and the cluster secret again until etcd answers, saying so each time", async () => {
    const etcd = new TestCluster(0);
    after(() => etcd.close());
    await etcd.startEtcd();
    const lines: Array<{ msg: string; step?: string; attempt?: number }> = [];
    const logger = createLogger("info", (line) => lines.push(JSON.parse(line)));
    // TTL 2 s: each call may take max(500 ms, TTL / 3), the grant twice that.
    const session = new EtcdSession([etcd.etcdUrl], 2, logger);
    try {
      await etcd.stopped(etcd.etcd);
      const resumeAt = Date.now() + 2500;
      const resume = setTimeout(() => etcd.signal(etcd.etcd, "SIGCONT"), 2500);
      after(() => clearTimeout(resume));
      await session.atStart("lease grant", () => session.grant());
      assert.ok(Date.now() >= resumeAt, "granted only once etcd answered again");
      const secret = await session.atStart("cluster secret", () => clusterSecret(session, ClusterKeys.of("slow-start")));
      assert.equal(secret.length > 0, true);
      const retried = lines.filter((l) => l.msg === "cluster: an etcd step of the start failed; trying again");
      assert.ok(retried.length >= 1, "each failed try is logged");
      assert.ok(retried.every((l) => l.step === "lease grant"), "the step is named");
      assert.deepEqual(retried.map((l) => l.attempt), retried.map((_, i) => i + 1));
      assert.ok(session.leaseValid, "the lease granted after the stall is held");
    } finally {
      etcd.signal(etcd.etcd, "SIGCONT");
      await session.close();
    }
  });

  it("gives up after its attempts with the step's own error", async () => {
    const logger = createLogger("silent");
    // Nothing listens on port 9 (discard): every try fails at once.
    const session = new EtcdSession(["http://127.0.0.1:9"], 2, logger);
    let tries = 0;
    try {
      await assert.rejects(
        session.atStart("cluster secret", async () => {
          tries++;
          throw new Error(`etcd: create the cluster secret timed out (try ${tries})`);
        }, 3),
        /try 3/,
      );
      assert.equal(tries, 3);
    } finally {
      await session.close();
    }
  });
});
