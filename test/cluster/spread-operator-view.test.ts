// A spread cluster (`--cluster-mode spread`): an operator sees one broker from any node (issue 42,
// "operators see one broker"), as under `coney --workers 2` (test/workers/workers-operator-view):
// - a queue homed on one node, published to and consumed through the others: its message_stats
//   read through any node are its home's (they were the asked node's part, or absent);
// - /api/overview lists every node's web contexts;
// - a node that does not answer in time (SIGSTOP) has its queues counted in the overview from
//   their last known counts, and the overview says `counts_stale`.
// Three real nodes on a real etcd; amqplib and the management API.
import { describe } from "node:test";
import assert from "node:assert/strict";
import { spreadCluster } from "./spread-fixture.js";
import { eventually } from "../helpers/wait.js";

interface QueueJson {
  name: string;
  node: string;
  messages: number;
  message_stats?: Record<string, number | { rate: number }>;
}
interface Overview {
  queue_totals: Record<string, number | { rate: number }>;
  object_totals: Record<string, number>;
  contexts: Array<{ node: string; description: string; port: string }>;
  listeners: Array<{ node: string; protocol: string; port: number }>;
  counts_stale?: boolean;
  counts_stale_nodes?: string[];
}

describe("a spread cluster: one broker for the operator, from any node", () => {
  const sc = spreadCluster({ protocols: false });
  const get = async <T>(i: number, path: string): Promise<T> => {
    const r = await sc.api(i, "GET", path);
    assert.equal(r.status, 200, `${path} on node${i}: ${r.text}`);
    return r.json as T;
  };

  sc.it("a queue's message_stats are its home's, read through every node (list and one queue)", async () => {
    const queue = "sov-rates";
    // Declared through node2 (client-local): homed there; published through node0 and node1, consumed through node0.
    await (await (await sc.connect(2)).createChannel()).assertQueue(queue, { durable: true });
    await sc.seenEverywhere(queue, 200);
    const c0 = await sc.connect(0);
    const pubs = [await c0.createConfirmChannel(), await (await sc.connect(1)).createConfirmChannel()];
    for (const [i, ch] of pubs.entries()) for (let k = 0; k < 6; k++) ch.sendToQueue(queue, Buffer.from(`${i}-${k}`), { persistent: true });
    await Promise.all(pubs.map((ch) => ch.waitForConfirms()));
    const consumer = await c0.createChannel();
    let acked = 0;
    await new Promise<void>((resolve) => {
      void consumer.consume(queue, (m) => {
        if (m === null) return;
        consumer.ack(m);
        if (++acked === 12) resolve();
      });
    });
    const stat = (q: QueueJson | undefined, k: string): number | undefined => q?.message_stats?.[k] as number | undefined;
    await eventually(async () => stat(await get<QueueJson>(2, `/api/queues/%2F/${queue}`), "ack") === 12, 10_000, "12 acks on the home");
    for (let via = 0; via < 3; via++) {
      const one = await get<QueueJson>(via, `/api/queues/%2F/${queue}`);
      const listed = (await get<QueueJson[]>(via, "/api/queues/%2F")).find((q) => q.name === queue);
      for (const [what, q] of [["one queue", one], ["the list", listed]] as const) {
        assert.equal(q?.node, sc.node(2).name);
        assert.deepEqual({ publish: stat(q, "publish"), deliver_get: stat(q, "deliver_get"), ack: stat(q, "ack") }, { publish: 12, deliver_get: 12, ack: 12 }, `${what} through node${via}`);
      }
    }
    await consumer.close();
  });

  sc.it("the overview lists every node's web contexts, through every node", async () => {
    for (let via = 0; via < 3; via++) {
      const o = await get<Overview>(via, "/api/overview");
      for (let i = 0; i < 3; i++) {
        const http = o.listeners.find((l) => l.node === sc.node(i).name && l.protocol === "http");
        assert.equal(http?.port, sc.node(i).httpPort, `node${i}'s http listener through node${via}`);
        const management = o.contexts.filter((c) => c.node === sc.node(i).name && c.description === "Coney Management");
        assert.deepEqual(management.map((c) => c.port), [String(sc.node(i).httpPort)], `node${i}'s management context through node${via}`);
      }
    }
  });

  sc.it("a node that does not answer in time: the overview counts its queues from their last counts and says so", async () => {
    const queue = "sov-silent";
    const ch = await (await sc.connect(2)).createConfirmChannel();
    await ch.assertQueue(queue, { durable: true });
    for (let k = 0; k < 4; k++) ch.sendToQueue(queue, Buffer.from(`m${k}`), { persistent: true });
    await ch.waitForConfirms();
    await sc.seenEverywhere(queue, 200);
    await eventually(async () => (await get<QueueJson[]>(0, "/api/queues/%2F")).find((q) => q.name === queue)?.messages === 4, 10_000, "4 messages through node0");
    const before = await get<Overview>(0, "/api/overview");
    assert.equal(before.counts_stale, undefined);
    const pid = sc.node(2).proc!.pid!;
    // Frozen well inside its etcd lease (5 s): its link stays, its answers do not come.
    process.kill(pid, "SIGSTOP");
    let frozen: Overview;
    try {
      frozen = await get<Overview>(0, "/api/overview");
    } finally {
      process.kill(pid, "SIGCONT");
    }
    assert.equal(frozen.counts_stale, true);
    assert.deepEqual(frozen.counts_stale_nodes, [sc.node(2).name]);
    const totals = (o: Overview) => ({ messages: o.queue_totals["messages"], ready: o.queue_totals["messages_ready"], queues: o.object_totals["queues"] });
    assert.deepEqual(totals(frozen), totals(before), "node2's queues counted from their last known counts");
    await eventually(async () => (await get<Overview>(0, "/api/overview")).counts_stale === undefined, 10_000, "fresh after the thaw");
  });
});
