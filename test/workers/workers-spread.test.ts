// `coney --workers 2 --etcd-endpoints … --cluster-mode spread` on two "machines" (two primaries, each
// its own data dir and ports) sharing one real etcd: every worker is a spread-cluster node of its own
// (docs/CLUSTERING.md, "Workers as spread-cluster nodes"), so the cluster has four queue homes.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ChannelModel, ConfirmChannel } from "amqplib";
import { TestCluster } from "../cluster/cluster-fixture.js";
import { alive, startWorkers, type WorkersProcess } from "./workers-harness.js";
import { connectSurviving, queueNodes } from "./workers-clients.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";

interface NodeRow {
  readonly name: string;
  readonly running: boolean;
  readonly os_pid?: string;
}

const NODES = ["a-w0@test", "a-w1@test", "b-w0@test", "b-w1@test"];

describe("workers as spread-cluster nodes: two machines of two workers on one etcd", () => {
  const etcd = new TestCluster(0);
  const machines: WorkersProcess[] = [];
  const open: ChannelModel[] = [];
  const a = (): WorkersProcess => machines[0]!;
  const b = (): WorkersProcess => machines[1]!;

  const nodesOf = async (p: WorkersProcess): Promise<NodeRow[]> => (await p.api("GET", "/api/nodes")).json as NodeRow[];
  /** Every worker of both machines running in `p`'s /api/nodes, each with its process id; `pidOf` what it says. */
  const allRunning = (p: WorkersProcess, unlike: ReadonlyMap<string, string> = new Map()): Promise<void> =>
    eventually(async () => {
      const rows = await nodesOf(p).catch(() => [] as NodeRow[]);
      return NODES.every((n) => rows.some((r) => r.name === n && r.running && r.os_pid !== undefined && r.os_pid !== unlike.get(n)));
    }, 30_000, "every worker of both machines running in /api/nodes");
  const pids = async (p: WorkersProcess): Promise<Map<string, string>> => new Map((await nodesOf(p)).map((r) => [r.name, r.os_pid ?? ""]));

  before(async () => {
    await etcd.startEtcd();
    const cluster = ["--etcd-endpoints", etcd.etcdUrl, "--cluster-mode", "spread", "--cluster-name", "test", "--advertise-address", "127.0.0.1", "--etcd-lease-ttl", "3", "--queue-leader-locator", "balanced", "--log-level", "info"];
    machines.push(...(await Promise.all(["a@test", "b@test"].map((name) => startWorkers([...cluster, "--node-name", name])))));
  });

  after(async () => {
    await Promise.all(open.map((c) => withTimeout(c.close(), 2000, "close").catch(() => {})));
    await Promise.all(machines.map((m) => m.close()));
    await etcd.close();
  });

  it("lists all four workers in /api/nodes of each machine, each with its own os_pid", async () => {
    await allRunning(a());
    await allRunning(b());
    const seen = await pids(a());
    assert.equal(new Set(NODES.map((n) => seen.get(n))).size, 4, `four processes: ${[...seen].join(", ")}`);
    assert.deepEqual(await pids(b()), seen, "both machines name the same processes");
  });

  it("places queues declared through each machine on different workers, publishes across machines with confirms, and a consumer gets them in order", async () => {
    await allRunning(a());
    await allRunning(b());
    const homes = new Map<string, string>();
    for (const [m, p] of [["a", a()], ["b", b()]] as const) {
      const ch = await (await connectSurviving(p, open)).createChannel();
      const names = [0, 1, 2, 3].map((i) => `ws-${m}${i}`);
      for (const q of names) await ch.assertQueue(q, { durable: true });
      await ch.close();
      await eventually(async () => {
        const listed = await queueNodes(p);
        return names.every((q) => listed.get(q) !== undefined);
      }, 10_000, `machine ${m}'s queues listed with their homes`);
      const listed = await queueNodes(p);
      for (const q of names) homes.set(q, listed.get(q)!);
      // Balanced over four equally loaded workers: one queue on each.
      assert.equal(new Set(names.map((q) => homes.get(q))).size, 4, `balanced over four workers: ${names.map((q) => `${q}=${homes.get(q)}`).join(", ")}`);
    }
    // A client of machine a publishes with confirms to a queue homed on each worker of machine b.
    const onB = [...homes].filter(([, n]) => n.startsWith("b-")).map(([q]) => q);
    const targets = ["b-w0@test", "b-w1@test"].map((n) => onB.find((q) => homes.get(q) === n)!);
    const pub = await (await connectSurviving(a(), open)).createConfirmChannel();
    for (let i = 0; i < 100; i++) for (const q of targets) pub.sendToQueue(q, Buffer.from(`${q}-${i}`), { persistent: true });
    await withTimeout(pub.waitForConfirms(), 20_000, "the confirms from machine b's workers");
    const sub = await (await connectSurviving(a(), open)).createChannel();
    for (const q of targets) {
      const got = collector<string>(100);
      await sub.consume(q, (m) => m && got.push(m.content.toString()), { noAck: true });
      assert.deepEqual(await withTimeout(got.done, 20_000, `the messages of ${q}`), Array.from({ length: 100 }, (_, i) => `${q}-${i}`));
    }
    await sub.close();
  });

  it("a worker killed -9: only its queues pause, the others keep confirming; after its restart every confirmed message is there", async () => {
    await allRunning(a());
    await allRunning(b());
    const ch = await (await connectSurviving(a(), open)).createChannel();
    const queues = [0, 1, 2, 3].map((i) => `wk-${i}`);
    for (const q of queues) await ch.assertQueue(q, { durable: true });
    await ch.close();
    await eventually(async () => {
      const listed = await queueNodes(a());
      return queues.every((q) => listed.get(q) !== undefined);
    }, 10_000, "the queues listed with their homes");
    const homes = await queueNodes(a());
    const victim = "b-w1@test";
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
    const conn = await connectSurviving(a(), open);
    const pub = await conn.createConfirmChannel();
    pub.on("error", () => {});
    for (let i = 0; i < 20; i++) for (const q of queues) assert.ok(await publish(pub, q, `before-${i}`), `${q} confirms before the kill`);

    const before = await pids(a());
    const pid = Number(before.get(victim));
    process.kill(pid, "SIGKILL");
    await eventually(() => !alive(pid), 5000, "the worker to die");
    // While it is away (and after): every other worker's queue confirms, each publish on its own.
    for (let i = 0; i < 20; i++) for (const q of others) assert.ok(await withTimeout(publish(pub, q, `during-${i}`), 5000, `a confirm from ${q}`), `${q} confirms with ${victim} dead`);
    // Its primary restarts it on its own store; every node lists the new process.
    await allRunning(a(), new Map([[victim, String(pid)]]));
    await allRunning(b(), new Map([[victim, String(pid)]]));
    await eventually(async () => {
      const again = await connectSurviving(a(), open);
      const c = await again.createConfirmChannel();
      c.on("error", () => {});
      return publish(c, victimQueues[0]!, "after").catch(() => false);
    }, 20_000, `${victimQueues[0]} to confirm again`);
    const sub = await (await connectSurviving(b(), open)).createChannel();
    for (const q of queues) {
      const want = sent.get(q)!;
      const got = collector<string>(want.length);
      await sub.consume(q, (m) => m && got.push(m.content.toString()), { noAck: true });
      assert.deepEqual(await withTimeout(got.done, 20_000, `every confirmed message of ${q}`), want);
    }
    await sub.close();
  });
});
