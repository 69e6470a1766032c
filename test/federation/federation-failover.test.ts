// Federation in a cluster runs where the broker runs — on the leader only — and moves with
// leadership: the upstream parameter and the policy are replicated with the definitions, so after
// the leader is killed the new leader starts the link from them, and what the upstream queue
// collected meanwhile arrives.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { suiteCluster, type NodeInfo } from "../cluster/cluster-fixture.js";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { eventually } from "../helpers/wait.js";

const auth = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}`, "content-type": "application/json" };

async function links(n: NodeInfo): Promise<Array<Record<string, unknown>> | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${n.httpPort}/api/federation-links`, { headers: auth });
    return res.status === 200 ? ((await res.json()) as Array<Record<string, unknown>>) : null;
  } catch {
    return null;
  }
}

async function put(n: NodeInfo, path: string, body: unknown): Promise<number> {
  return (await fetch(`http://127.0.0.1:${n.httpPort}${path}`, { method: "PUT", headers: auth, body: JSON.stringify(body) })).status;
}

async function publish(up: TestBroker, tag: string, n: number): Promise<void> {
  const conn = await amqp.connect(up.amqpUrl);
  const ch = await conn.createConfirmChannel();
  for (let i = 0; i < n; i++) ch.publish("fed.ha", "k", Buffer.from(`${tag}-${i}`), { persistent: true });
  await ch.waitForConfirms();
  await conn.close();
}

async function arrived(url: string, want: string[]): Promise<void> {
  const conn = await amqp.connect(url);
  const ch = await conn.createChannel();
  const seen = new Set<string>();
  await eventually(async () => {
    for (;;) {
      const m = await ch.get("fed.ha.q", { noAck: true });
      if (!m) break;
      seen.add(m.content.toString());
    }
    return want.every((b) => seen.has(b));
  }, 30_000, "the federated messages");
  await conn.close();
}

describe("federation across a leader failover", { timeout: 110_000 }, () => {
  const { cluster, pass } = suiteCluster();
  let up: TestBroker;
  before(async () => {
    up = await startTestBroker({ clusterName: "ha-upstream" });
  });
  after(async () => {
    await up?.close();
  });

  it("runs the link on the leader, and on the next leader after a kill", async () => {
    const leader = await cluster.waitForLeader();
    const conn = await amqp.connect(cluster.url(leader));
    const ch = await conn.createChannel();
    await ch.assertExchange("fed.ha", "direct", { durable: true });
    await ch.assertQueue("fed.ha.q", { durable: true, arguments: { "x-queue-type": "classic" } });
    await ch.bindQueue("fed.ha.q", "fed.ha", "k");
    await conn.close();
    assert.equal(await put(leader, "/api/parameters/federation-upstream/%2f/origin", { value: { uri: up.amqpUrl, "reconnect-delay": 1 } }), 201);
    // The policy applies to exchanges only: the durable queue is not federated itself.
    assert.equal(await put(leader, "/api/policies/%2f/fed", { pattern: "^fed\\.ha$", "apply-to": "exchanges", definition: { "federation-upstream": "origin" } }), 201);
    await eventually(async () => (await links(leader))?.[0]?.["status"] === "running", 15_000, "the link running on the leader");
    await eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${up.httpPort}/api/exchanges/%2f/fed.ha/bindings/source`, { headers: auth });
      return ((await res.json()) as unknown[]).length === 1;
    }, 10_000, "the upstream binding");
    const before10 = Array.from({ length: 10 }, (_, i) => `before-${i}`);
    await publish(up, "before", 10);
    await arrived(cluster.url(leader), before10);

    await cluster.kill(leader);
    // While no leader runs the link, the upstream queue collects what is published.
    await publish(up, "between", 10);
    const next = await cluster.waitForLeader(leader);
    await eventually(async () => (await links(next))?.some((l) => l["status"] === "running") ?? false, 30_000, "the link running on the new leader");
    await publish(up, "after", 10);
    await arrived(cluster.url(next), [...Array.from({ length: 10 }, (_, i) => `between-${i}`), ...Array.from({ length: 10 }, (_, i) => `after-${i}`)]);
    pass();
  });
});
