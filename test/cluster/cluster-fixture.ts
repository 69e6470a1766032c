/**
 * A real cluster on loopback for tests: one etcd (Debian's /usr/bin/etcd) and Coney nodes run as
 * `node bin/coney.js` processes, all on ephemeral ports chosen by binding port 0 and releasing it.
 * Every process and directory is removed by close(), also when a test fails.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONEY_BIN, etcdArgs, freePort, nodeArgs } from "../../src/bench/local-cluster.js";
import { etcdAnswersAs, lostItsPort, uniqueEtcdName } from "../../src/bench/etcd-identity.js";
import { after, before } from "node:test";
import { Etcd3 } from "etcd3";
import { eventually } from "../helpers/wait.js";

export { freePort };

const ETCD = process.env["ETCD_BIN"] ?? "/usr/bin/etcd";

export interface NodeInfo {
  readonly name: string;
  /** Chosen free when the cluster starts; chosen again if another process took one first (startNode). */
  amqpPort: number;
  httpPort: number;
  readonly dataDir: string;
  metricsPort?: number;
  /** With `withMqtt`: the node's MQTT port (served by its broker while it leads). */
  mqttPort?: number;
  /** The node's STOMP port (spread-fixture.ts: every protocol on every node). */
  stompPort?: number;
  proc: ChildProcess | null;
  log: string;
  /** Arguments for this node only, after the cluster's (the last of a repeated flag wins). */
  readonly extraArgs?: readonly string[];
  /** The address its HTTP API listens on when not 127.0.0.1 (spread-fixture.ts `ownAddresses`). */
  readonly host?: string;
}

export interface NodesEntry {
  name: string;
  running: boolean;
  cluster_leader: boolean;
  in_sync: boolean;
}

/**
 * Clusters not closed yet. If the test process ends without closing them (the runner stops a
 * file that ran out of time, a crash), their etcd and nodes are killed too instead of running on.
 */
const open = new Set<TestCluster>();
function killOpen(): void {
  for (const c of open) for (const p of [c.etcd, ...c.nodes.map((n) => n.proc)]) if (p && p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
}
process.on("exit", killOpen);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    killOpen();
    process.exit(128 + (signal === "SIGTERM" ? 15 : 2));
  });
}

export class TestCluster {
  readonly dir = mkdtempSync(join(tmpdir(), "coney-cluster-"));
  etcd: ChildProcess | null = null;
  etcdUrl = "";
  readonly nodes: NodeInfo[] = [];
  private etcdPorts: [number, number] = [0, 0];
  /** Its etcd's member name, the same at every restart (etcd-identity.ts). */
  readonly etcdName = uniqueEtcdName();
  /**
   * Port flags (say `--amqps-port`) given a picked port of each node's own, not 0: a node binds
   * its client ports again when it is elected (cluster-node.ts), and an ephemeral port may be
   * another process's by then (freePort picks outside the kernel's ephemeral range).
   */
  portFlags: readonly string[] = [];

  /** `withMetrics`: every node gets a Prometheus port of its own (otherwise none listens). */
  constructor(readonly size: number, readonly leaseTtl = 3, readonly extraArgs: string[] = [], readonly withMetrics = false, readonly withMqtt = false) {}

  async start(): Promise<void> {
    await this.startProcesses();
    await this.waitForLeader();
  }

  /**
   * etcd and the nodes started, waiting for nothing more: a replicated cluster waits for its
   * leader (start), a spread cluster for each node serving with its links (spread-fixture.ts).
   */
  async startProcesses(): Promise<void> {
    open.add(this);
    await this.startEtcd();
    for (let i = 0; i < this.size; i++) {
      const name = `node${i}@test`;
      const metrics = this.withMetrics ? { metricsPort: await freePort() } : {};
      const mqtt = this.withMqtt ? { mqttPort: await freePort() } : {};
      const extraArgs: string[] = [];
      for (const flag of this.portFlags) extraArgs.push(flag, String(await freePort()));
      this.nodes.push({ name, amqpPort: await freePort(), httpPort: await freePort(), dataDir: join(this.dir, `node${i}`), ...metrics, ...mqtt, proc: null, log: "", extraArgs });
    }
    for (const n of this.nodes) this.startNode(n);
  }

  /**
   * Starts etcd (again, on the same ports once chosen); also alone, for tests of the etcd session.
   * Started means this cluster's own etcd answers (its member name, etcd-identity.ts): a port
   * picked free may be bound by another test file's etcd before this one binds it, and then the
   * other answers /health while this one exits — the nodes would join the other file's cluster
   * and a SIGSTOP of this etcd would stop nothing. At the first start such a loss picks new ports
   * (`firstPorts`: the first start's ports, given by a test of this rule instead of picked).
   */
  async startEtcd(firstPorts?: [number, number]): Promise<void> {
    const picked = this.etcdPorts[0] === 0;
    if (picked && firstPorts !== undefined) this.etcdPorts = firstPorts;
    for (let attempt = 1; ; attempt++) {
      if (this.etcdPorts[0] === 0) this.etcdPorts = [await freePort(), await freePort()];
      const lost = await this.spawnEtcd();
      if (!lost) return;
      if (!picked || attempt === 5) throw new Error(`etcd could not bind its ports ${this.etcdPorts.join(", ")}: ${lost}`);
      // What it wrote before it gave up names the lost ports: a fresh data dir for the fresh ones.
      rmSync(join(this.dir, "etcd"), { recursive: true, force: true });
      this.etcdPorts = [0, 0];
    }
  }

  /** Spawns etcd on `etcdPorts`; resolves once it answers as itself, or with its stderr when another process had its port. */
  private async spawnEtcd(): Promise<string | null> {
    const [client, peer] = this.etcdPorts;
    this.etcdUrl = `http://127.0.0.1:${client}`;
    const p = spawn(ETCD, etcdArgs(join(this.dir, "etcd"), client, peer, this.etcdName), { stdio: ["ignore", "ignore", "pipe"] });
    this.etcd = p;
    let err = "";
    p.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    let lost: string | null = null;
    await eventually(async () => {
      if (p.exitCode !== null) {
        if (!lostItsPort(err)) throw new Error(`etcd exited: ${err}`);
        lost = err.trim().split("\n").pop() ?? err;
        return true;
      }
      return etcdAnswersAs(this.etcdUrl, this.etcdName);
    }, 15_000, "etcd to start");
    return lost;
  }

  startNode(n: NodeInfo): void {
    const mqtt = n.mqttPort === undefined ? [] : ["--mqtt-port", String(n.mqttPort)];
    const stomp = n.stompPort === undefined ? [] : ["--stomp-port", String(n.stompPort)];
    const args = [CONEY_BIN, ...nodeArgs(n, { etcdUrl: this.etcdUrl, clusterName: "test", leaseTtl: this.leaseTtl }, "info"), ...this.extraArgs, ...(n.extraArgs ?? []), ...mqtt, ...stomp];
    const p = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    n.proc = p;
    // A port found free a moment ago may be taken by another test's process before the node binds
    // it (files run in parallel; a node restarted on its old ports is the likeliest victim): a
    // node whose AMQP port is taken exits at once, one whose HTTP port is taken serves on without
    // it (and so would answer no test). Either starts again on fresh ports.
    const startedAt = Date.now();
    let early = "";
    let portTaken = false;
    const keep = (d: Buffer): void => {
      const text = d.toString();
      n.log = (n.log + text).slice(-200_000);
      if (portTaken || Date.now() - startedAt > 15_000) return;
      early += text;
      // Only the management port: a test may share another side port on purpose (Prometheus).
      if (early.split("\n").some((l) => l.includes("EADDRINUSE") && l.includes('"protocol":"http",'))) {
        portTaken = true;
        p.kill("SIGKILL");
      }
    };
    p.stdout?.on("data", keep);
    p.stderr?.on("data", keep);
    p.once("exit", (code) => {
      if (code === 1 && Date.now() - startedAt <= 15_000 && early.includes("EADDRINUSE")) portTaken = true;
      if (n.proc !== p || !portTaken || !open.has(this)) return;
      void (async () => {
        n.amqpPort = await freePort();
        n.httpPort = await freePort();
        if (n.metricsPort !== undefined) n.metricsPort = await freePort();
        if (n.mqttPort !== undefined) n.mqttPort = await freePort();
        if (n.stompPort !== undefined) n.stompPort = await freePort();
        n.log += "\n[fixture: a port was taken; restarting on fresh ports]\n";
        if (n.proc === p) this.startNode(n);
      })();
    });
  }

  kill(n: NodeInfo, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    const p = n.proc;
    n.proc = null;
    if (!p || p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      p.once("exit", () => resolve());
      p.kill(signal);
    });
  }

  /** SIGSTOP / SIGCONT a node or etcd: a process that is alive but does nothing (a stalled machine, a partition). */
  signal(p: ChildProcess | null, signal: "SIGSTOP" | "SIGCONT"): void {
    const running = p !== null && p.exitCode === null && p.signalCode === null;
    // A stop that stops nothing would make the test's premise false without a word (a SIGCONT after a death is harmless).
    if (!running && signal === "SIGSTOP") throw new Error("SIGSTOP of a process that is not running");
    if (running) p.kill(signal);
  }

  /**
   * SIGSTOP, resolved once every thread of `p` is stopped. kill() returns when the signal is sent,
   * not when the process stops: the kernel stops a multi-threaded process thread by thread as each
   * next passes through the kernel, and a loaded etcd (Go, many threads) was measured answering a
   * request sent 3-32 ms after kill() returned in 6 of 100 tries (0 of 100 after this wait). A test
   * whose premise is "stopped now" (nothing it sends next is answered) awaits this.
   */
  async stopped(p: ChildProcess | null): Promise<void> {
    this.signal(p, "SIGSTOP");
    const pid = p!.pid!;
    await eventually(() => everyThreadStopped(pid), 10_000, `every thread of process ${pid} stopped`);
  }

  /** A key of this cluster in etcd (under /coney/test/), read directly; null when absent. */
  async etcdKey(key: string): Promise<string | null> {
    const etcd = new Etcd3({ hosts: this.etcdUrl });
    try {
      return await etcd.get(`/coney/test/${key}`).string();
    } finally {
      etcd.close();
    }
  }

  /** A node's replication port, as it registered it in etcd. */
  async replicationPort(n: NodeInfo): Promise<number> {
    const port = (JSON.parse((await this.etcdKey(`members/${n.name}`)) ?? "{}") as { clusterPort?: number }).clusterPort ?? 0;
    if (port <= 0) throw new Error(`${n.name} has no replication port in etcd`);
    return port;
  }

  /** Times (ms since the epoch) at which a node logged `msg`. */
  logTimes(n: NodeInfo, msg: string): number[] {
    const out: number[] = [];
    for (const line of n.log.split("\n")) {
      if (!line.includes(`"msg":"${msg}"`)) continue;
      const m = /"time":"([^"]+)"/.exec(line);
      if (m) out.push(Date.parse(m[1]!));
    }
    return out;
  }

  /** GET /api/nodes through a node's HTTP port (its own answer, or the leader's through its proxy). */
  async nodesVia(n: NodeInfo): Promise<NodesEntry[] | null> {
    try {
      const r = await fetch(`http://127.0.0.1:${n.httpPort}/api/nodes`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` }, signal: AbortSignal.timeout(2000) });
      return r.ok ? ((await r.json()) as NodesEntry[]) : null;
    } catch {
      return null;
    }
  }

  /** The node whose log says it serves as leader, most recent first, among live ones. */
  async waitForLeader(except: NodeInfo | null = null, ms = 30_000): Promise<NodeInfo> {
    let found: NodeInfo | null = null;
    await eventually(async () => {
      for (const n of this.nodes) {
        if (!n.proc || n === except) continue;
        const list = await this.nodesVia(n);
        const leader = list?.find((e) => e.cluster_leader);
        const node = leader ? this.nodes.find((x) => x.name === leader.name && x.proc && x !== except) : undefined;
        if (node) {
          found = node;
          return true;
        }
      }
      return false;
    }, ms, "a leader");
    return found!;
  }

  /** Waits until the leader lists `count` nodes in sync. */
  async waitForInSync(count: number, ms = 30_000): Promise<NodesEntry[]> {
    let last: NodesEntry[] = [];
    await eventually(async () => {
      const leader = await this.waitForLeader(null, ms);
      last = (await this.nodesVia(leader)) ?? [];
      return last.filter((e) => e.in_sync).length >= count;
    }, ms, `${count} nodes in sync`);
    return last;
  }

  url(n: NodeInfo): string {
    return `amqp://guest:guest@127.0.0.1:${n.amqpPort}`;
  }

  logs(): string {
    return this.nodes.map((n) => `----- ${n.name}\n${n.log.slice(-6000)}`).join("\n");
  }

  async close(): Promise<void> {
    open.delete(this);
    for (const n of this.nodes) this.signal(n.proc, "SIGCONT");
    await Promise.all(this.nodes.map((n) => this.kill(n)));
    const e = this.etcd;
    this.etcd = null;
    if (e && e.exitCode === null && e.signalCode === null) {
      e.kill("SIGCONT");
      await new Promise<void>((resolve) => {
        e.once("exit", () => resolve());
        e.kill("SIGKILL");
      });
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Whether every thread of `pid` is stopped (Linux: state T, or t when traced, in /proc/<pid>/task/<tid>/stat). */
export function everyThreadStopped(pid: number): boolean {
  return readdirSync(`/proc/${pid}/task`).every((tid) => {
    try {
      const state = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]?.[0];
      return state === "T" || state === "t";
    } catch {
      return true; // the thread ended
    }
  });
}

/**
 * A cluster for one test suite: started with every node in sync before the tests, closed after
 * them, and its nodes' logs printed unless `pass()` was called (so a failure shows what they did).
 */
export function suiteCluster(size = 3, extraArgs: string[] = [], withMqtt = false): { cluster: TestCluster; pass(): void } {
  const cluster = new TestCluster(size, 3, extraArgs, false, withMqtt);
  let passed = false;
  before(async () => {
    await cluster.start();
    await cluster.waitForInSync(size);
  });
  after(async () => {
    if (!passed) console.error(cluster.logs());
    await cluster.close();
  });
  return { cluster, pass: () => void (passed = true) };
}
