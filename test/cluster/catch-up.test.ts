// Incremental catch-up: a follower that restarts keeps the part of its copy that matches the
// leader's and receives only the rest; a returning old leader, whose copy may hold bytes nobody
// confirmed, ends byte for byte equal to the new leader's copy too. Checked on the files
// themselves, and by reading every confirmed message back.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { suiteCluster, type NodeInfo } from "./cluster-fixture.js";
import { drainQueue, ids, publishThroughFailures } from "./cluster-traffic.js";
import { sameCopies } from "./store-copies.js";
import { eventually } from "../helpers/wait.js";


/** The leader's last "snapshot sent" log entry for `follower`. */
function lastSnapshot(leader: NodeInfo, follower: NodeInfo): { sentBytes: number; keptBytes: number } | null {
  const lines = leader.log.split("\n").filter((l) => l.includes('"msg":"cluster: snapshot sent"') && l.includes(`"follower":"${follower.name}"`));
  return lines.length === 0 ? null : (JSON.parse(lines[lines.length - 1]!) as { sentBytes: number; keptBytes: number });
}

describe("incremental catch-up", { timeout: 110_000 }, () => {
  const { cluster, pass } = suiteCluster();

  it("sends a restarted follower only what it lacks, and a returning leader ends equal to the new one", async () => {
    const leader = await cluster.waitForLeader();
    const [f, other] = cluster.nodes.filter((n) => n !== leader) as [NodeInfo, NodeInfo];
    const first = await publishThroughFailures(cluster, "catch-up-q", "a-", 3000, Infinity, async () => undefined);
    await cluster.kill(f);
    const second = await publishThroughFailures(cluster, "catch-up-q", "b-", 500, Infinity, async () => undefined);
    // The leader's /api/nodes reads etcd every 200 ms: wait until it no longer lists f in sync.
    await eventually(async () => (await cluster.nodesVia(leader))?.find((e) => e.name === f.name)?.in_sync === false, 15_000, `${f.name} out of the in-sync set`);
    cluster.startNode(f);
    await cluster.waitForInSync(3, 60_000);
    const snap = lastSnapshot(leader, f);
    assert.ok(snap, "the leader logged the restarted follower's snapshot");
    assert.ok(snap.keptBytes > 0 && snap.sentBytes < snap.keptBytes, `kept ${snap.keptBytes} bytes, sent ${snap.sentBytes}`);
    await sameCopies(leader, f);
    await sameCopies(leader, other);

    // The leader dies; when it returns it follows the new leader and its copy is corrected.
    await cluster.kill(leader);
    const next = await cluster.waitForLeader(leader);
    cluster.startNode(leader);
    await cluster.waitForInSync(3, 60_000);
    await sameCopies(next, leader);
    const expected = new Set([...ids("a-", first.confirmed), ...ids("b-", second.confirmed)]);
    const seen = await drainQueue(cluster, "catch-up-q", expected, 30_000);
    assert.deepEqual([...expected].filter((e) => !seen.has(e)).slice(0, 10), []);
    pass();
  });
});
