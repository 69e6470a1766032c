// `coney --workers 2 --etcd-endpoints … --cluster-mode spread` on two "machines" (two primaries, each
// its own data dir and ports) sharing one real etcd: every worker is a spread-cluster node of its own
// (docs/CLUSTERING.md, "Workers as spread-cluster nodes"), so the cluster has four queue homes. A
// worker killed -9 is restarted on its own store inside its lease, or (machine b's slow restart)
// its store is adopted by a follower meanwhile and taken back.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ChannelModel, ConfirmChannel } from "amqplib";
import { connect as streamConnect, Offset } from "rabbitmq-stream-js-client";
import { TestCluster } from "../cluster/cluster-fixture.js";
import { alive, startWorkers, type WorkersProcess } from "./workers-harness.js";
import { connectSurviving, queueNodes } from "./workers-clients.js";
import { freshGet } from "./worker-landing.js";
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
      await knowsAll(p);
      for (const q of names) await ch.assertQueue(q, { durable: true });
      declared.push(...names);
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

  it("the stream protocol: Metadata on either machine names a stream's home worker's own stream port, where a client publishes with confirms and reads", async () => {
    await allRunning(a());
    await allRunning(b());
    const ch = await (await connectSurviving(a(), open)).createChannel();
    // Four streams, balanced: one per worker (and the queue counts stay even for the cases below).
    const streams = [0, 1, 2, 3].map((i) => `wst-${i}`);
    await knowsAll(a());
    for (const q of streams) await ch.assertQueue(q, { durable: true, arguments: { "x-queue-type": "stream" } });
    declared.push(...streams);
    await ch.close();
    await eventually(async () => {
      const listed = await queueNodes(b());
      return streams.every((q) => listed.get(q) !== undefined);
    }, 10_000, "the streams listed with their homes on machine b");
    const homes = await queueNodes(b());
    assert.equal(new Set(streams.map((q) => homes.get(q))).size, 4, `one stream per worker: ${streams.map((q) => `${q}=${homes.get(q)}`).join(", ")}`);
    /** A worker's own stream port, from its machine's start line. */
    const ownPort = (node: string): number => {
      const m = node.startsWith("a-") ? a() : b();
      const started = m.lines.find((l) => l.msg === "Coney started")!;
      return (started["stream_worker_ports"] as number[])[Number(/-w(\d+)@/.exec(node)![1])]!;
    };
    const silent = { debug() {}, info() {}, warn() {}, error() {} };
    const sharedB = b().lines.find((l) => l.msg === "Coney started")!["stream_port"] as number;
    const c = await streamConnect({ hostname: "127.0.0.1", port: sharedB, username: "guest", password: "guest", vhost: "/", heartbeat: 0 }, silent);
    try {
      for (const q of streams) {
        const [meta] = await c.queryMetadata({ streams: [q] });
        assert.deepEqual({ host: meta!.leader?.host, port: meta!.leader?.port }, { host: "127.0.0.1", port: ownPort(homes.get(q)!) }, `Metadata names ${homes.get(q)}'s own stream port for ${q}`);
      }
      const onA = streams.find((q) => homes.get(q)!.startsWith("a-"))!;
      const publisher = await c.declarePublisher({ stream: onA, publisherRef: "wst-pub" });
      const confirmed = collector<bigint>(10);
      publisher.on("publish_confirm", (err, ids) => {
        assert.equal(err, null);
        for (const id of ids) confirmed.push(id);
      });
      for (let i = 0; i < 10; i++) await publisher.send(Buffer.from(`s${i}`), { publishingId: BigInt(i + 1) });
      await publisher.flush();
      assert.equal((await withTimeout(confirmed.done, 10_000, "10 stream confirms")).length, 10);
      const got = collector<string>(10);
      await c.declareConsumer({ stream: onA, offset: Offset.first() }, (m) => got.push(m.content.toString()));
      assert.deepEqual(await withTimeout(got.done, 10_000, "the 10 from the first offset"), Array.from({ length: 10 }, (_, i) => `s${i}`));
    } finally {
      await withTimeout(c.close(), 3000, "the stream client's close").catch(() => {});
    }
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
    for (let i = 0; i < 20; i++) for (const q of queues) assert.ok(await publish(pub, q, `before-${i}`), `${q} confirms before the kill`);

    const pid = Number((await pids(a())).get(victim));
    process.kill(pid, "SIGKILL");
    await eventually(() => !alive(pid), 5000, "the worker to die");
    // While it is away (and after): every other worker's queue confirms, each publish on its own.
    for (let i = 0; i < 20; i++) for (const q of others) assert.ok(await withTimeout(publish(pub, q, `during-${i}`), 5000, `a confirm from ${q}`), `${q} confirms with ${victim} dead`);
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

  it("a worker killed -9: only its queues pause, the others keep confirming; restarted at once on its own store, every confirmed message is there", async () => {
    const victim = "a-w1@test";
    await killOne(victim, "wk", async (pid, q, publishAgain) => {
      // Its primary restarts it on its own store; every node lists the new process.
      await allRunning(a(), new Map([[victim, String(pid)]]));
      await allRunning(b(), new Map([[victim, String(pid)]]));
      await eventually(publishAgain, 20_000, `${q} to confirm again`);
      const rows = (await nodesOf(b())).find((r) => r.name === victim) as (NodeRow & { adopted_by?: string }) | undefined;
      assert.equal(rows?.adopted_by, undefined, "restarted inside the lease: never adopted");
    });
  });

  it("a worker restarted only after its lease: its store is adopted by a follower meanwhile, then taken back with every confirmed message", async () => {
    const victim = "b-w1@test";
    await killOne(victim, "wa", async (pid, q, publishAgain) => {
      // Adopted once the lease expired: its queue confirms again while the worker is still down.
      await eventually(async () => (await nodesOf(a())).some((r) => r.name === victim && (r as { adopted_by?: string }).adopted_by !== undefined), 20_000, `${victim}'s store adopted`);
      await eventually(publishAgain, 20_000, `${q} to confirm while adopted`);
      // Restarted after the back-off: it follows the adopter, takes its store back, and serves it as itself.
      await allRunning(a(), new Map([[victim, String(pid)]]));
      await allRunning(b(), new Map([[victim, String(pid)]]));
      await eventually(async () => (await nodesOf(a())).some((r) => r.name === victim && r.running && (r as { adopted_by?: string }).adopted_by === undefined), 20_000, `${victim} serving its own store again`);
      await eventually(publishAgain, 20_000, `${q} to confirm after the hand-back`);
    });
  });
});
