// Prometheus on a cluster: every node answers its own Prometheus port, so a real Prometheus
// scraping all three finds each one up; exactly one reports coney_cluster_leader 1 and the broker's
// figures (counted once: followers have none); when the leader is killed, the new leader's port
// serves them.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { TestCluster } from "./cluster-fixture.js";
import { RunningPrometheus, type Series } from "../metrics/prometheus-tools.js";

const byInstance = (r: Series): Map<string, string> => new Map(r.map((s) => [s.metric["instance"]!, s.value[1]]));

describe("Prometheus scraping a cluster", { timeout: 100_000 }, () => {
  const cluster = new TestCluster(3, 3, [], true);
  const prometheus = new RunningPrometheus();
  let passed = false;
  before(async () => {
    await cluster.start();
    await cluster.waitForInSync(3);
    await prometheus.start(cluster.nodes.map((n) => `127.0.0.1:${n.metricsPort!}`));
  });
  after(async () => {
    if (!passed) console.error(cluster.logs());
    await prometheus.close();
    await cluster.close();
  });

  it("finds every node up, one leader with the broker's figures, and the figures on the next leader after a kill", async () => {
    const leader = await cluster.waitForLeader();
    const instance = (n: { metricsPort?: number }): string => `127.0.0.1:${n.metricsPort!}`;
    const conn = await amqp.connect(cluster.url(leader));
    try {
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("scraped", { durable: true });
      for (let i = 0; i < 5; i++) ch.sendToQueue("scraped", Buffer.from(`m${i}`), { persistent: true });
      await ch.waitForConfirms();
    } finally {
      await conn.close();
    }
    await prometheus.until('up{job="coney"}', "all three nodes up", (r) => r.length === 3 && r.every((s) => s.value[1] === "1"));
    const roles = byInstance(await prometheus.until("coney_cluster_leader", "one leader among three", (r) => r.length === 3 && r.filter((s) => s.value[1] === "1").length === 1));
    assert.equal(roles.get(instance(leader)), "1");
    await prometheus.until("coney_cluster_in_sync", "three in sync", (r) => r.length === 3 && r.every((s) => s.value[1] === "1"));
    // The broker's figures come from the leader alone, so a sum over the cluster counts them once.
    await prometheus.untilValue("sum(rabbitmq_queue_messages_ready)", "5");
    const identity = await prometheus.until("rabbitmq_identity_info", "three identities", (r) => r.length === 3);
    assert.deepEqual(identity.map((s) => s.metric["rabbitmq_node"]).sort(), cluster.nodes.map((n) => n.name).sort());
    assert.ok(identity.every((s) => s.metric["rabbitmq_cluster"] === "test"));

    // Failover: the killed node's target goes down, another node's port now serves the broker's figures.
    await cluster.kill(leader);
    const next = await cluster.waitForLeader(leader);
    await prometheus.until(`up{instance="${instance(leader)}"}`, "the killed leader down", (r) => r.length === 1 && r[0]!.value[1] === "0");
    await prometheus.until(`coney_cluster_leader{instance="${instance(next)}"}`, "the new leader says so", (r) => r.length === 1 && r[0]!.value[1] === "1");
    await prometheus.until(`rabbitmq_queue_messages_ready{instance="${instance(next)}"}`, "the queue's messages on the new leader", (r) => r.length === 1 && r[0]!.value[1] === "5");
    passed = true;
  });
});
