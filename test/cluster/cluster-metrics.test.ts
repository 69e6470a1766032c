// Prometheus on a cluster: every node answers its own Prometheus port, so a real Prometheus
// scraping all three finds each one up; exactly one reports coney_cluster_leader 1 and the broker's
// figures (counted once: followers have none); when the leader is killed, the new leader's port
// serves them. The leader's aggregate (/metrics/cluster) is its own figures (it is the whole broker),
// and `coneyctl cluster_status` through it names every node's version, the followers' as registered.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { TestCluster } from "./cluster-fixture.js";
import { RunningPrometheus, type Series } from "../metrics/prometheus-tools.js";
import { parseExposition } from "../metrics/exposition-parser.js";
import { run } from "../cli/run-coneyctl.js";

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

  it("the leader's /metrics/cluster has its /metrics figures; cluster_status through it lists every node's version", async () => {
    const leader = await cluster.waitForLeader();
    const figures = async (path: string): Promise<Map<string, number>> => {
      const out = new Map<string, number>();
      for (const f of parseExposition(await (await fetch(`http://127.0.0.1:${leader.metricsPort!}${path}`)).text())) for (const x of f.samples) out.set(`${x.name}{${Object.values(x.labels).join(",")}}`, x.value);
      return out;
    };
    const own = await figures("/metrics");
    const whole = await figures("/metrics/cluster");
    for (const name of ["rabbitmq_queues{}", "rabbitmq_queue_messages_ready{}", "rabbitmq_connections{}", "rabbitmq_global_messages_received_total{amqp091}"]) assert.equal(whole.get(name), own.get(name), name);
    assert.equal(whole.get("coney_cluster_nodes{reporting}"), 1);
    assert.equal(whole.get("coney_cluster_nodes{stale}"), 0);
    // A follower holds no broker figures: its aggregate is its node-only body, as its /metrics.
    const follower = cluster.nodes.find((n) => n.name !== leader.name)!;
    const res = await fetch(`http://127.0.0.1:${follower.metricsPort!}/metrics/cluster`);
    assert.equal(res.status, 200);
    const followerSeries = new Set(parseExposition(await res.text()).flatMap((f) => f.samples.map((x) => x.name)));
    assert.ok(followerSeries.has("coney_cluster_leader") && !followerSeries.has("rabbitmq_queues"), [...followerSeries].join(" "));
    const r = await run(["--port", String(leader.httpPort), "cluster_status", "--formatter", "json"]);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as { disk_nodes: string[]; versions: Record<string, { coney_version: string; node_version: string }> };
    assert.deepEqual(Object.keys(s.versions).sort(), cluster.nodes.map((n) => n.name).sort(), r.stdout);
    for (const v of Object.values(s.versions)) assert.equal(v.node_version, process.versions.node);
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
