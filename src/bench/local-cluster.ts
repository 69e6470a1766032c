/**
 * A Coney cluster on loopback for `coney-perf cluster`: one etcd (Debian's `etcd-server`) and N
 * `bin/coney.js` processes on ephemeral ports, in a temporary directory that close() removes with
 * every process. The argument lists are exported for the cluster tests' fixture, which starts the
 * same processes with more control (kills, pauses, restarts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { etcdAnswersAs, uniqueEtcdName } from "./etcd-identity.js";
import { CLUSTER_PICKS_FROM, ephemeralRange } from "../listeners/port-picks.js";

export const CONEY_BIN = fileURLToPath(new URL("../../../bin/coney.js", import.meta.url));

/** Ports this process has handed out: a port found free a moment ago may be offered again, and two
 *  processes of one cluster (say etcd and a node's --prometheus-port) must not be given the same. */
const handedOut = new Set<number>();

/**
 * The lowest port of picks: above the well-known and registered ports a machine is likely to
 * serve, and above the workers' own picks (src/listeners/port-picks.ts): the two never pick one port.
 */
const PICK_FROM = CLUSTER_PICKS_FROM;

/** The kernel's ephemeral range's low end, when there is room to pick below it; null otherwise. */
function pickBelow(): number | null {
  const range = ephemeralRange();
  return range !== null && range.low > PICK_FROM + 1000 ? range.low : null;
}

/** Resolves with the port bound on loopback (0: the kernel's pick), or null if it is taken. */
function tryBind(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(null));
    s.listen(port, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => resolve(typeof a === "object" && a ? a.port : null));
    });
  });
}

/**
 * A port free on loopback now, for a process started a moment later. Picked below the kernel's
 * ephemeral range where there is one: a port the kernel hands out (any process binding port 0,
 * any outgoing connection's local port) could be taken by another test file's process between
 * this pick and the bind — and a cluster node binds its ports again each time it is elected
 * (cluster-node.ts). Below the range only another explicit pick can take it.
 */
export async function freePort(): Promise<number> {
  const low = pickBelow();
  for (;;) {
    const port = low === null ? await tryBind(0) : await tryBind(PICK_FROM + Math.floor(Math.random() * (low - PICK_FROM)));
    if (port !== null && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** etcd as a one-member cluster on loopback, its data in `dataDir`; `name` is its member's (etcd-identity.ts: unique, so a test can tell it answers). */
export function etcdArgs(dataDir: string, clientPort: number, peerPort: number, name = "default"): string[] {
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return [
    "--name", name,
    "--data-dir", dataDir,
    "--listen-client-urls", client,
    "--advertise-client-urls", client,
    "--listen-peer-urls", peer,
    "--initial-advertise-peer-urls", peer,
    "--initial-cluster", `${name}=${peer}`,
    "--log-level", "error",
  ];
}

export interface LocalNode {
  readonly name: string;
  readonly amqpPort: number;
  readonly httpPort: number;
  readonly dataDir: string;
  /** The node's Prometheus port; absent: no Prometheus listener. */
  readonly metricsPort?: number;
}

export interface ClusterArgs {
  readonly etcdUrl: string;
  readonly clusterName: string;
  readonly leaseTtl: number;
}

/** A node's arguments (after the script path): loopback only; `cluster` null for a single node. */
export function nodeArgs(n: LocalNode, cluster: ClusterArgs | null, logLevel: string): string[] {
  const clustering = cluster === null ? [] : [
    "--etcd-endpoints", cluster.etcdUrl,
    "--node-name", n.name,
    "--cluster-name", cluster.clusterName,
    "--advertise-address", "127.0.0.1",
    "--etcd-lease-ttl", String(cluster.leaseTtl),
  ];
  return [
    ...clustering,
    "--bind", "127.0.0.1",
    "--amqp-port", String(n.amqpPort),
    "--http-port", String(n.httpPort),
    "--prometheus-port", n.metricsPort === undefined ? "off" : String(n.metricsPort),
    // The benchmark speaks AMQP only: no MQTT listeners competing for the fixed ports.
    "--mqtt-port", "off",
    "--web-mqtt-port", "off",
    "--stomp-port", "off",
    "--web-stomp-port", "off",
    "--stream-port", "off",
    "--data-dir", n.dataDir,
    "--log-level", logLevel,
  ];
}

const GUEST = { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` };

interface NodesEntry {
  readonly name: string;
  readonly running: boolean;
  readonly cluster_leader: boolean;
  readonly in_sync: boolean;
}

export class LocalCluster {
  readonly dir = mkdtempSync(join(tmpdir(), "coney-perf-cluster-"));
  readonly nodes: LocalNode[] = [];
  private readonly procs: ChildProcess[] = [];
  /** More arguments for every cluster node (not the single node beside it), e.g. `--cluster-tls` (throwaway-cluster-cert.ts). */
  readonly clusterNodeArgs: string[] = [];

  constructor(
    readonly size: number,
    private readonly etcdBin = "/usr/bin/etcd",
    private readonly leaseTtl = 5,
    /** `replicated`: one leader, the others follow; `spread`: `--cluster-mode spread`, every node homes queues. */
    readonly mode: "replicated" | "spread" = "replicated",
  ) {}

  /** Starts etcd and the nodes; resolves once every node is in the in-sync set (spread: every node lists every node running). */
  async start(timeoutMs = 60_000): Promise<void> {
    const [client, peer] = [await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${client}`;
    // Its own etcd, not another process's that took the port first (etcd-identity.ts).
    const etcdName = uniqueEtcdName();
    this.spawn(this.etcdBin, etcdArgs(join(this.dir, "etcd"), client, peer, etcdName));
    await this.until(timeoutMs, "etcd to answer", () => etcdAnswersAs(etcdUrl, etcdName));
    for (let i = 0; i < this.size; i++) {
      const n: LocalNode = { name: `node${i}@perf`, amqpPort: await freePort(), httpPort: await freePort(), dataDir: join(this.dir, `node${i}`) };
      this.nodes.push(n);
      const spread = this.mode === "spread" ? ["--cluster-mode", "spread"] : [];
      this.spawn(process.execPath, [CONEY_BIN, ...nodeArgs(n, { etcdUrl, clusterName: "perf", leaseTtl: this.leaseTtl }, "error"), ...spread, ...this.clusterNodeArgs]);
    }
    if (this.mode === "spread") {
      // Running in a spread node's /api/nodes: registered in etcd and linked to it; every node must see every other.
      const linked = async (n: LocalNode): Promise<boolean> => (await this.nodesList(n)).filter((e) => e.running).length === this.size;
      await this.until(timeoutMs, `${this.size} spread nodes linked`, async () => (await Promise.all(this.nodes.map(linked))).every(Boolean));
      return;
    }
    await this.until(timeoutMs, `${this.size} nodes in sync`, async () => (await this.nodesList()).filter((e) => e.in_sync).length === this.size);
  }

  /** A single node beside the cluster (no etcd), for comparison; resolves once its API answers. */
  async startSingle(timeoutMs = 30_000): Promise<LocalNode> {
    const n: LocalNode = { name: "single@perf", amqpPort: await freePort(), httpPort: await freePort(), dataDir: join(this.dir, "single") };
    this.spawn(process.execPath, [CONEY_BIN, ...nodeArgs(n, null, "error")]);
    await this.until(timeoutMs, "the single node", async () => (await fetch(`http://127.0.0.1:${n.httpPort}/api/overview`, { headers: GUEST })).ok);
    return n;
  }

  /** The node that leads now. */
  async leader(): Promise<LocalNode> {
    const name = (await this.nodesList()).find((e) => e.cluster_leader)?.name;
    const n = this.nodes.find((x) => x.name === name);
    if (!n) throw new Error("no leader");
    return n;
  }

  /** Every process stopped (SIGKILL: nothing here needs a clean stop) and the directory removed. */
  async close(): Promise<void> {
    await Promise.all(
      this.procs.map((p) =>
        p.exitCode !== null || p.signalCode !== null ? undefined : new Promise<void>((resolve) => {
          p.once("exit", () => resolve());
          p.kill("SIGKILL");
        }),
      ),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }

  private spawn(bin: string, args: string[]): void {
    const p = spawn(bin, args, { stdio: "ignore" });
    p.on("error", () => undefined);
    this.procs.push(p);
  }

  /** /api/nodes as a node (the first by default) answers it (a follower forwards it to the leader). */
  private async nodesList(n: LocalNode = this.nodes[0]!): Promise<NodesEntry[]> {
    const r = await fetch(`http://127.0.0.1:${n.httpPort}/api/nodes`, { headers: GUEST, signal: AbortSignal.timeout(2000) });
    return r.ok ? ((await r.json()) as NodesEntry[]) : [];
  }

  private async until(ms: number, what: string, check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      for (const p of this.procs) if (p.exitCode !== null) throw new Error(`a cluster process exited (code ${p.exitCode}) while waiting for ${what}`);
      if (await check().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
