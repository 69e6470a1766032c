/**
 * A spread cluster (`--cluster-mode spread`) for the chaos cases: etcd and N real `node
 * bin/coney.js` nodes through TestCluster, and the events a test waits for — a node serving
 * (started, with a link up to every other node since a log offset), a queue's home as the
 * management API names it.
 */
import { after } from "node:test";
import amqp, { type ChannelModel } from "amqplib";
import { TestCluster, type NodeInfo } from "./cluster-fixture.js";
import { eventually, withTimeout } from "../helpers/wait.js";

export const AUTH = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` };

/** GET /api/queues/%2F on node `n`: each queue with its home (`node`); [] when the node does not answer. */
export async function queuesOf(n: NodeInfo): Promise<Array<{ name: string; node: string; messages?: number }>> {
  const r = await fetch(`http://127.0.0.1:${n.httpPort}/api/queues/%2F`, { headers: AUTH, signal: AbortSignal.timeout(3000) });
  return r.ok ? ((await r.json()) as Array<{ name: string; node: string }>) : [];
}

/** The spread cluster's nodes are `node<i>@test`; the lease is short so a dead node's member key goes soon. */
export function spreadCluster(size: number, leaseTtl = 3): TestCluster {
  return new TestCluster(size, leaseTtl, ["--cluster-mode", "spread"]);
}

/**
 * Resolves once node `n` says, in its log since offset `from`, that Coney started and that a link
 * to each of the other `peers` nodes came up, and its management API answers.
 */
export function serving(n: NodeInfo, peers: number, from = 0, ms = 30_000): Promise<void> {
  return eventually(async () => {
    const log = n.log.slice(from);
    return log.includes('"msg":"Coney started"') && log.split("spread cluster: link to a node up").length - 1 >= peers && (await queuesOf(n).catch(() => null)) !== null;
  }, ms, `${n.name} serving with its links`);
}

/** Starts etcd and every node; resolves once each serves with links to all the others. */
export async function startSpread(cluster: TestCluster): Promise<void> {
  await cluster.startProcesses();
  await Promise.all(cluster.nodes.map((n) => serving(n, cluster.size - 1)));
}

/**
 * A spread cluster for one suite: `connect(n)` opens an amqplib connection to node `n` (with an
 * 'error' listener: its node may die under it) that is closed after the suite with the cluster;
 * the nodes' logs are printed unless `pass()` was called.
 */
export function spreadSuite(size: number): { cluster: TestCluster; connect(n: NodeInfo): Promise<ChannelModel>; pass(): void } {
  const cluster = spreadCluster(size);
  const conns: ChannelModel[] = [];
  let passed = false;
  after(async () => {
    await Promise.all(conns.map((c) => withTimeout(c.close(), 2000, "close").catch(() => {})));
    if (!passed) console.error(cluster.logs());
    await cluster.close();
  });
  const connect = async (n: NodeInfo): Promise<ChannelModel> => {
    const c = await amqp.connect(cluster.url(n));
    c.on("error", () => {});
    conns.push(c);
    return c;
  };
  return { cluster, connect, pass: () => void (passed = true) };
}

/** Queues homed on each node. */
export interface HomedQueues {
  /** Every queue, node by node. */
  readonly all: string[];
  readonly homedOn: Map<NodeInfo, string[]>;
}

/**
 * `perNode` durable queues `<prefix>-<i>-<k>` declared through each node i (client-local: homed
 * there); resolves once every node's /api/queues names each one's home.
 */
export async function declareHomed(cluster: TestCluster, connect: (n: NodeInfo) => Promise<ChannelModel>, prefix: string, perNode: number): Promise<HomedQueues> {
  const homes = new Map<string, string>();
  const homedOn = new Map<NodeInfo, string[]>();
  for (const [i, n] of cluster.nodes.entries()) {
    const ch = await (await connect(n)).createChannel();
    const names = Array.from({ length: perNode }, (_, k) => `${prefix}-${i}-${k}`);
    for (const q of names) {
      await ch.assertQueue(q, { durable: true });
      homes.set(q, n.name);
    }
    homedOn.set(n, names);
    await ch.close();
  }
  await homesKnown(cluster, homes);
  return { all: [...homes.keys()], homedOn };
}

/** Waits until every node's /api/queues names the home of each of `homes` (queue → node name). */
export async function homesKnown(cluster: TestCluster, homes: ReadonlyMap<string, string>, ms = 20_000): Promise<void> {
  for (const n of cluster.nodes) {
    await eventually(async () => {
      const list = await queuesOf(n).catch(() => []);
      return [...homes].every(([q, home]) => list.find((x) => x.name === q)?.node === home);
    }, ms, `every queue with its home in ${n.name}'s /api/queues`);
  }
}
