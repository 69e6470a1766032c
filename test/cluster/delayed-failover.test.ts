// Delayed messages survive a leader failover: persistent messages held by a durable
// x-delayed-message exchange are replicated with the message store, so the new leader holds them
// (messages_delayed) and routes each when due, never early.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { suiteCluster, type NodeInfo } from "./cluster-fixture.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";

async function messagesDelayed(n: NodeInfo, exchange: string): Promise<number | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${n.httpPort}/api/exchanges/%2F/${exchange}`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } });
    if (res.status !== 200) return null;
    return ((await res.json()) as { messages_delayed?: number }).messages_delayed ?? null;
  } catch {
    return null;
  }
}

describe("delayed messages across a leader failover", { timeout: 110_000 }, () => {
  const { cluster, pass } = suiteCluster();

  it("the new leader holds the old leader's confirmed delayed messages and routes them when due", async () => {
    const leader = await cluster.waitForLeader();
    const conn = await amqp.connect(cluster.url(leader));
    const ch = await conn.createConfirmChannel();
    await ch.assertExchange("dx-ha", "x-delayed-message", { durable: true, arguments: { "x-delayed-type": "direct" } });
    await ch.assertQueue("dx-ha.q", { durable: true });
    await ch.bindQueue("dx-ha.q", "dx-ha", "soon");
    await ch.bindQueue("dx-ha.q", "dx-ha", "later");
    const dueAt = new Map<string, number>();
    for (let i = 0; i < 20; i++) {
      // Due a few seconds after the kill (elections take about a second here); the "later" ones
      // are still held when the test looks at the new leader.
      dueAt.set(`soon-${i}`, Date.now() + 6000 + i * 50);
      ch.publish("dx-ha", "soon", Buffer.from(`soon-${i}`), { persistent: true, headers: { "x-delay": 6000 + i * 50 } });
      ch.publish("dx-ha", "later", Buffer.from(`later-${i}`), { persistent: true, headers: { "x-delay": 600_000 } });
    }
    await ch.waitForConfirms();
    await conn.close().catch(() => undefined);

    await cluster.kill(leader);
    const next = await cluster.waitForLeader(leader);
    await eventually(async () => (await messagesDelayed(next, "dx-ha")) !== null, 20_000, "the new leader's API");
    const c2 = await amqp.connect(cluster.url(next));
    const ch2 = await c2.createChannel();
    const got = collector<{ body: string; at: number }>(20);
    await ch2.consume("dx-ha.q", (m) => m && got.push({ body: m.content.toString(), at: Date.now() }), { noAck: true });
    const arrived = await withTimeout(got.done, 40_000, "the 20 due messages on the new leader");
    for (const a of arrived) {
      assert.ok(a.body.startsWith("soon-"), `${a.body} is not due yet`);
      assert.ok(a.at >= dueAt.get(a.body)!, `${a.body} arrived ${dueAt.get(a.body)! - a.at} ms early`);
    }
    assert.equal(new Set(arrived.map((a) => a.body)).size, 20, "each due message once");
    assert.equal(await messagesDelayed(next, "dx-ha"), 20, "the 20 later ones are still held");
    await c2.close();
    pass();
  });
});
