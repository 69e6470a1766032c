// Shovels in a cluster run where the broker runs — on the leader only — and move with
// leadership: the shovel parameter is replicated with the definitions, so after the leader is
// killed the new leader starts the shovel from them and it moves messages again.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { suiteCluster, type NodeInfo } from "../cluster/cluster-fixture.js";
import { eventually } from "../helpers/wait.js";

const auth = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}`, "content-type": "application/json" };

async function shovels(n: NodeInfo): Promise<Array<Record<string, unknown>> | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${n.httpPort}/api/shovels`, { headers: auth });
    return res.status === 200 ? ((await res.json()) as Array<Record<string, unknown>>) : null;
  } catch {
    return null;
  }
}

async function moved(url: string, n: number, tag: string): Promise<void> {
  const conn = await amqp.connect(url);
  const ch = await conn.createConfirmChannel();
  await ch.assertQueue("ha-in", { durable: true });
  for (let i = 0; i < n; i++) ch.sendToQueue("ha-in", Buffer.from(`${tag}-${i}`), { persistent: true });
  await ch.waitForConfirms();
  const seen = new Set<string>();
  await eventually(async () => {
    for (;;) {
      const m = await ch.get("ha-out", { noAck: true });
      if (!m) break;
      seen.add(m.content.toString());
    }
    return Array.from({ length: n }, (_, i) => `${tag}-${i}`).every((b) => seen.has(b));
  }, 40_000, `the ${tag} messages moved`);
  await conn.close();
}

describe("shovels across a leader failover", { timeout: 150_000 }, () => {
  const { cluster, pass } = suiteCluster();

  it("run on the leader, and on the next leader after a kill", async () => {
    const leader = await cluster.waitForLeader();
    const put = await fetch(`http://127.0.0.1:${leader.httpPort}/api/parameters/shovel/%2f/ha`, {
      method: "PUT",
      headers: auth,
      body: JSON.stringify({ value: { "src-uri": "amqp://", "src-queue": "ha-in", "dest-uri": "amqp://", "dest-queue": "ha-out" } }),
    });
    assert.equal(put.status, 201);
    await eventually(async () => (await shovels(leader))?.[0]?.["state"] === "running", 30_000, "running on the leader");
    await moved(cluster.url(leader), 10, "before");

    await cluster.kill(leader);
    const next = await cluster.waitForLeader(leader);
    await eventually(async () => (await shovels(next))?.some((s) => s["name"] === "ha" && s["state"] === "running") ?? false, 60_000, "running on the new leader");
    await moved(cluster.url(next), 10, "after");
    pass();
  });
});
