// Forgetting a node for good: `coneyctl forget_cluster_node` (the real bin/coneyctl.js) against the
// leader removes a stopped node from the known nodes, so /api/nodes lists two and the default
// min-in-sync-replicas counts two nodes; a running node, an unknown one, a non-administrator and
// a single node are refused with RabbitMQ-shaped answers, and nothing changes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { suiteCluster, type NodeInfo } from "./cluster-fixture.js";
import { run } from "../cli/run-coneyctl.js";
import { startTestBroker } from "../helpers/broker.js";
import { eventually } from "../helpers/wait.js";

const GUEST = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` };

describe("forgetting a cluster node", { timeout: 100_000 }, () => {
  const { cluster, pass } = suiteCluster();

  it("forgets a stopped node, and refuses a running, an unknown, or a non-administrator's request", async () => {
    const leader = await cluster.waitForLeader();
    const [gone, stays] = cluster.nodes.filter((n) => n !== leader) as [NodeInfo, NodeInfo];
    const ctl = (...args: string[]) => run(["--port", String(leader.httpPort), ...args]);

    const running = await ctl("forget_cluster_node", stays.name);
    assert.equal(running.code, 69, running.stderr);
    assert.match(running.stderr, new RegExp(`Node ${stays.name} is running; stop it before forgetting it`));
    const unknown = await ctl("forget_cluster_node", "nobody@nowhere");
    assert.equal(unknown.code, 69);
    assert.match(unknown.stderr, /Node nobody@nowhere is not a member of the cluster/);

    await cluster.kill(gone);
    await eventually(async () => (await cluster.nodesVia(leader))?.find((e) => e.name === gone.name)?.running === false, 30_000, `${gone.name} to show as not running`);
    // Only administrators may forget.
    await fetch(`http://127.0.0.1:${leader.httpPort}/api/users/watcher`, { method: "PUT", headers: { ...GUEST, "content-type": "application/json" }, body: JSON.stringify({ password: "w", tags: "monitoring" }) });
    const monitor = await run(["--port", String(leader.httpPort), "--username", "watcher", "--password", "w", "forget_cluster_node", gone.name]);
    assert.equal(monitor.code, 69);
    assert.match(monitor.stderr, /Not administrator user/);

    const ok = await ctl("forget_cluster_node", gone.name);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, new RegExp(`Removing node ${gone.name} from the cluster`));
    const nodes = (await cluster.nodesVia(leader))!;
    assert.deepEqual(nodes.map((e) => e.name).sort(), [leader.name, stays.name].sort());

    // Two known nodes: the default min-in-sync-replicas is 1, which the remaining follower meets.
    const conn = await amqp.connect(cluster.url(leader));
    try {
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue("after-forget", { durable: true });
      for (let i = 0; i < 50; i++) ch.sendToQueue("after-forget", Buffer.from(`m${i}`), { persistent: true });
      await ch.waitForConfirms();
    } finally {
      await conn.close();
    }
    // A forgotten node that starts again simply joins again.
    cluster.startNode(gone);
    const back = await cluster.waitForInSync(3, 60_000);
    assert.ok(back.some((e) => e.name === gone.name && e.running));
    pass();
  });

  it("answers 400 on a single node, which has no cluster", async () => {
    const b = await startTestBroker();
    try {
      const r = await fetch(`http://127.0.0.1:${b.httpPort}/api/coney/cluster/nodes/x@y`, { method: "DELETE", headers: GUEST });
      assert.equal(r.status, 400);
      assert.match(((await r.json()) as { reason: string }).reason, /is not clustered: there is no node to forget/);
    } finally {
      await b.close();
    }
  });
});
