// `coney --workers 2 --etcd-endpoints … --cluster-mode spread` on two "machines" sharing one real
// etcd (machines-fixture.ts, RESTART_OR_ADOPT): every worker is a spread-cluster node of its own
// (docs/CLUSTERING.md, "Workers as spread-cluster nodes"), so the cluster has four queue homes:
// /api/nodes, placement, publishing across machines, the stream protocol. The kill cases are in
// workers-spread-kill.test.ts.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect as streamConnect, Offset } from "rabbitmq-stream-js-client";
import { queueNodes } from "./workers-clients.js";
import { collector, eventually, withTimeout } from "../helpers/wait.js";
import { MACHINES, RESTART_OR_ADOPT, machineOfNode, twoMachines } from "./machines-fixture.js";

describe("workers as spread-cluster nodes: two machines of two workers on one etcd", () => {
  const machines = twoMachines(RESTART_OR_ADOPT);
  const bothRunning = (): Promise<unknown> => Promise.all(MACHINES.map((m) => machines.allRunning(m)));

  it("lists all four workers in /api/nodes of each machine, each with its own os_pid", async () => {
    await bothRunning();
    const seen = await machines.nodePids("a");
    assert.equal(new Set(machines.nodeNames.map((n) => seen.get(n))).size, 4, `four processes: ${[...seen].join(", ")}`);
    assert.deepEqual(await machines.nodePids("b"), seen, "both machines name the same processes");
  });

  it("places queues declared through each machine on different workers, publishes across machines with confirms, and a consumer gets them in order", async () => {
    await bothRunning();
    const homes = new Map<string, string>();
    for (const m of MACHINES) {
      const placed = await machines.declare(m, [0, 1, 2, 3].map((i) => `ws-${m}${i}`));
      for (const [q, node] of placed) homes.set(q, node);
      // Balanced over four equally loaded workers: one queue on each.
      assert.equal(new Set(placed.values()).size, 4, `balanced over four workers: ${[...placed].map(([q, n]) => `${q}=${n}`).join(", ")}`);
    }
    // A client of machine a publishes with confirms to a queue homed on each worker of machine b.
    const onB = [...homes].filter(([, n]) => n.startsWith("b-")).map(([q]) => q);
    const targets = machines.nodeNames.filter((n) => n.startsWith("b-")).map((n) => onB.find((q) => homes.get(q) === n)!);
    const pub = await (await machines.connect("a")).createConfirmChannel();
    for (let i = 0; i < 100; i++) for (const q of targets) pub.sendToQueue(q, Buffer.from(`${q}-${i}`), { persistent: true });
    await withTimeout(pub.waitForConfirms(), 20_000, "the confirms from machine b's workers");
    const sub = await (await machines.connect("a")).createChannel();
    for (const q of targets) {
      const got = collector<string>(100);
      await sub.consume(q, (m) => m && got.push(m.content.toString()), { noAck: true });
      assert.deepEqual(await withTimeout(got.done, 20_000, `the messages of ${q}`), Array.from({ length: 100 }, (_, i) => `${q}-${i}`));
    }
    await sub.close();
  });

  it("the stream protocol: Metadata on either machine names a stream's home worker's own stream port, where a client publishes with confirms and reads", async () => {
    await bothRunning();
    // Four streams, balanced: one per worker (and the queue counts stay even for the cases below).
    const streams = [0, 1, 2, 3].map((i) => `wst-${i}`);
    await machines.declare("a", streams, { "x-queue-type": "stream" });
    await eventually(async () => {
      const listed = await queueNodes(machines.of("b"));
      return streams.every((q) => listed.get(q) !== undefined);
    }, 10_000, "the streams listed with their homes on machine b");
    const homes = await queueNodes(machines.of("b"));
    assert.equal(new Set(streams.map((q) => homes.get(q))).size, 4, `one stream per worker: ${streams.map((q) => `${q}=${homes.get(q)}`).join(", ")}`);
    /** A worker's own stream port, from its machine's start line. */
    const ownPort = (node: string): number => {
      const m = machines.of(machineOfNode(node));
      const started = m.lines.find((l) => l.msg === "Coney started")!;
      return (started["stream_worker_ports"] as number[])[Number(/-w(\d+)@/.exec(node)![1])]!;
    };
    const silent = { debug() {}, info() {}, warn() {}, error() {} };
    const sharedB = machines.of("b").lines.find((l) => l.msg === "Coney started")!["stream_port"] as number;
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
});
