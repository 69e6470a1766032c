/**
 * Two "machines" of `coney --workers 2 --etcd-endpoints … --cluster-mode spread` (two primaries,
 * each its own data dir and ports) sharing one real etcd, for the workers-spread test files
 * (docs/CLUSTERING.md, "Workers as spread-cluster nodes"): started before the file's tests,
 * closed after. Machine a restarts a dead worker at once, well inside its lease (10 s); machine b
 * only after its lease (3 s) expired, so its store is adopted meanwhile. Split over two files so
 * that each stays well inside the runner's 120 s per file on a loaded machine (one file of all five
 * cases ran into it: 3 of 15 runs beside two CPU hogs and two spread-cluster loops).
 */
import { after, before } from "node:test";
import assert from "node:assert/strict";
import type { ChannelModel, ConfirmChannel } from "amqplib";
import { TestCluster } from "../cluster/cluster-fixture.js";
import { alive, startWorkers, type WorkersProcess } from "./workers-harness.js";
import { connectSurviving, queueNodes } from "./workers-clients.js";
import { freshGet } from "./worker-landing.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";

export interface NodeRow {
  readonly name: string;
  readonly running: boolean;
  readonly os_pid?: string;
}

export const NODES = ["a-w0@test", "a-w1@test", "b-w0@test", "b-w1@test"];

/** Confirmed publishes per queue before the kill, and per other queue while the victim is away. */
const ROUNDS = 10;

export interface SpreadMachines {
  a(): WorkersProcess;
  b(): WorkersProcess;
  /** The test's amqplib connections, closed after the file. */
  readonly open: ChannelModel[];
  /** Every queue declared so far (knowsAll waits for all of them). */
  readonly declared: string[];
  nodesOf(p: WorkersProcess): Promise<NodeRow[]>;
  allRunning(p: WorkersProcess, unlike?: ReadonlyMap<string, string>): Promise<void>;
  knowsAll(p: WorkersProcess): Promise<void>;
  pids(p: WorkersProcess): Promise<Map<string, string>>;
  killOne(victim: string, prefix: string, back: (pid: number, victimQueue: string, publishAgain: () => Promise<boolean>) => Promise<void>): Promise<void>;
}

/** Registers the file's before/after: etcd and the two machines. */
export function spreadMachines(): SpreadMachines {
  const etcd = new TestCluster(0);
  const machines: WorkersProcess[] = [];
  const open: ChannelModel[] = [];
  const a = (): WorkersProcess => machines[0]!;
  const b = (): WorkersProcess => machines[1]!;

  /** /api/nodes on a new TCP connection: answered by either worker of the machine (each answers from its own links). */
  const nodesOf = async (p: WorkersProcess): Promise<NodeRow[]> => (await freshGet(p.httpPort, "/api/nodes")) as NodeRow[];
  /**
   * Every worker of both machines running in `p`'s /api/nodes, each with its process id (not the
   * one in `unlike`), in four answers in a row: the primary hands connections out round-robin, so
   * both of the machine's workers said so (`balanced` then places on every node from either).
   */
  const allRunning = (p: WorkersProcess, unlike: ReadonlyMap<string, string> = new Map()): Promise<void> =>
    eventually(async () => {
      for (let i = 0; i < 4; i++) {
        const rows = await nodesOf(p).catch(() => [] as NodeRow[]);
        if (!NODES.every((n) => rows.some((r) => r.name === n && r.running && r.os_pid !== undefined && r.os_pid !== unlike.get(n)))) return false;
      }
      return true;
    }, 30_000, "every worker of both machines running in /api/nodes");
  /** Every queue declared so far, with its home. */
  const declared: string[] = [];
  /**
   * Before a batch is declared through machine `p`: both its workers (four answers in a row on
   * fresh connections) know every queue declared so far with its home, so `balanced` counts them
   * all wherever the declare lands and one batch of four goes one to each worker.
   */
  const knowsAll = (p: WorkersProcess): Promise<void> =>
    eventually(async () => {
      for (let i = 0; i < 4; i++) {
        const list = (await freshGet(p.httpPort, "/api/queues/%2F?columns=name,node").catch(() => [])) as Array<{ name: string; node?: string }>;
        if (!declared.every((q) => list.some((x) => x.name === q && x.node !== undefined))) return false;
      }
      return true;
    }, 15_000, "every queue declared so far known with its home on both workers");
  const pids = async (p: WorkersProcess): Promise<Map<string, string>> => new Map((await nodesOf(p)).map((r) => [r.name, r.os_pid ?? ""]));

  before(async () => {
    await etcd.startEtcd();
    const cluster = ["--etcd-endpoints", etcd.etcdUrl, "--cluster-mode", "spread", "--cluster-name", "test", "--advertise-address", "127.0.0.1", "--stream-advertised-host", "127.0.0.1", "--queue-leader-locator", "balanced", "--log-level", "info"];
    // Machine a restarts a dead worker at once, well inside its lease (10 s, so even a loaded machine's restart is);
    // machine b only after its lease (3 s) expired: its store is adopted meanwhile.
    const onA = startWorkers([...cluster, "--node-name", "a@test", "--etcd-lease-ttl", "10"]);
    const onB = startWorkers([...cluster, "--node-name", "b@test", "--etcd-lease-ttl", "3"], { CONEY_WORKERS_RESTART_DELAY_MS: "6000" });
    machines.push(...(await Promise.all([onA, onB])));
  });

  after(async () => {
    await Promise.all(open.map((c) => withTimeout(c.close(), 2000, "close").catch(() => {})));
    await Promise.all(machines.map((m) => m.close()));
    await etcd.close();
  });

  /**
   * Queues one per worker; `victim` killed -9 under confirms to the others; every confirmed message
   * of every queue there after `back` (its restart, or its store adopted then handed back).
   */
  const killOne = async (victim: string, prefix: string, back: (pid: number, victimQueue: string, publishAgain: () => Promise<boolean>) => Promise<void>): Promise<void> => {
    await allRunning(a());
    await allRunning(b());
    const ch = await (await connectSurviving(a(), open)).createChannel();
    const queues = [0, 1, 2, 3].map((i) => `${prefix}-${i}`);
    await knowsAll(a());
    for (const q of queues) await ch.assertQueue(q, { durable: true });
    declared.push(...queues);
    await ch.close();
    await eventually(async () => {
      const listed = await queueNodes(a());
      return queues.every((q) => listed.get(q) !== undefined);
    }, 10_000, "the queues listed with their homes");
    const homes = await queueNodes(a());
    const victimQueues = queues.filter((q) => homes.get(q) === victim);
    const others = queues.filter((q) => homes.get(q) !== victim);
    assert.ok(victimQueues.length === 1 && others.length === 3, `one queue on each worker: ${queues.map((q) => `${q}=${homes.get(q)}`).join(", ")}`);
    const sent = new Map<string, string[]>(queues.map((q) => [q, []]));
    const publish = async (c: ConfirmChannel, q: string, tag: string): Promise<boolean> => {
      const body = `${q}-${tag}`;
      const ok = await new Promise<boolean>((resolve) => c.sendToQueue(q, Buffer.from(body), { persistent: true }, (err) => resolve(err === null || err === undefined)));
      if (ok) sent.get(q)!.push(body);
      return ok;
    };
    // The publisher on the other machine: a connection to the victim's machine may have landed on the victim.
    const other = victim.startsWith("a-") ? b() : a();
    const pub = await (await connectSurviving(other, open)).createConfirmChannel();
    pub.on("error", () => {});
    for (let i = 0; i < ROUNDS; i++) for (const q of queues) assert.ok(await publish(pub, q, `before-${i}`), `${q} confirms before the kill`);

    const pid = Number((await pids(a())).get(victim));
    process.kill(pid, "SIGKILL");
    await eventually(() => !alive(pid), 5000, "the worker to die");
    // While it is away (and after): every other worker's queue confirms, each publish on its own.
    for (let i = 0; i < ROUNDS; i++) for (const q of others) assert.ok(await withTimeout(publish(pub, q, `during-${i}`), 5000, `a confirm from ${q}`), `${q} confirms with ${victim} dead`);
    let n = 0;
    const publishAgain = async (): Promise<boolean> => {
      const c = await (await connectSurviving(other, open)).createConfirmChannel();
      c.on("error", () => {});
      return withTimeout(publish(c, victimQueues[0]!, `again-${n++}`), 5000, "a confirm").catch(() => false);
    };
    await back(pid, victimQueues[0]!, publishAgain);
    const sub = await (await connectSurviving(b(), open)).createChannel();
    for (const q of queues) {
      const want = sent.get(q)!;
      const got = collector<string>(want.length);
      await sub.consume(q, (m) => m && got.push(m.content.toString()), { noAck: true });
      assert.deepEqual(await withTimeout(got.done, 20_000, `every confirmed message of ${q}`), want);
    }
    await sub.close();
  };

  return { a, b, open, declared, nodesOf, allRunning, knowsAll, pids, killOne };
}
