// A spread cluster (`--cluster-mode spread`, preview): three real `node bin/coney.js` processes on a
// real etcd. Each node homes the queues declared through it (client-local) or the least loaded
// node's (min-masters / balanced); every node routes with the same definitions (followed through
// etcd) and reaches every queue over node links: amqplib clients publish with confirms to, and
// consume from, queues homed on other nodes. A node killed -9 stops only its own queues (nacks,
// consumer cancel notification, NOT_FOUND "home node … is down or inaccessible"); restarted on
// its data dir it serves them again with every confirmed message.
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Channel, ChannelModel, ConfirmChannel } from "amqplib";
import { eventually, withTimeout } from "../helpers/wait.js";
import { AUTH, queuesOf, spreadCluster } from "./spread-fixture.js";
import type { NodeInfo } from "./cluster-fixture.js";

async function nodesOf(n: NodeInfo): Promise<Array<{ name: string; running: boolean; os_pid?: string }>> {
  const r = await fetch(`http://127.0.0.1:${n.httpPort}/api/nodes`, { headers: AUTH, signal: AbortSignal.timeout(3000) });
  return r.ok ? ((await r.json()) as Array<{ name: string; running: boolean; os_pid?: string }>) : [];
}

/** Publishes `ids` as persistent messages with confirms; resolves once all are confirmed (rejects on a nack). */
async function publishConfirmed(ch: ConfirmChannel, queue: string, ids: number[], exchange = "", key = queue): Promise<void> {
  for (const id of ids) ch.publish(exchange, key, Buffer.from(String(id)), { persistent: true });
  await ch.waitForConfirms();
}

/** Takes `count` messages from `queue` with acks, in order. */
async function take(ch: Channel, queue: string, count: number): Promise<number[]> {
  const got: number[] = [];
  await ch.prefetch(10);
  await new Promise<void>((resolve, reject) => {
    let tag = "";
    ch.consume(queue, (m) => {
      if (m === null) return reject(new Error(`consumer of ${queue} cancelled`));
      // Past `count` (prefetch sent more before the cancel): left unacked, requeued when the channel closes.
      if (got.length === count) return;
      got.push(Number(m.content.toString()));
      ch.ack(m);
      if (got.length === count) void ch.cancel(tag).then(() => resolve(), reject);
    }).then((ok) => (tag = ok.consumerTag), reject);
  });
  return got;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

describe("a spread cluster: queues homed on different nodes, reached from every node", () => {
  const sc = spreadCluster({ leaseTtl: 5, protocols: false });
  const cluster = sc.cluster;
  /** The connections of the tests, in the order they were opened (conns[i] is node i's first). */
  const conns: ChannelModel[] = [];
  /** Printed as a SPREAD line (docs/CLUSTERING.md quotes it): how long a kill and a restart take to be seen. */
  const figures: Record<string, number> = {};
  const node = (i: number): NodeInfo => cluster.nodes[i]!;
  const connect = async (n: NodeInfo): Promise<ChannelModel> => {
    const c = await sc.connect(cluster.nodes.indexOf(n));
    conns.push(c);
    return c;
  };
  const serving = (n: NodeInfo, from = 0): Promise<void> => sc.serving(cluster.nodes.indexOf(n), from);

  sc.it("places each queue on the node its client declared it through, or the least loaded one (min-masters), and every node says so", async () => {
    for (let i = 0; i < 3; i++) {
      const ch = await (await connect(node(i))).createChannel();
      await ch.assertQueue(`sp-${i}`, { durable: true });
      await ch.assertQueue(`sp-${i}-watch`, { durable: true });
      await ch.close();
    }
    // `balanced` counts the homes the declaring node knows: wait until node0 has heard of the others' claims.
    await eventually(async () => (await queuesOf(node(0))).filter((q) => /^sp-\d/.test(q.name)).length === 6, 15_000, "node0 to know the six queues");
    const ch = await conns[0]!.createChannel();
    for (const b of ["sp-b0", "sp-b1", "sp-b2"]) await ch.assertQueue(b, { durable: true, arguments: { "x-queue-master-locator": "min-masters" } });
    await ch.close();
    const expected = new Map<string, string>();
    for (let i = 0; i < 3; i++) expected.set(`sp-${i}`, node(i).name).set(`sp-${i}-watch`, node(i).name);
    for (const n of cluster.nodes) {
      await eventually(async () => {
        const list = await queuesOf(n);
        return [...expected].every(([q, home]) => list.find((x) => x.name === q)?.node === home) && ["sp-b0", "sp-b1", "sp-b2"].every((b) => list.some((x) => x.name === b));
      }, 15_000, `every queue with its home in ${n.name}'s /api/queues`);
    }
    // Balanced over three equally loaded nodes: the three land on three different nodes, the same on every node's answer.
    const homes = await Promise.all(cluster.nodes.map(async (n) => (await queuesOf(n)).filter((x) => x.name.startsWith("sp-b")).map((x) => `${x.name}=${x.node}`).sort().join(",")));
    assert.equal(new Set(homes).size, 1, `every node names the same homes: ${homes.join(" | ")}`);
    const balanced = (await queuesOf(node(0))).filter((x) => x.name.startsWith("sp-b")).map((x) => x.node);
    assert.equal(new Set(balanced).size, 3, `min-masters spread the queues: ${balanced.join(", ")}`);
    // A policy's queue-master-locator (RabbitMQ's classic-queue key) places queues declared without arguments.
    const put = await fetch(`http://127.0.0.1:${node(0).httpPort}/api/policies/%2F/sp-spread`, { method: "PUT", headers: { ...AUTH, "content-type": "application/json" }, body: JSON.stringify({ pattern: "^sp-p", definition: { "queue-master-locator": "min-masters" }, "apply-to": "queues" }) });
    assert.ok(put.ok, `policy set: ${put.status}`);
    await eventually(async () => {
      const r = await fetch(`http://127.0.0.1:${node(1).httpPort}/api/policies/%2F/sp-spread`, { headers: AUTH });
      return r.ok && (await queuesOf(node(1))).filter((q) => q.name.startsWith("sp-")).length === 9;
    }, 15_000, "node1 to follow the policy and know the nine queues");
    const viaPolicy = await conns[1]!.createChannel();
    for (const p of ["sp-p0", "sp-p1", "sp-p2"]) await viaPolicy.assertQueue(p, { durable: true });
    await viaPolicy.close();
    await eventually(async () => (await queuesOf(node(1))).filter((x) => x.name.startsWith("sp-p")).length === 3, 10_000, "the policy-placed queues");
    const byPolicy = (await queuesOf(node(1))).filter((x) => x.name.startsWith("sp-p")).map((x) => x.node);
    assert.equal(new Set(byPolicy).size, 3, `the policy spread the queues: ${byPolicy.join(", ")}`);
    // Operators: every node's /api/nodes lists all three, running, each with its own process id.
    for (const n of cluster.nodes) {
      const list = await nodesOf(n);
      assert.deepEqual(list.map((e) => [e.name, e.running, e.os_pid]), cluster.nodes.map((x) => [x.name, true, String(x.proc!.pid)]), `${n.name}'s /api/nodes`);
    }
  });

  sc.it("a client on each node publishes with confirms to, and consumes from, queues homed on the other nodes", async () => {
    for (let i = 0; i < 3; i++) {
      const target = `sp-${(i + 1) % 3}`;
      const pub = await conns[i]!.createConfirmChannel();
      await publishConfirmed(pub, target, range(0, 100));
      await pub.close();
      // Consumed through the third node: neither the publisher's nor the home.
      const sub = await conns[(i + 2) % 3]!.createChannel();
      assert.deepEqual(await take(sub, target, 50), range(0, 50), `${target} in order through ${node((i + 2) % 3).name}`);
      await sub.close();
    }
    // Definitions made on one node route on another: an exchange and a binding made through node1, published to through node0.
    const admin = await conns[1]!.createChannel();
    await admin.assertExchange("sp-x", "direct", { durable: true });
    await admin.bindQueue("sp-2", "sp-x", "k");
    await admin.close();
    await eventually(async () => {
      const r = await fetch(`http://127.0.0.1:${node(0).httpPort}/api/exchanges/%2F/sp-x/bindings/source`, { headers: AUTH });
      return r.ok && ((await r.json()) as unknown[]).length === 1;
    }, 15_000, "node0 to follow the binding made on node1");
    const pub = await conns[0]!.createConfirmChannel();
    await publishConfirmed(pub, "sp-2", range(100, 110), "sp-x", "k");
    await pub.close();
    await eventually(async () => (await queuesOf(node(2))).find((q) => q.name === "sp-2")?.messages === 60, 10_000, "sp-2 holding 50 + 10 messages on its home");
  });

  sc.it("kill -9 of a node stops only its queues: nacks, consumer cancel notification, NOT_FOUND home node down; the others keep confirming", async () => {
    const watcher = await conns[0]!.createChannel();
    const cancelled = new Promise<void>((resolve) => void watcher.consume("sp-2-watch", (m) => m === null && resolve()));
    const killedAt = performance.now();
    await cluster.kill(node(2));
    await withTimeout(cancelled, 10_000, "the consumer of the dead node's queue to be cancelled");
    figures["kill_to_cancel_ms"] = Math.round(performance.now() - killedAt);
    const pub = await conns[0]!.createConfirmChannel();
    pub.on("error", () => {});
    // Homed on node0 itself and on node1: confirmed as before.
    await publishConfirmed(pub, "sp-0", range(200, 220));
    await publishConfirmed(pub, "sp-1", range(200, 220));
    // Homed on the dead node: nacked, never confirmed.
    const nacked = await new Promise<boolean>((resolve) => pub.publish("", "sp-2", Buffer.from("lost"), { persistent: true }, (err) => resolve(err !== null && err !== undefined)));
    assert.ok(nacked, "a publish to the dead node's queue is nacked");
    await publishConfirmed(pub, "sp-0", range(220, 230));
    await pub.close();
    await eventually(async () => (await nodesOf(node(0))).find((e) => e.name === node(2).name)?.running === false, 10_000, "node0 to list node2 as not running");
    const ch = await conns[0]!.createChannel();
    ch.on("error", () => {});
    await assert.rejects(ch.consume("sp-2", () => {}), /NOT_FOUND - home node 'node2@test' of durable queue 'sp-2' in vhost '\/' is down or inaccessible/);
    // Definitions change while it is down: it must find them when it comes back (snapshot + log).
    const admin = await conns[1]!.createChannel();
    await admin.assertExchange("sp-made-while-down", "fanout", { durable: true });
    await admin.deleteQueue("sp-1-watch");
    await admin.close();
  });

  sc.it("the node restarted on its data dir serves its queues again with every confirmed message", async () => {
    const from = node(2).log.length;
    const restartedAt = performance.now();
    cluster.startNode(node(2));
    await serving(node(2), from);
    // The others link to it again once it registered.
    await eventually(async () => {
      const ch = await conns[0]!.createChannel();
      ch.on("error", () => {});
      try {
        await ch.checkQueue("sp-2");
        await ch.close();
        return true;
      } catch {
        return false;
      }
    }, 20_000, "node0 to reach sp-2 again");
    figures["restart_to_reached_from_another_node_ms"] = Math.round(performance.now() - restartedAt);
    console.log(`SPREAD ${JSON.stringify(figures)}`);
    let seen = "";
    await eventually(async () => {
      const x = await fetch(`http://127.0.0.1:${node(2).httpPort}/api/exchanges/%2F/sp-made-while-down`, { headers: AUTH, signal: AbortSignal.timeout(3000) });
      const queues = (await queuesOf(node(2))).map((q) => q.name);
      seen = `exchange: ${x.status}, queues: ${queues.join(",")}`;
      return x.ok && !queues.includes("sp-1-watch");
    }, 15_000, "the restarted node to hold the definitions changed while it was down").catch((err: Error) => assert.fail(`${err.message}; last seen ${seen}`));
    const sub = await conns[0]!.createChannel();
    assert.deepEqual(await take(sub, "sp-2", 60), [...range(50, 100), ...range(100, 110)], "every confirmed message of sp-2, in order");
    await sub.close();
    const pub = await conns[1]!.createConfirmChannel();
    await publishConfirmed(pub, "sp-2", range(300, 310));
    await pub.close();
  });

  sc.it("a queue declared while etcd is stopped confirms nothing until its home claim is decided in etcd, then every message, consumed through another node in order", async () => {
    // Until etcd answers the claim another node's claim of the same name may still win: what is
    // routed to the new queue is held unconfirmed (docs/CLUSTERING.md, "One name declared on two nodes at once").
    const pub = await conns[0]!.createConfirmChannel();
    let confirms = 0;
    // Stopped before the declare: a signal sent is not yet a process stopped (cluster-fixture.ts, `stopped`).
    await cluster.stopped(cluster.etcd);
    let all: Promise<unknown>;
    try {
      await pub.assertQueue("sp-unclaimed", { durable: true });
      all = Promise.all(range(0, 10).map((id) => new Promise<void>((resolve, reject) => pub.publish("", "sp-unclaimed", Buffer.from(String(id)), { persistent: true }, (err: unknown) => (err ? reject(new Error("nacked")) : resolve(void confirms++))))));
      // A confirm now would be one for a copy whose claim may still lose.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(confirms, 0, "no confirm before etcd decided the claim");
    } finally {
      cluster.signal(cluster.etcd, "SIGCONT");
    }
    await withTimeout(all, 15_000, "the confirms once etcd is back");
    await eventually(async () => (await queuesOf(node(1))).find((q) => q.name === "sp-unclaimed")?.node === node(0).name, 15_000, "node1 to know sp-unclaimed, homed on node0");
    const sub = await conns[1]!.createChannel();
    assert.deepEqual(await take(sub, "sp-unclaimed", 10), range(0, 10));
    await sub.close();
    await pub.close();
  });

  sc.it("the whole cluster stopped (SIGTERM) and started again keeps every queue's home, definitions and confirmed messages", async () => {
    await Promise.all(conns.splice(0).map((c) => withTimeout(c.close(), 2000, "close").catch(() => {})));
    await Promise.all(cluster.nodes.map((n) => cluster.kill(n, "SIGTERM")));
    const from = cluster.nodes.map((n) => n.log.length);
    for (const n of cluster.nodes) cluster.startNode(n);
    await Promise.all(cluster.nodes.map((n, i) => serving(n, from[i])));
    for (const n of cluster.nodes) {
      await eventually(async () => {
        const list = await queuesOf(n);
        return [0, 1, 2].every((i) => list.find((q) => q.name === `sp-${i}`)?.node === node(i).name) && !list.some((q) => q.name === "sp-1-watch");
      }, 15_000, `${n.name} to list the homes after the restart`);
    }
    // sp-0 held 50 of node2's publishes and 30 of node0's (200..229); consumed through node1.
    const sub = await (await connect(node(1))).createChannel();
    assert.deepEqual(await take(sub, "sp-0", 80), [...range(50, 100), ...range(200, 230)]);
  });
});
