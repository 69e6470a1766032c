/**
 * `coney-perf cluster`: the persistent+confirm scenarios (a durable queue, a stream) on an N-node loopback cluster (etcd and
 * the nodes started here, on one machine) against a single node, in one run and one table:
 * through the leader's port, through a follower's (which forwards the bytes to the leader), and
 * on the single node. Every process and file it starts is removed afterwards.
 */
import { existsSync } from "node:fs";
import { LocalCluster } from "./local-cluster.js";
import { runScenarios, type Target } from "./scenarios.js";

export interface ClusterBenchOptions {
  readonly nodes: number;
  readonly durationSeconds: number;
  readonly etcdBin: string;
  readonly leaseTtl: number;
}

export async function runClusterBench(o: ClusterBenchOptions, print: (line: string) => void): Promise<void> {
  if (!existsSync(o.etcdBin)) throw new Error(`etcd not found at ${o.etcdBin}: install it (Debian: apt-get install etcd-server) or name it with --etcd <path>`);
  const cluster = new LocalCluster(o.nodes, o.etcdBin, o.leaseTtl);
  try {
    process.stderr.write(`starting etcd and ${o.nodes} nodes in ${cluster.dir}\n`);
    await cluster.start();
    const single = await cluster.startSingle();
    const leader = await cluster.leader();
    const uri = (port: number): string => `amqp://guest:guest@127.0.0.1:${port}`;
    const target = (name: string, port: number): Target => ({ name, uri: uri(port), http: undefined, pid: undefined });
    const targets = [target(`${o.nodes}-node cluster, via the leader`, leader.amqpPort)];
    const follower = cluster.nodes.find((n) => n !== leader);
    if (follower) targets.push(target(`${o.nodes}-node cluster, via a follower`, follower.amqpPort));
    targets.push(target("single node", single.amqpPort));
    await runScenarios(targets, { durationSeconds: o.durationSeconds, queueCount: 0, connectionCount: 0, statsSettleMs: 0, only: ["persistent", "stream-confirm"] }, print);
  } finally {
    await cluster.close();
  }
}
