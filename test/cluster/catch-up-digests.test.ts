// Catch-up without reading everything (segment-digests.ts): a follower returning to a store of
// sealed segments is compared by the digests both sides kept as they wrote, not by hashing the
// files; a sidecar that no longer matches its file (stale digest, or the file's size changed) is
// never trusted, and the copy still ends byte for byte equal to the leader's.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { suiteCluster, type NodeInfo } from "./cluster-fixture.js";
import { drainQueue, ids, publishThroughFailures } from "./cluster-traffic.js";
import { sameCopies } from "./store-copies.js";
import { eventually } from "../helpers/wait.js";


/** The leader's catch-up comparisons for `follower`, oldest first. */
function compares(leader: NodeInfo, follower: NodeInfo): Array<{ hashedBytes: number; trustedSealedSegments: number }> {
  const lines = leader.log.split("\n").filter((l) => l.includes('"msg":"cluster: catch-up compared"') && l.includes(`"follower":"${follower.name}"`));
  return lines.map((l) => JSON.parse(l) as { hashedBytes: number; trustedSealedSegments: number });
}

const sidecars = (n: NodeInfo): string[] => readdirSync(join(n.dataDir, "messages")).filter((f) => f.endsWith(".seg.sha256")).sort();

describe("catch-up by segment digests", { timeout: 110_000 }, () => {
  const { cluster, pass } = suiteCluster(3, ["--msg-store-file-size-limit", "65536"]);

  it("trusts sealed segments by their digests, and never a digest that no longer matches its file", async (t) => {
    const leader = await cluster.waitForLeader();
    const f = cluster.nodes.find((n) => n !== leader)!;
    // ~600 KB of records in 64 KB segments: several sealed segments on every node.
    const first = await publishThroughFailures(cluster, "digest-q", `a-${"x".repeat(150)}-`, 3000, Infinity, async () => undefined, () => false, 60_000, leader);
    await eventually(() => sidecars(f).length >= 4, 15_000, "the follower's sidecars of its sealed segments");
    assert.ok(sidecars(leader).length >= 4, "the leader's sidecars");
    await cluster.kill(f);
    const second = await publishThroughFailures(cluster, "digest-q", "b-", 500, Infinity, async () => undefined, () => false, 60_000, leader);
    const before = compares(leader, f).length;
    cluster.startNode(f);
    // The leader may still list the killed follower in sync: wait for its comparison of the returning copy.
    await eventually(() => compares(leader, f).length > before, 40_000, "the leader to compare the returning follower's copy");
    await cluster.waitForInSync(3, 40_000);
    const trusted = compares(leader, f).at(-1) ?? null;
    t.diagnostic(`catch-up of a returning follower: ${JSON.stringify(trusted)}`);
    assert.ok(trusted !== null && trusted.trustedSealedSegments >= 4, `sealed segments trusted by digest: ${JSON.stringify(trusted)}`);
    await sameCopies(leader, f);

    // A stale sidecar (right size, wrong digest) and a sealed segment cut short: both resent.
    await cluster.kill(f);
    const again = compares(leader, f).length;
    const [one, two] = sidecars(f);
    const stale = JSON.parse(readFileSync(join(f.dataDir, "messages", one!), "utf8")) as { size: number; sha256: string };
    writeFileSync(join(f.dataDir, "messages", one!), JSON.stringify({ size: stale.size, sha256: "0".repeat(64) }));
    const cutSize = (JSON.parse(readFileSync(join(f.dataDir, "messages", two!), "utf8")) as { size: number }).size;
    truncateSync(join(f.dataDir, "messages", two!.replace(/\.sha256$/, "")), cutSize - 10);
    cluster.startNode(f);
    await eventually(() => compares(leader, f).length > again, 40_000, "the leader to compare the damaged copy");
    await cluster.waitForInSync(3, 40_000);
    await sameCopies(leader, f);

    const expected = new Set([...ids(`a-${"x".repeat(150)}-`, first.confirmed), ...ids("b-", second.confirmed)]);
    const seen = await drainQueue(cluster, "digest-q", expected, 30_000);
    assert.deepEqual([...expected].filter((e) => !seen.has(e)), []);
    pass();
  });
});
