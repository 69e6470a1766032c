/**
 * Two "machines" of workers as spread-cluster nodes (docs/CLUSTERING.md, "Workers as spread-cluster
 * nodes", "Copies on other machines"): two `coney --workers 2 --cluster-mode spread` process trees
 * on loopback, each on its own data dir and ports, named `a@<host>` and `b@<host>` (so their
 * workers are `a-w0@<host>` … `b-w1@<host>`), on one real etcd, with balanced placement. The one
 * fixture of every two-machine test file: the chaos cases, where a machine can be stalled
 * (SIGSTOP), killed -9 whole (primary and workers) or stopped with SIGTERM and started again on its
 * data dir, and the workers-spread files.
 */
import { after, before } from "node:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChannelModel } from "amqplib";
import { TestCluster, everyThreadStopped } from "../cluster/cluster-fixture.js";
import { eventually, withTimeout } from "../helpers/wait.js";
import { alive, startWorkers, type WorkersProcess } from "./workers-harness.js";
import { Publisher, Tally, consumeAll } from "../cluster/chaos-load.js";
import { connectSurviving } from "./workers-clients.js";
import { freshGet } from "./worker-landing.js";

export const MACHINES = ["a", "b"] as const;
export type MachineName = (typeof MACHINES)[number];
export const machineOfNode = (node: string): MachineName => (node.startsWith("a-") ? "a" : "b");

/** How one machine is started. */
export interface MachineSetup {
  /** The host part of its node name: two machines with one host are one machine to the machine rule. */
  readonly host: string;
  /** --etcd-lease-ttl, in seconds. */
  readonly leaseTtl: number;
  /** Extra environment for its process tree. */
  readonly env?: NodeJS.ProcessEnv;
}

/** `a@ma` and `b@mb`, leases of 3 s: two machines to the machine rule (the chaos cases). */
export const TWO_HOSTS: Readonly<Record<MachineName, MachineSetup>> = { a: { host: "ma", leaseTtl: 3 }, b: { host: "mb", leaseTtl: 3 } };

/**
 * `a@test` and `b@test` (one machine to the machine rule, so placement and adoption are the node
 * rules alone) for the workers-spread files: machine a restarts a dead worker at once, well inside
 * its lease (10 s, so even a loaded machine's restart is); machine b only after its lease (3 s)
 * expired, so its store is adopted meanwhile.
 */
export const RESTART_OR_ADOPT: Readonly<Record<MachineName, MachineSetup>> = {
  a: { host: "test", leaseTtl: 10 },
  b: { host: "test", leaseTtl: 3, env: { CONEY_WORKERS_RESTART_DELAY_MS: "6000" } },
};

export interface QueueRow {
  readonly name: string;
  readonly node?: string;
  readonly members?: string[];
  readonly online?: string[];
  readonly replica_placement?: string;
}

/** A node as /api/nodes lists it. */
export interface NodeRow {
  readonly name: string;
  readonly running: boolean;
  readonly os_pid?: string;
  readonly adopted_by?: string;
}

export class Machines {
  readonly etcd = new TestCluster(0);
  readonly running = new Map<MachineName, WorkersProcess>();
  readonly dataDirs = new Map<MachineName, string>(MACHINES.map((m) => [m, mkdtempSync(join(tmpdir(), `coney-machine-${m}-`))]));
  readonly open: ChannelModel[] = [];
  /** Every worker's node name, machine a's first. */
  readonly nodeNames: readonly string[];
  /** Every queue declared through `declare` so far: the next declare waits until they are known with their homes. */
  readonly declared: string[] = [];

  constructor(private readonly setups: Readonly<Record<MachineName, MachineSetup>> = TWO_HOSTS) {
    this.nodeNames = MACHINES.flatMap((m) => [0, 1].map((w) => `${m}-w${w}@${setups[m].host}`));
  }

  async start(): Promise<void> {
    await this.etcd.startEtcd();
    await Promise.all(MACHINES.map((m) => this.startMachine(m)));
  }

  /** Starts machine `m` on its data dir (again, after a stop). */
  async startMachine(m: MachineName): Promise<WorkersProcess> {
    const { host, leaseTtl, env = {} } = this.setups[m];
    const args = ["--etcd-endpoints", this.etcd.etcdUrl, "--cluster-mode", "spread", "--cluster-name", "machines", "--advertise-address", "127.0.0.1", "--stream-advertised-host", "127.0.0.1", "--queue-leader-locator", "balanced", "--log-level", "info", "--node-name", `${m}@${host}`, "--etcd-lease-ttl", String(leaseTtl)];
    const p = await startWorkers(args, env, this.dataDirs.get(m)!);
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

  /**
   * SIGSTOP to machine `m`'s whole process tree (alive, its sockets open and silent, as behind a cut
   * network); resolves once every thread of it is stopped. Returns its pids for `resumeMachine`.
   */
  async stallMachine(m: MachineName): Promise<number[]> {
    const pids = this.pids(m);
    for (const pid of pids) process.kill(pid, "SIGSTOP");
    await eventually(() => pids.every((pid) => everyThreadStopped(pid)), 10_000, `machine ${m}'s processes stopped`);
    return pids;
  }

  /** SIGCONT to the processes `stallMachine` stopped. */
  resumeMachine(pids: readonly number[]): void {
    for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGCONT");
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

  /** /api/nodes of machine `m` on a new TCP connection: answered by either of its workers (each from its own links). */
  async nodeRows(m: MachineName): Promise<NodeRow[]> {
    return (await freshGet(this.of(m).httpPort, "/api/nodes")) as NodeRow[];
  }

  /** Each node's process id, as machine `m`'s /api/nodes says now. */
  async nodePids(m: MachineName): Promise<Map<string, string>> {
    return new Map((await this.nodeRows(m)).map((r) => [r.name, r.os_pid ?? ""]));
  }

  /**
   * Every node of `nodes` running with a process id (not the one `unlike` names: a restarted
   * worker's old one) in machine `m`'s /api/nodes, four answers in a row on fresh connections: the
   * primary hands connections out round-robin, so both its workers said so.
   */
  allRunning(m: MachineName, { nodes = this.nodeNames, unlike = new Map() }: { nodes?: readonly string[]; unlike?: ReadonlyMap<string, string> } = {}): Promise<void> {
    return eventually(async () => {
      for (let i = 0; i < 4; i++) {
        const rows = await this.nodeRows(m).catch(() => [] as NodeRow[]);
        if (!nodes.every((n) => rows.some((r) => r.name === n && r.running && r.os_pid !== undefined && r.os_pid !== unlike.get(n)))) return false;
      }
      return true;
    }, 40_000, `${nodes.join(", ")} running in machine ${m}'s /api/nodes`);
  }

  /** vhost "/"'s queues as machine `m` lists them now. */
  async queues(m: MachineName): Promise<QueueRow[]> {
    return (await freshGet(this.of(m).httpPort, "/api/queues/%2F?columns=name,node,members,online,replica_placement").catch(() => [])) as QueueRow[];
  }

  /**
   * Declares `names` durable (with `args`) through machine `m`, a batch after both its workers know
   * every queue declared so far with its home (balanced then spreads a batch of four over the four
   * workers); resolves with their homes once `m` lists them all.
   */
  async declare(m: MachineName, names: readonly string[], args?: Record<string, unknown>): Promise<Map<string, string>> {
    const knows = async (want: readonly string[]): Promise<boolean> => {
      for (let i = 0; i < 4; i++) {
        const list = await this.queues(m);
        if (!want.every((q) => list.some((x) => x.name === q && x.node !== undefined))) return false;
      }
      return true;
    };
    await eventually(() => knows(this.declared), 15_000, "every queue declared so far known with its home");
    const ch = await (await this.connect(m)).createChannel();
    for (const q of names) await ch.assertQueue(q, { durable: true, arguments: args });
    await ch.close();
    this.declared.push(...names);
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

/** Registers the calling describe's before/after: etcd and both machines started before its tests, closed after. */
export function twoMachines(setups: Readonly<Record<MachineName, MachineSetup>> = TWO_HOSTS): Machines {
  const machines = new Machines(setups);
  before(() => machines.start());
  after(() => machines.close());
  return machines;
}

/** A confirmed load on machine b over queues homed on both machines (loadOnB). */
export interface MachineLoad {
  readonly homes: Map<string, string>;
  readonly all: string[];
  /** The queues homed on machine a, and on machine b. */
  readonly onA: string[];
  readonly onB: string[];
  readonly tally: Tally;
  readonly pub: Publisher;
  /** Confirms of `queues` after `at` (Date.now()). */
  confirmsAfter(queues: readonly string[], at: number): number;
}

/**
 * Four durable queues `<prefix>-0..3` declared through machine b (balanced: one per worker, so on
 * both machines), a consumer of every queue and a publisher with `window` confirms in flight per
 * queue on machine b; resolves once every queue confirms and every store's copies are on the other
 * machine too (`replica_placement`: the machine rule).
 */
export async function loadOnB(machines: Machines, prefix: string, window: number): Promise<MachineLoad> {
  await Promise.all([machines.allRunning("a"), machines.allRunning("b")]);
  const homes = await machines.declare("b", [0, 1, 2, 3].map((i) => `${prefix}-${i}`));
  const all = [...homes.keys()];
  const onA = all.filter((q) => machineOfNode(homes.get(q)!) === "a");
  const onB = all.filter((q) => machineOfNode(homes.get(q)!) === "b");
  if (onA.length === 0 || onB.length === 0) throw new Error(`queues not on both machines: ${all.map((q) => `${q}=${homes.get(q)}`).join(", ")}`);
  const tally = new Tally();
  await consumeAll(await machines.connect("b"), all, tally);
  const pub = new Publisher("b", await machines.connect("b"), window);
  await pub.start(all);
  await eventually(() => all.every((q) => pub.confirmTimes.get(q)!.length >= 20), 30_000, "every queue confirming");
  await eventually(() => copiesOnOtherMachines(machines, all), 20_000, "every queue's copies on the other machine too");
  const confirmsAfter = (queues: readonly string[], at: number): number => queues.reduce((n, q) => n + pub.confirmsAfter(q, at), 0);
  return { homes, all, onA, onB, tally, pub, confirmsAfter };
}

/** Every queue of `all`, as machine b lists it, has an in-sync copy on a machine other than its home's. */
export async function copiesOnOtherMachines(machines: Machines, all: readonly string[]): Promise<boolean> {
  const list = await machines.queues("b");
  return all.every((q) => list.find((x) => x.name === q)?.replica_placement === "other-machines");
}
