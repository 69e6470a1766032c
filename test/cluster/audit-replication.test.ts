// The audit trail in a three-node cluster on a real etcd: entries written by the leader reach
// every follower's disk (live, and by the full sync of a follower that was down), and after the
// leader is killed the new leader serves the same trail and continues its ids.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { TestCluster, type NodeInfo } from "./cluster-fixture.js";
import { eventually } from "../helpers/wait.js";

const AUTH = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}`, "content-type": "application/json" };

function auditText(n: NodeInfo): string {
  const dir = join(n.dataDir, "audit");
  return existsSync(dir) ? readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8")).join("") : "";
}

async function call(n: NodeInfo, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const r = await fetch(`http://127.0.0.1:${n.httpPort}${path}`, { method, headers: AUTH, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

describe("audit trail in a cluster", { timeout: 120_000 }, () => {
  const cluster = new TestCluster(3);
  let passed = false;
  before(() => cluster.start());
  after(async () => {
    if (!passed) console.error(cluster.logs());
    await cluster.close();
  });

  it("reaches the followers, survives a follower's full sync and the leader's failover", async () => {
    await cluster.waitForInSync(3);
    const leader = await cluster.waitForLeader();
    const [f1, f2] = cluster.nodes.filter((n) => n !== leader) as [NodeInfo, NodeInfo];
    assert.equal((await call(leader, "PUT", "/api/users/audit-live", { password: "pw", tags: "" })).status, 201);
    for (const f of [f1, f2]) await eventually(() => auditText(f).includes('"audit-live"'), 15_000, `the live entry on ${f.name}`);

    // A follower that was down gets what it missed by the full sync.
    await cluster.kill(f1);
    assert.equal((await call(leader, "PUT", "/api/vhosts/audit-missed")).status, 201);
    cluster.startNode(f1);
    await cluster.waitForInSync(3, 60_000);
    await eventually(() => auditText(f1).includes('"audit-missed"'), 15_000, `the missed entry on ${f1.name}`);

    const before = (await call(leader, "GET", "/api/coney/audit")).json as Array<{ id: number; name: string }>;
    await eventually(() => [f1, f2].every((f) => auditText(f).split("\n").filter(Boolean).length === before.length), 15_000, "every entry on both followers");
    await cluster.kill(leader);
    const next = await cluster.waitForLeader(leader, 60_000);
    let after: Array<{ id: number; name: string }> = [];
    await eventually(async () => {
      const r = await call(next, "GET", "/api/coney/audit").catch(() => null);
      if (r?.status !== 200) return false;
      after = r.json as typeof after;
      return true;
    }, 30_000, "the new leader's audit trail");
    assert.deepEqual(after.map((e) => [e.id, e.name]), before.map((e) => [e.id, e.name]));
    assert.equal((await call(next, "PUT", "/api/users/audit-after", { password: "pw", tags: "" })).status, 201);
    const [newest] = (await call(next, "GET", "/api/coney/audit")).json as Array<{ id: number; name: string; node: string }>;
    assert.deepEqual([newest!.id, newest!.name, newest!.node], [before[0]!.id + 1, "audit-after", next.name]);
    passed = true;
  });
});
