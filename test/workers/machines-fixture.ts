/**
 * Two "machines" for the chaos cases of workers as spread nodes (docs/CLUSTERING.md, "Copies on
 * other machines"): two `coney --workers 2 --cluster-mode spread` process trees on loopback, named
 * `a@ma` and `b@mb` (so their workers are `a-w0@ma`, `a-w1@ma`, `b-w0@mb`, `b-w1@mb`: two machine
 * names), on one real etcd, with balanced placement. A machine can be killed -9 whole (primary and
 * workers) or stopped with SIGTERM and started again on its data dir.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChannelModel } from "amqplib";
import { TestCluster } from "../cluster/cluster-fixture.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { alive, startWorkers, type WorkersProcess } from "./workers-harness.js";
import { connectSurviving } from "./workers-clients.js";
import { freshGet } from "./worker-landing.js";

export const MACHINES = ["a", "b"] as const;
export type MachineName = (typeof MACHINES)[number];
export const NODES = ["a-w0@ma", "a-w1@ma", "b-w0@mb", "b-w1@mb"];
export const machineOfNode = (node: string): MachineName => (node.startsWith("a-") ? "a" : "b");

export interface QueueRow {
  readonly name: string;
  readonly node?: string;
  readonly members?: string[];
  readonly online?: string[];
  readonly replica_placement?: string;
}

export class Machines {
  readonly etcd = new TestCluster(0);
  readonly running = new Map<MachineName, WorkersProcess>();
  readonly dataDirs = new Map<MachineName, string>(MACHINES.map((m) => [m, mkdtempSync(join(tmpdir(), `coney-machine-${m}-`))]));
  readonly open: ChannelModel[] = [];

  constructor(private readonly leaseTtl = 3) {}

  async start(): Promise<void> {
    await this.etcd.startEtcd();
    await Promise.all(MACHINES.map((m) => this.startMachine(m)));
  }

  /** Starts machine `m` on its data dir (again, after a stop). */
  async startMachine(m: MachineName): Promise<WorkersProcess> {
    const args = ["--etcd-endpoints", this.etcd.etcdUrl, "--cluster-mode", "spread", "--cluster-name", "machines", "--advertise-address", "127.0.0.1", "--stream-advertised-host", "127.0.0.1", "--queue-leader-locator", "balanced", "--log-level", "info", "--node-name", `${m}@m${m}`, "--etcd-lease-ttl", String(this.leaseTtl)];
    const p = await startWorkers(args, {}, this.dataDirs.get(m)!);
    this.running.set(m, p);
    return p;
  }

  of(m: MachineName): WorkersProcess {
    return this.running.get(m)!;
  }

  /** Every process of machine `m`'s tree alive now: its primary and its workers. */
  pids(m: MachineName): number[] {
    const p = this.of(m);
    const workers = p.lines.filter((l) => l.msg === "worker started" && typeof l["pid"] === "number").map((l) => l["pid"] as number);
    return [p.child.pid!, ...workers].filter(alive);
  }

  /** kill -9 of machine `m`'s whole process tree at once; resolves once none of it is alive. */
  async killMachine(m: MachineName): Promise<void> {
    const pids = this.pids(m);
    for (const pid of pids) process.kill(pid, "SIGKILL");
    await eventually(() => pids.every((pid) => !alive(pid)), 10_000, `machine ${m}'s processes to die`);
    await this.of(m).exited;
  }

  /** SIGTERM to machine `m`'s primary; resolves once its tree has exited. */
  async stopMachine(m: MachineName): Promise<void> {
    const pids = this.pids(m);
    this.of(m).child.kill("SIGTERM");
    await withTimeout(this.of(m).exited, 30_000, `machine ${m} to stop on SIGTERM`);
    await eventually(() => pids.every((pid) => !alive(pid)), 15_000, `machine ${m}'s workers to exit`);
  }

  connect(m: MachineName): Promise<ChannelModel> {
    return connectSurviving(this.of(m), this.open);
  }

  /** Every node of `nodes` running in machine `m`'s /api/nodes, four answers in a row (both its workers answered). */
  allRunning(m: MachineName, nodes: readonly string[] = NODES): Promise<void> {
    return eventually(async () => {
      for (let i = 0; i < 4; i++) {
        const rows = (await freshGet(this.of(m).httpPort, "/api/nodes").catch(() => [])) as Array<{ name: string; running: boolean }>;
        if (!nodes.every((n) => rows.some((r) => r.name === n && r.running))) return false;
      }
      return true;
    }, 40_000, `${nodes.join(", ")} running in machine ${m}'s /api/nodes`);
  }

  /** vhost "/"'s queues as machine `m` lists them now. */
  async queues(m: MachineName): Promise<QueueRow[]> {
    return (await freshGet(this.of(m).httpPort, "/api/queues/%2F?columns=name,node,members,online,replica_placement").catch(() => [])) as QueueRow[];
  }

  /**
   * Declares `names` durable through machine `m`, a batch after both its workers know every queue
   * of `known` with its home (balanced then spreads the batch over the four workers); their homes.
   */
  async declare(m: MachineName, names: readonly string[], known: readonly string[] = []): Promise<Map<string, string>> {
    const knows = async (want: readonly string[]): Promise<boolean> => {
      for (let i = 0; i < 4; i++) {
        const list = await this.queues(m);
        if (!want.every((q) => list.some((x) => x.name === q && x.node !== undefined))) return false;
      }
      return true;
    };
    await eventually(() => knows(known), 15_000, "every queue declared so far known with its home");
    const ch = await (await this.connect(m)).createChannel();
    for (const q of names) await ch.assertQueue(q, { durable: true });
    await ch.close();
    await eventually(() => knows(names), 15_000, "the new queues listed with their homes");
    const list = await this.queues(m);
    return new Map(names.map((q) => [q, list.find((x) => x.name === q)!.node!]));
  }

  async close(): Promise<void> {
    await Promise.all(this.open.map((c) => withTimeout(c.close(), 2000, "close").catch(() => {})));
    // close() removes the data dir: each machine's current process tree (an earlier, stopped one has exited).
    await Promise.all([...this.running.values()].map((p) => p.close()));
    await this.etcd.close();
  }
}
