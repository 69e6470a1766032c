/**
 * `coney-perf spread --cluster N` / `--node-uris … --node-https …` (issue 42): the spread scenario
 * (spread-bench.ts) on a spread cluster over etcd (`--cluster-mode spread`), whose nodes each
 * listen on their own address. Started here (etcd and N nodes on loopback, local-cluster.ts, all
 * removed afterwards) or attached to (each node's AMQP URI and management API, in one order).
 *
 * Where things go, so the figures say what they measure: queue i is declared through node i mod N
 * (client-local, the spread cluster's default locator, homes it there), its producer connects to
 * the same node and its consumer to the next one (i + 1 mod N): every message is published
 * locally and delivered across one node link — one crossing per message, what clients landing on
 * random nodes average with two nodes (4/3 with three). The pair table then compares one publisher + consumer on the queue's
 * home against the same on another node (every message crossing twice: publish and delivery).
 * A cluster started here is followed by the aggregate on one node beside it (no etcd), same clients.
 */
import { existsSync } from "node:fs";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { LocalCluster } from "./local-cluster.js";
import { throwawayClusterTls } from "./throwaway-cluster-cert.js";
import { aggregateRun, connectNoDelay, nodeProcesses, pairTable, type NodeProcess, type SpreadBenchOptions } from "./spread-bench.js";

export interface SpreadClusterBenchOptions extends Omit<SpreadBenchOptions, "uri" | "http"> {
  /** Nodes to start on a local etcd (ignored with `attach`). */
  readonly nodes: number;
  readonly etcdBin: string;
  readonly leaseTtl: number;
  /** The started cluster's links and replication over TLS (`--cluster-tls`, a throw-away certificate). */
  readonly clusterTls?: boolean;
  /** A running spread cluster instead: each node's AMQP URI and management API (with credentials), same order. */
  readonly attach?: { readonly uris: readonly string[]; readonly https: readonly string[] };
}

interface NodeAddress {
  readonly uri: string;
  readonly http: string;
}

/** The node a management API belongs to (`node` of /api/overview, shown to monitors). */
async function nodeNameOf(http: string): Promise<string> {
  const u = new URL("/api/overview", http);
  const auth = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64")}`;
  u.username = "";
  u.password = "";
  const r = await fetch(u, { headers: { authorization: auth } });
  if (!r.ok) throw new Error(`GET ${u.href}: ${r.status}`);
  const node = ((await r.json()) as { node?: string }).node;
  if (typeof node !== "string") throw new Error(`${u.href} names no node (the user must be a monitor)`);
  return node;
}

export async function runSpreadClusterBench(o: SpreadClusterBenchOptions, print: (line: string) => void): Promise<void> {
  if (o.attach !== undefined) {
    if (o.clusterTls === true) throw new Error("--cluster-tls: only with --cluster (an attached cluster runs as it was started)");
    if (o.attach.uris.length < 2 || o.attach.uris.length !== o.attach.https.length) throw new Error("--node-uris and --node-https: one of each per node, at least two nodes");
    print(`spread cluster: ${o.attach.uris.length} nodes, attached`);
    await measure(o, o.attach.uris.map((uri, i) => ({ uri, http: o.attach!.https[i]! })), print);
    return;
  }
  if (o.nodes < 2) throw new Error("--cluster: at least 2 nodes");
  if (!existsSync(o.etcdBin)) throw new Error(`etcd not found at ${o.etcdBin}: install it (Debian: apt-get install etcd-server) or name it with --etcd <path>`);
  const cluster = new LocalCluster(o.nodes, o.etcdBin, o.leaseTtl, "spread");
  try {
    if (o.clusterTls === true) cluster.clusterNodeArgs.push(...throwawayClusterTls(cluster.dir));
    process.stderr.write(`starting etcd and ${o.nodes} spread nodes in ${cluster.dir}\n`);
    await cluster.start();
    print(`spread cluster: ${o.nodes} nodes on a local etcd, started here${o.clusterTls === true ? "; node links and replication over TLS (--cluster-tls)" : ""}`);
    await measure(o, cluster.nodes.map((n) => ({ uri: `amqp://guest:guest@127.0.0.1:${n.amqpPort}`, http: `http://guest:guest@127.0.0.1:${n.httpPort}` })), print);
    // The same clients against one node beside it (no etcd), in the same run: on a shared machine
    // only figures taken together compare.
    const single = await cluster.startSingle();
    const http = `http://guest:guest@127.0.0.1:${single.httpPort}`;
    print("reference, in the same run: one node, no cluster (every queue, producer and consumer on it)");
    await aggregateRun({ ...o, uri: `amqp://guest:guest@127.0.0.1:${single.amqpPort}`, http }, await nodeProcesses(http), {}, print);
  } finally {
    await cluster.close();
  }
}

async function measure(o: SpreadClusterBenchOptions, addresses: readonly NodeAddress[], print: (line: string) => void): Promise<void> {
  const names = await Promise.all(addresses.map((a) => nodeNameOf(a.http)));
  const all = await nodeProcesses(addresses[0]!.http);
  // The processes in the addresses' order: the shares' columns follow it.
  const nodes: NodeProcess[] = names.map((name) => {
    const p = all.find((n) => n.name === name);
    if (p === undefined) throw new Error(`${addresses[0]!.http}/api/nodes does not list ${name} as running`);
    return p;
  });
  print(`nodes: ${nodes.map((n) => `${n.name} (pid ${n.pid})`).join(", ")}`);
  print(`placement: queue i declared through node i mod ${nodes.length} (homed there), its producer on that node, its consumer on node i + 1 mod ${nodes.length}`);
  const uris = addresses.map((a) => a.uri);
  const next = [...uris.slice(1), uris[0]!];
  const base = { ...o, uri: uris[0]!, http: addresses[0]!.http };
  await aggregateRun(base, nodes, { declareUris: uris, producerUris: uris, consumerUris: next }, print);
  // The pair: a queue homed on the first node; a connection there, then one on the second.
  const queue = `spread-pair-${process.pid}-${Date.now().toString(36)}`;
  const setup = await new AMQPClient(uris[0]!).connect();
  const ch = await setup.channel();
  await ch.queueDeclare(queue, { durable: false });
  const local = await connectNoDelay(uris[0]!);
  const remote = await connectNoDelay(uris[1]!);
  try {
    await pairTable(base, nodes, local, remote, queue, print);
  } finally {
    await ch.queueDelete(queue).catch(() => {});
    for (const c of [local, remote, setup]) await c.close().catch(() => {});
  }
}
