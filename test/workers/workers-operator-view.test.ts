// `coney --workers 2`: an operator sees one broker from either worker (issue 42, "operators see
// one broker"), found on this session's pass:
// - a queue read through the worker that does not lead it showed that worker's own part of its
//   message_stats (what it published to it) or none at all: the UI's "–" rates for every queue led
//   by the other worker. Its rates are now its leader's (src/http/leader-queue-figures.ts); and its
//   consumer_details listed only the asked worker's consumers;
// - /api/overview's `contexts` listed only the answering worker's (RabbitMQ lists every node's), and
//   its charts were empty (the other worker's figures came without the chart's samples);
// - a worker that did not answer in time was left out of the overview's totals without a word: its
//   queues are counted from their last known counts now, and the overview says `counts_stale`;
// - `coneyctl status` listed both workers' listeners unlabelled (the AMQP port twice) and the whole
//   broker's connections: it is the asked node's, as rabbitmqctl status is.
// And a real Prometheus scraping both workers' ports sums to the overview's totals.
// Real process tree, real amqplib clients, real HTTP and the real coneyctl.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ChannelModel } from "amqplib";
import { eventually } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { amqpOnWorker, leaderIndex, pinnedApis, type PinnedApi } from "./pinned-workers.js";
import { run } from "../cli/run-coneyctl.js";
import { RunningPrometheus } from "../metrics/prometheus-tools.js";

type Stats = Record<string, number | { rate: number }>;
interface QueueJson {
  name: string;
  node: string;
  messages: number;
  messages_details?: { rate: number };
  message_stats?: Stats;
}
interface Overview {
  node: string;
  queue_totals: Record<string, number | { rate: number }>;
  object_totals: Record<string, number>;
  listeners: Array<{ node: string; protocol: string; port: number }>;
  contexts: Array<{ node: string; description: string; port: string }>;
  counts_stale?: boolean;
  counts_stale_nodes?: string[];
}

/** The first name prefix-i that worker `w` leads. */
const ledBy = (w: number, prefix: string): string => {
  for (let i = 0; ; i++) if (leaderIndex(`${prefix}-${i}`) === w) return `${prefix}-${i}`;
};

describe("coney --workers 2: one broker for the operator, from either worker", () => {
  let p: WorkersProcess;
  let apis: PinnedApi[] = [];
  const open: ChannelModel[] = [];
  const onW = async (w: number): Promise<ChannelModel> => {
    const c = await amqpOnWorker(apis, w, p.amqpUrl);
    open.push(c);
    return c;
  };
  const get = async <T>(api: PinnedApi, path: string): Promise<T> => {
    const r = await api.request("GET", path);
    assert.equal(r.status, 200, `${path} on ${api.node}: ${r.text}`);
    return r.json as T;
  };

  before(async () => {
    p = await startWorkers(["--in-memory"]);
    apis = await pinnedApis(p.httpPort);
  });
  after(async () => {
    await Promise.all(open.map((c) => c.close().catch(() => {})));
    for (const a of apis) a.close();
    await p.close();
  });

  it("a queue's message_stats and rates are its leader's, read through either worker (list and one queue)", async () => {
    const queue = ledBy(1, "view-rates");
    // Publishers on both workers, the consumer on the one that does not lead the queue.
    const [c0, c1] = [await onW(0), await onW(1)];
    const ch0 = await c0.createConfirmChannel();
    await ch0.assertQueue(queue, { durable: false });
    const ch1 = await c1.createConfirmChannel();
    await eventually(async () => (await apis[1]!.request("GET", `/api/queues/%2F/${queue}`)).status === 200, 10_000, "worker 1 knows the queue");
    for (let i = 0; i < 10; i++) ch0.sendToQueue(queue, Buffer.from(`a${i}`));
    for (let i = 0; i < 5; i++) ch1.sendToQueue(queue, Buffer.from(`b${i}`));
    await Promise.all([ch0.waitForConfirms(), ch1.waitForConfirms()]);
    const consumer = await c0.createChannel();
    let acked = 0;
    const all = new Promise<void>((resolve) => {
      void consumer.consume(queue, (m) => {
        if (m === null) return;
        consumer.ack(m);
        if (++acked === 15) resolve();
      });
    });
    await all;
    // Settled on the leader: its own record counts the 15 acks.
    const stat = (q: QueueJson, k: string): number | undefined => q.message_stats?.[k] as number | undefined;
    await eventually(async () => stat(await get<QueueJson>(apis[1]!, `/api/queues/%2F/${queue}`), "ack") === 15, 10_000, "15 acks on the leader");
    for (const api of apis) {
      const one = await get<QueueJson>(api, `/api/queues/%2F/${queue}`);
      const listed = (await get<QueueJson[]>(api, "/api/queues/%2F")).find((q) => q.name === queue)!;
      for (const [what, q] of [["one queue", one], ["the list", listed]] as const) {
        assert.equal(q.node, apis[1]!.node);
        const figures = { publish: stat(q, "publish"), deliver_get: stat(q, "deliver_get"), ack: stat(q, "ack") };
        assert.deepEqual(figures, { publish: 15, deliver_get: 15, ack: 15 }, `${what} through ${api.node}`);
        assert.equal(typeof (q.message_stats!["publish_details"] as { rate: number }).rate, "number", `${what}'s publish rate through ${api.node}`);
        assert.equal(typeof q.messages_details?.rate, "number", `${what}'s messages rate through ${api.node}`);
      }
    }
    // A chart asked through the other worker is drawn from the leader's samples.
    const charted = await get<QueueJson>(apis[0]!, `/api/queues/%2F/${queue}?msg_rates_age=60&msg_rates_incr=5&lengths_age=60&lengths_incr=5`);
    const samples = (charted.message_stats!["publish_details"] as { samples?: Array<{ sample: number }> }).samples;
    assert.ok(Array.isArray(samples) && samples.length > 0, `publish samples through ${apis[0]!.node}: ${JSON.stringify(charted.message_stats)}`);
    assert.equal(samples[0]!.sample, 15);
    // Its consumer (on worker 0's connection) is in its consumer_details whichever worker is asked.
    for (const api of apis) {
      const details = (await get<{ consumer_details: Array<{ consumer_tag: string; channel_details: { node: string } }> }>(api, `/api/queues/%2F/${queue}`)).consumer_details;
      assert.deepEqual(details.map((c) => c.channel_details.node), [apis[0]!.node], `consumer_details through ${api.node}`);
    }
    await consumer.close();
  });

  it("the overview lists every worker's listeners and web contexts, through either worker", async () => {
    for (const api of apis) {
      const o = await get<Overview>(api, "/api/overview");
      assert.equal(o.node, api.node);
      for (const w of apis) {
        const listeners = o.listeners.filter((l) => l.node === w.node).map((l) => l.protocol);
        assert.ok(listeners.includes("amqp") && listeners.includes("http") && listeners.includes("http/prometheus"), `${w.node}'s listeners through ${api.node}: ${listeners.join()}`);
        const contexts = o.contexts.filter((c) => c.node === w.node).map((c) => c.description).sort();
        assert.deepEqual(contexts, ["Coney Management", "Coney Prometheus"], `${w.node}'s contexts through ${api.node}`);
        const prometheus = o.listeners.find((l) => l.node === w.node && l.protocol === "http/prometheus")!.port;
        assert.ok(o.contexts.some((c) => c.node === w.node && c.port === String(prometheus)), `${w.node}'s Prometheus context names its own port`);
      }
      // The charts' samples survive the sum over workers (every worker renders them; they were dropped, the charts empty).
      const charted = await get<Overview>(api, "/api/overview?lengths_age=60&lengths_incr=5&msg_rates_age=60&msg_rates_incr=5");
      for (const [group, field] of [["queue_totals", "messages_details"], ["message_stats", "publish_details"]] as const) {
        const samples = ((charted as unknown as Record<string, Record<string, { samples?: Array<{ sample: number }> }>>)[group]![field]!).samples;
        assert.ok(Array.isArray(samples) && samples.length > 0, `${group}.${field} samples through ${api.node}`);
      }
      const live = (charted.queue_totals["messages_details"] as unknown as { samples: Array<{ sample: number }> }).samples[0]!.sample;
      assert.equal(live, charted.queue_totals["messages"], "the live sample is the summed count");
    }
  });

  it("a worker that does not answer in time: the overview counts its queues from their last counts and says so", async () => {
    const queue = ledBy(1, "view-silent");
    const ch = await (await onW(0)).createConfirmChannel();
    await ch.assertQueue(queue, { durable: false });
    for (let i = 0; i < 7; i++) ch.sendToQueue(queue, Buffer.from(`m${i}`));
    await ch.waitForConfirms();
    const w0 = apis[0]!;
    // Worker 0 holds worker 1's counts no older than its last read (the list waits for fresh ones).
    await eventually(async () => (await get<QueueJson[]>(w0, "/api/queues/%2F")).find((q) => q.name === queue)?.messages === 7, 10_000, "7 messages through worker 0");
    const before = await get<Overview>(w0, "/api/overview");
    assert.equal(before.counts_stale, undefined);
    const w1pid = p.lines.filter((l) => l.msg === "worker started" && l["worker"] === "w1").pop()?.["pid"] as number;
    assert.equal(typeof w1pid, "number");
    // Frozen well inside the primary's heartbeat limit (3 missed beats of 1 s): asked, it does not answer.
    process.kill(w1pid, "SIGSTOP");
    let frozen: Overview;
    try {
      frozen = await get<Overview>(w0, "/api/overview");
    } finally {
      process.kill(w1pid, "SIGCONT");
    }
    assert.equal(frozen.counts_stale, true);
    assert.deepEqual(frozen.counts_stale_nodes, [apis[1]!.node]);
    const totals = (o: Overview) => ({ messages: o.queue_totals["messages"], ready: o.queue_totals["messages_ready"], queues: o.object_totals["queues"] });
    assert.deepEqual(totals(frozen), totals(before), "worker 1's queues counted from their last known counts");
    // Thawed: it answers again, and the overview says nothing of staleness.
    await eventually(async () => (await get<Overview>(w0, "/api/overview")).counts_stale === undefined, 10_000, "fresh after the thaw");
  });

  it("a real Prometheus scraping every worker's port sums to the overview's totals", async () => {
    const o = await get<Overview>(apis[0]!, "/api/overview");
    const ports = o.listeners.filter((l) => l.protocol === "http/prometheus").map((l) => `127.0.0.1:${l.port}`);
    assert.equal(ports.length, 2, "one Prometheus port per worker");
    const prometheus = new RunningPrometheus();
    try {
      await prometheus.start(ports);
      await prometheus.until("up", "both workers scraped", (r) => r.length === 2 && r.every((x) => x.value[1] === "1"));
      // Nothing moves now (the earlier cases' clients are idle): each queue counted once, by its leader.
      const now = await get<Overview>(apis[1]!, "/api/overview");
      await prometheus.untilValue("sum(rabbitmq_queue_messages)", String(now.queue_totals["messages"]));
      await prometheus.untilValue("sum(rabbitmq_queues)", String(now.object_totals["queues"]));
      await prometheus.untilValue("sum(rabbitmq_connections)", String(now.object_totals["connections"]));
    } finally {
      await prometheus.close();
    }
  });

  it("coneyctl status is the asked worker's: its own listeners, labelled once, and its own connections", async () => {
    await onW(1);
    const seen = new Set<string>();
    for (let i = 0; i < 20 && seen.size < 2; i++) {
      const r = await run(["--port", String(p.httpPort), "status"]);
      assert.equal(r.code, 0, r.stderr);
      const node = /^Node name: (.+)$/m.exec(r.stdout)![1]!;
      const api = apis.find((a) => a.node === node)!;
      const o = await get<Overview>(api, "/api/overview");
      const own = o.listeners.filter((l) => l.node === node);
      const lines = r.stdout.split("\n").filter((l) => l.startsWith("Interface: "));
      assert.deepEqual(lines.map((l) => Number(/port: (\d+)/.exec(l)![1])).sort(), own.map((l) => l.port).sort(), `${node}'s listeners: ${lines.join(" | ")}`);
      assert.ok(lines.some((l) => l.endsWith("protocol: http/prometheus, purpose: Prometheus exporter API over HTTP")), r.stdout);
      const connections = (await get<Array<{ node: string }>>(api, "/api/connections")).filter((c) => c.node === node).length;
      assert.ok(connections > 0);
      assert.match(r.stdout, new RegExp(`^Connection count: ${connections}$`, "m"), `${node} holds ${connections}`);
      seen.add(node);
    }
    assert.equal(seen.size, 2, "both workers asked");
  });
});
