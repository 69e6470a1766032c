// Stage 2 of a spread cluster (docs/CLUSTERING.md, "Stage 2: each node's store replicated, a dead
// node's queues adopted"): three real `node bin/coney.js` processes on a real etcd, amqplib clients.
// Each node's store is replicated to the other two (their in-sync sets in etcd); a node killed -9
// under load: the queues of the other nodes never stop confirming, its own queue is adopted by an
// in-sync follower and serves again (from any node) with every confirmed message; restarted, the
// node follows its adopter back and takes its store back; a quorum queue is accepted; a node cut
// from etcd (its etcd connection goes through a proxy this test cuts) gives up its queues.
import { describe } from "node:test";
import assert from "node:assert/strict";
import amqp, { type Channel, type ChannelModel, type ConfirmChannel } from "amqplib";
import type { NodeInfo } from "./cluster-fixture.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { AUTH, queuesOf, spreadCluster } from "./spread-fixture.js";

/** Publishes persistent messages with confirms, `inFlight` at a time, until stopped; records every confirm. */
class Load {
  readonly confirmed: number[] = [];
  readonly times: number[] = [];
  nacked = 0;
  private stopped = false;
  private next: number;
  readonly done: Promise<void>;

  constructor(private readonly ch: ConfirmChannel, private readonly queue: string, first: number, private readonly inFlight = 8) {
    this.next = first;
    this.done = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const batch: Array<Promise<void>> = [];
      for (let i = 0; i < this.inFlight; i++) {
        const id = this.next++;
        batch.push(
          new Promise<void>((resolve) => {
            this.ch.publish("", this.queue, Buffer.from(String(id)), { persistent: true }, (err) => {
              if (err) this.nacked++;
              else {
                this.confirmed.push(id);
                this.times.push(performance.now());
              }
              resolve();
            });
          }),
        );
      }
      // A channel closed under it (its queue's node died) settles nothing more: stop.
      const settled = await Promise.race([Promise.all(batch).then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
      if (!settled) return;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }

  /** The longest time between two confirms from `from` on (ms). */
  longestGap(from: number): number {
    let gap = 0;
    let prev = from;
    for (const t of this.times) {
      if (t < from) continue;
      gap = Math.max(gap, t - prev);
      prev = t;
    }
    return gap;
  }
}

/** Consumes `queue` until every id in `want` was seen (duplicates allowed); returns what was seen. */
async function drain(ch: Channel, queue: string, want: readonly number[], ms = 20_000): Promise<Set<number>> {
  const seen = new Set<number>();
  await ch.prefetch(200);
  let tag = "";
  const missing = (): number => want.filter((id) => !seen.has(id)).length;
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      ch.consume(queue, (m) => {
        if (m === null) return reject(new Error(`consumer of ${queue} cancelled`));
        seen.add(Number(m.content.toString()));
        ch.ack(m);
        if (missing() === 0) resolve();
      }).then((ok) => (tag = ok.consumerTag), reject);
    }),
    ms,
    `every confirmed message of ${queue}`,
  ).catch((err: Error) => {
    throw new Error(`${err.message}: ${missing()} of ${want.length} not seen`);
  });
  await ch.cancel(tag);
  return seen;
}

describe("a spread cluster, stage 2: each node's store replicated, a dead node's queues adopted", () => {
  // node1 reaches etcd through a proxy the last test cuts; the others directly.
  const sc = spreadCluster({ leaseTtl: 3, protocols: false, viaProxy: [1] });
  const { cluster, proxy } = sc;
  /** The connections of the tests, in the order they were opened (conns[2] is node2's first). */
  const conns: ChannelModel[] = [];
  const figures: Record<string, number> = {};
  /** Every id the cluster confirmed into ad-2 (the victim's queue), kept until it is read back. */
  const confirmedVictim: number[] = [];

  const serving = (n: NodeInfo, from = 0): Promise<void> => sc.serving(cluster.nodes.indexOf(n), from);
  const connect = async (n: NodeInfo): Promise<ChannelModel> => {
    const c = await sc.connect(cluster.nodes.indexOf(n));
    conns.push(c);
    return c;
  };

  const node = (i: number): NodeInfo => cluster.nodes[i]!;

  /** The in-sync set etcd holds for `store` (writer first). */
  const inSyncOf = async (store: string): Promise<{ owner: string; nodes: string[] } | null> => {
    const v = await cluster.etcdKey(`spread/stores/${store}/insync`);
    return v === null ? null : (JSON.parse(v) as { owner: string; nodes: string[] });
  };

  /** Publishes one message through `n` with a confirm; true if confirmed within 2 s. */
  const probe = async (n: NodeInfo, queue: string, id: number): Promise<boolean> => {
    // A node still starting refuses the connection: not served yet.
    const c = await amqp.connect(cluster.url(n)).catch(() => null);
    if (c === null) return false;
    c.on("error", () => {});
    try {
      const ch = await c.createConfirmChannel();
      ch.on("error", () => {});
      return await withTimeout(new Promise<boolean>((resolve) => ch.publish("", queue, Buffer.from(String(id)), { persistent: true }, (err) => resolve(!err))), 2000, "probe").catch(() => false);
    } finally {
      await withTimeout(c.close(), 2000, "close").catch(() => {});
    }
  };

  sc.it("replicates each node's store to the other two: every store's in-sync set in etcd lists all three", async () => {
    for (let i = 0; i < 3; i++) {
      const ch = await (await connect(node(i))).createChannel();
      await ch.assertQueue(`ad-${i}`, { durable: true });
      await ch.close();
    }
    // A second queue on node2, for a policy set while its store is adopted.
    const ch = await conns[2]!.createChannel();
    await ch.assertQueue("ad-2-policy", { durable: true });
    await ch.close();
    for (const n of cluster.nodes) {
      await eventually(async () => {
        const s = await inSyncOf(n.name);
        return s !== null && s.owner === n.name && s.nodes.length === 3;
      }, 30_000, `${n.name}'s store in sync on all three nodes`);
    }
    for (const n of cluster.nodes) await eventually(async () => (await queuesOf(n)).filter((q) => q.name.startsWith("ad-")).length === 4, 15_000, `${n.name} to know the four queues`);
  });

  sc.it("kill -9 of a node under load: the other queues never stop confirming, its queue is adopted and serves again with every confirmed message", async () => {
    const pubConn = await connect(node(0));
    const loads = [new Load(await pubConn.createConfirmChannel(), "ad-0", 0), new Load(await pubConn.createConfirmChannel(), "ad-1", 0)];
    const victimCh = await pubConn.createConfirmChannel();
    victimCh.on("error", () => {});
    const victim = new Load(victimCh, "ad-2", 0);
    // A consumer of the victim's queue on another node: cancelled at the kill, it consumes again once adopted.
    const watcher = await (await connect(node(1))).createChannel();
    const cancelled = new Promise<void>((resolve) => void watcher.consume("ad-2", (m) => m === null && resolve(), { noAck: false }).catch(() => undefined));
    await eventually(() => loads.every((l) => l.confirmed.length >= 200) && victim.confirmed.length >= 200, 30_000, "load confirmed on every queue");
    const killedAt = performance.now();
    await cluster.kill(node(2));
    // A policy set while the node is dead (before, during or after the adoption) reaches the adopted broker: max-length 1 keeps only the newest message.
    const put = await fetch(`http://127.0.0.1:${node(1).httpPort}/api/policies/%2F/ad-max`, { method: "PUT", headers: { ...AUTH, "content-type": "application/json" }, body: JSON.stringify({ pattern: "^ad-2-policy$", definition: { "max-length": 1 }, "apply-to": "queues" }) });
    assert.ok(put.ok, `policy set: ${put.status}`);
    await victim.stop();
    confirmedVictim.push(...victim.confirmed);
    await withTimeout(cancelled, 10_000, "the consumer of the dead node's queue to be cancelled");
    // Served again: a publish to the dead node's queue through a surviving node is confirmed.
    let id = 1_000_000;
    await eventually(async () => {
      const ok = await probe(node(0), "ad-2", id);
      if (ok) confirmedVictim.push(id);
      id++;
      return ok;
    }, 30_000, "the dead node's queue to confirm again");
    figures["kill_to_confirm_again_ms"] = Math.round(performance.now() - killedAt);
    const afterServe = performance.now();
    await eventually(() => performance.now() - afterServe > 1000, 3000, "a second of load after the adoption");
    await Promise.all(loads.map((l) => l.stop()));
    figures["longest_confirm_gap_other_queues_ms"] = Math.round(Math.max(...loads.map((l) => l.longestGap(killedAt - 1000))));
    figures["confirmed_victim_before_kill"] = victim.confirmed.length;
    figures["confirmed_other_queues"] = loads[0]!.confirmed.length + loads[1]!.confirmed.length;
    assert.ok(figures["kill_to_confirm_again_ms"] < 15_000, `the dead node's queue served again within 15 s: ${figures["kill_to_confirm_again_ms"]} ms`);
    assert.ok(figures["longest_confirm_gap_other_queues_ms"] < 1000, `the other queues never stopped confirming for a second: ${figures["longest_confirm_gap_other_queues_ms"]} ms`);
    for (const l of loads) assert.equal(l.nacked, 0, "no nack on the surviving nodes' queues");
    // Every confirmed message of the victim's queue, read through a third node.
    const adopted = await inSyncOf(node(2).name);
    assert.notEqual(adopted?.owner, node(2).name, "the store is written by its adopter");
    const reader = await (await connect(node(1))).createChannel();
    const seen = await drain(reader, "ad-2", confirmedVictim);
    figures["victim_messages_read_back"] = seen.size;
    await reader.close();
    // Read back, acked: the next test's check starts from an empty queue plus what it publishes.
    confirmedVictim.length = 0;
    // Operators: the dead node is listed as not running, its queues served by its adopter.
    const nodes = (await (await fetch(`http://127.0.0.1:${node(0).httpPort}/api/nodes`, { headers: AUTH })).json()) as Array<{ name: string; running: boolean; adopted_by?: string }>;
    const dead = nodes.find((e) => e.name === node(2).name);
    assert.equal(dead?.running, false, "the dead node is not running");
    assert.equal(dead?.adopted_by, adopted?.owner, "its store is served by the adopter etcd names");
    // The policy set just after the kill applies to the adopted queue.
    const policyPub = await pubConn.createConfirmChannel();
    for (let i = 0; i < 3; i++) policyPub.publish("", "ad-2-policy", Buffer.from(String(i)), { persistent: true });
    await policyPub.waitForConfirms();
    const counter = await pubConn.createChannel();
    await eventually(async () => {
      policyPub.publish("", "ad-2-policy", Buffer.from("more"), { persistent: true });
      await policyPub.waitForConfirms();
      return (await counter.checkQueue("ad-2-policy")).messageCount === 1;
    }, 15_000, "the policy to apply to the adopted queue (max-length 1)");
    await policyPub.close();
    await counter.close();
    // Publishes confirmed while adopted, then kept through the hand-back.
    const pub = await pubConn.createConfirmChannel();
    for (let i = 0; i < 50; i++) pub.publish("", "ad-2", Buffer.from(String(2_000_000 + i)), { persistent: true });
    await pub.waitForConfirms();
    await pub.close();
    for (let i = 0; i < 50; i++) confirmedVictim.push(2_000_000 + i);
    console.log(`SPREAD-ADOPTION ${JSON.stringify(figures)}`);
  });

  sc.it("the killed node restarts: it follows its adopter back, takes its store back, and serves every message confirmed meanwhile", async () => {
    const from = node(2).log.length;
    const restartedAt = performance.now();
    cluster.startNode(node(2));
    await serving(node(2), from);
    assert.ok(node(2).log.slice(from).includes("spread cluster: store taken back"), "the restarted node took its store back from the adopter");
    await eventually(async () => (await inSyncOf(node(2).name))?.owner === node(2).name, 15_000, "the store written by its home again");
    await eventually(async () => probe(node(1), "ad-2", 3_000_000).then((ok) => ok && (confirmedVictim.push(3_000_000), true)), 20_000, "ad-2 served by its home again");
    figures["restart_to_served_by_home_ms"] = Math.round(performance.now() - restartedAt);
    const reader = await (await connect(node(2))).createChannel();
    await drain(reader, "ad-2", confirmedVictim);
    await reader.close();
    console.log(`SPREAD-ADOPTION ${JSON.stringify(figures)}`);
  });

  sc.it("accepts a quorum queue (its home's store is replicated) and serves it from every node", async () => {
    const ch = await (await connect(node(1))).createConfirmChannel();
    await ch.assertQueue("ad-quorum", { durable: true, arguments: { "x-queue-type": "quorum" } });
    for (let i = 0; i < 20; i++) ch.publish("", "ad-quorum", Buffer.from(String(i)), { persistent: true });
    await ch.waitForConfirms();
    await ch.close();
    const reader = await (await connect(node(2))).createChannel();
    await drain(reader, "ad-quorum", Array.from({ length: 20 }, (_, i) => i));
    await reader.close();
    const r = await fetch(`http://127.0.0.1:${node(0).httpPort}/api/queues/%2F/ad-quorum`, { headers: AUTH });
    assert.ok(r.ok);
    const q = (await r.json()) as { type: string; node: string };
    assert.equal(q.type, "quorum");
    assert.equal(q.node, node(1).name);
  });

  sc.it("a node cut from etcd gives up its queues within the lease; another node adopts them", async () => {
    const client = await amqp.connect(cluster.url(node(1)));
    const closed = new Promise<void>((resolve) => client.once("close", () => resolve()));
    client.on("error", () => {});
    const cutAt = performance.now();
    proxy.cutOff();
    await withTimeout(closed, 10_000, "the cut node to close its clients' connections");
    figures["cut_to_clients_closed_ms"] = Math.round(performance.now() - cutAt);
    // Lease 3 s: the node stops within it (certain until TTL - 1 s, fenced at TTL, plus a renewal's timeout).
    assert.ok(figures["cut_to_clients_closed_ms"] < 3000 + 2500, `gave up within the lease: ${figures["cut_to_clients_closed_ms"]} ms`);
    let id = 4_000_000;
    await eventually(async () => probe(node(0), "ad-1", id++), 30_000, "the cut node's queue adopted and confirming");
    figures["cut_to_adopted_confirm_ms"] = Math.round(performance.now() - cutAt);
    // etcd reachable again: the node boots through its claim, follows the adopter back and takes its store back.
    const from = node(1).log.length;
    const restoredAt = performance.now();
    proxy.restore();
    await eventually(() => node(1).log.slice(from).includes("spread cluster: store taken back"), 30_000, "the cut node to take its store back");
    await eventually(async () => (await inSyncOf(node(1).name))?.owner === node(1).name, 15_000, "node1's store written by node1 again");
    await eventually(async () => probe(node(1), "ad-1", id++), 20_000, "ad-1 confirming through node1 again");
    figures["restore_to_served_by_home_ms"] = Math.round(performance.now() - restoredAt);
    console.log(`SPREAD-ADOPTION ${JSON.stringify(figures)}`);
  });
});
