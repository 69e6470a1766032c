// `coney --workers 2`: the whole broker's Prometheus figures from one worker's port (issue 42,
// "Prometheus per node with the aggregate"; src/metrics/cluster-scrape.ts). Queues led by both
// workers, clients on both; then:
// - /metrics/cluster on either worker equals the sum of the two workers' own /metrics, and
//   /api/overview's totals; /metrics itself stays each worker's own;
// - /metrics/cluster/per-object lists every queue once, with its leader's figures;
// - a real Prometheus scraping only worker 0's /metrics/cluster reads the whole broker;
// - worker 1 frozen (SIGSTOP): worker 0's aggregate answers within its bound, names worker 1
//   stale, keeps its counters and leaves out its gauges; fresh again after SIGCONT;
// - worker 1 stopped for good (SIGSTOP, then killed by the primary's heartbeat check, its restart
//   held back): the real Prometheus reads it as stale from worker 0's aggregate, with its counters;
// - promtool accepts both aggregate bodies.
// Real process tree, real amqplib clients, real HTTP, real Prometheus and promtool.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import type { ChannelModel } from "amqplib";
import { eventually } from "../helpers/wait.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";
import { amqpOnWorker, leaderIndex, pinnedApis, type PinnedApi } from "./pinned-workers.js";
import { RunningPrometheus, requireProgram } from "../metrics/prometheus-tools.js";
import { parseExposition } from "../metrics/exposition-parser.js";

interface Overview {
  queue_totals: Record<string, number>;
  object_totals: Record<string, number>;
  listeners: Array<{ node: string; protocol: string; port: number }>;
}

/** The first name prefix-i that worker `w` leads. */
const ledBy = (w: number, prefix: string): string => {
  for (let i = 0; ; i++) if (leaderIndex(`${prefix}-${i}`) === w) return `${prefix}-${i}`;
};

/** series "name{k=v,...}" -> value of one body. */
function seriesOf(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of parseExposition(text)) {
    for (const s of f.samples) out.set(`${s.name}{${Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(",")}}`, s.value);
  }
  return out;
}

const scrape = async (port: number, path: string): Promise<string> => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  assert.equal(res.status, 200, `${path} on ${port}`);
  return res.text();
};

/** The families an operator sums: queue totals, object totals, global counters (not moving while the clients are idle). */
const SUMMED = [
  "rabbitmq_queues{}",
  "rabbitmq_queue_messages{}",
  "rabbitmq_queue_messages_ready{}",
  "rabbitmq_queue_messages_unacked{}",
  "rabbitmq_queue_consumers{}",
  "rabbitmq_connections{}",
  "rabbitmq_channels{}",
  "rabbitmq_consumers{}",
  "rabbitmq_global_messages_received_total{protocol=amqp091}",
  "rabbitmq_global_messages_confirmed_total{protocol=amqp091}",
  "rabbitmq_global_messages_routed_total{protocol=amqp091}",
  "rabbitmq_channel_messages_published_total{}",
];

describe("coney --workers 2: Prometheus aggregate of the whole broker from one worker", () => {
  let p: WorkersProcess;
  let apis: PinnedApi[] = [];
  const open: ChannelModel[] = [];
  let ports: number[] = [];
  const queues = [ledBy(0, "agg"), ledBy(1, "agg")];

  before(async () => {
    // A dead worker's restart held back, so the last case can watch it stale for as long as it needs.
    p = await startWorkers(["--in-memory"], { CONEY_WORKERS_RESTART_DELAY_MS: "60000" });
    apis = await pinnedApis(p.httpPort);
    const onW = async (w: number): Promise<ChannelModel> => {
      const c = await amqpOnWorker(apis, w, p.amqpUrl);
      open.push(c);
      return c;
    };
    // A publisher on each worker to both queues (so each leads a queue another worker publishes to), a consumer holding unacked messages on worker 0.
    const [c0, c1] = [await onW(0), await onW(1)];
    const ch0 = await c0.createConfirmChannel();
    for (const q of queues) await ch0.assertQueue(q, { durable: false });
    const ch1 = await c1.createConfirmChannel();
    await eventually(async () => (await apis[1]!.request("GET", `/api/queues/%2F/${queues[0]}`)).status === 200, 10_000, "worker 1 knows the queues");
    for (let i = 0; i < 6; i++) ch0.sendToQueue(queues[0]!, Buffer.from(`a${i}`));
    for (let i = 0; i < 9; i++) ch0.sendToQueue(queues[1]!, Buffer.from(`b${i}`));
    for (let i = 0; i < 4; i++) ch1.sendToQueue(queues[1]!, Buffer.from(`c${i}`));
    await Promise.all([ch0.waitForConfirms(), ch1.waitForConfirms()]);
    const consumer = await c0.createChannel();
    await consumer.prefetch(3);
    let got = 0;
    const held = new Promise<void>((resolve) => {
      void consumer.consume(queues[1]!, (m) => {
        if (m !== null && ++got === 3) resolve();
      });
    });
    await held;
    const o = (await apis[0]!.request("GET", "/api/overview")).json as Overview;
    ports = apis.map((a) => o.listeners.find((l) => l.node === a.node && l.protocol === "http/prometheus")!.port);
    // Settled: both queues' counts as the leaders hold them (3 unacked on worker 1's queue).
    await eventually(async () => {
      const now = (await apis[0]!.request("GET", "/api/overview")).json as Overview;
      return now.queue_totals["messages"] === 19 && now.queue_totals["messages_unacknowledged"] === 3;
    }, 10_000, "19 messages, 3 unacked in the overview");
  });
  after(async () => {
    await Promise.all(open.map((c) => c.close().catch(() => {})));
    for (const a of apis) a.close();
    await p.close();
  });

  it("/metrics/cluster on either worker is the sum of both workers' /metrics, and the overview's totals", async () => {
    const own = await Promise.all(ports.map((port) => scrape(port, "/metrics")));
    const perNode = own.map(seriesOf);
    // Each worker's /metrics is its own: a queue counted by its leader only.
    assert.deepEqual(perNode.map((s) => s.get("rabbitmq_queues{}")), [1, 1]);
    for (const port of ports) {
      const whole = seriesOf(await scrape(port, "/metrics/cluster"));
      for (const name of SUMMED) {
        assert.equal(whole.get(name), perNode[0]!.get(name)! + perNode[1]!.get(name)!, `${name} through port ${port}`);
      }
      assert.equal(whole.get(`coney_cluster_nodes{state=reporting}`), 2);
      assert.equal(whole.get(`coney_cluster_nodes{state=stale}`), 0);
      for (const a of apis) assert.equal(whole.get(`coney_cluster_node_reporting{rabbitmq_node=${a.node}}`), 1);
      // Per node, not summed: one start time per worker.
      for (const a of apis) assert.equal(typeof whole.get(`process_start_time_seconds{rabbitmq_node=${a.node}}`), "number");
      const o = (await apis[0]!.request("GET", "/api/overview")).json as Overview;
      assert.equal(whole.get("rabbitmq_queue_messages{}"), o.queue_totals["messages"]);
      assert.equal(whole.get("rabbitmq_queue_messages_unacked{}"), o.queue_totals["messages_unacknowledged"]);
      assert.equal(whole.get("rabbitmq_queues{}"), o.object_totals["queues"]);
      assert.equal(whole.get("rabbitmq_connections{}"), o.object_totals["connections"]);
      assert.equal(whole.get("rabbitmq_channels{}"), o.object_totals["channels"]);
      assert.equal(whole.get("rabbitmq_consumers{}"), o.object_totals["consumers"]);
    }
  });

  it("/metrics/cluster/per-object lists each queue once, with its leader's figures", async () => {
    const whole = seriesOf(await scrape(ports[0]!, "/metrics/cluster/per-object"));
    assert.equal(whole.get(`rabbitmq_queue_messages{vhost=/,queue=${queues[0]}}`), 6);
    assert.equal(whole.get(`rabbitmq_queue_messages{vhost=/,queue=${queues[1]}}`), 13);
    assert.equal(whole.get(`rabbitmq_queue_messages_unacked{vhost=/,queue=${queues[1]}}`), 3);
    const listed = [...whole.keys()].filter((k) => k.startsWith("rabbitmq_queue_messages{"));
    assert.equal(listed.length, 2, listed.join(" "));
  });

  it("promtool accepts both aggregate bodies", async () => {
    const promtool = requireProgram("promtool");
    for (const path of ["/metrics/cluster", "/metrics/cluster/per-object"]) {
      const res = spawnSync(promtool, ["check", "metrics"], { input: await scrape(ports[1]!, path), encoding: "utf8" });
      assert.equal(res.status, 0, `promtool on ${path}: ${res.stdout}${res.stderr}`);
    }
  });

  it("a real Prometheus scraping only worker 0's /metrics/cluster reads the whole broker", async () => {
    const o = (await apis[1]!.request("GET", "/api/overview")).json as Overview;
    const prometheus = new RunningPrometheus();
    try {
      await prometheus.start([`127.0.0.1:${ports[0]}`], "/metrics/cluster");
      await prometheus.until("up", "worker 0's aggregate scraped", (r) => r.length === 1 && r[0]!.value[1] === "1");
      await prometheus.untilValue("rabbitmq_queue_messages", String(o.queue_totals["messages"]));
      await prometheus.untilValue("rabbitmq_queues", String(o.object_totals["queues"]));
      await prometheus.untilValue("rabbitmq_connections", String(o.object_totals["connections"]));
      await prometheus.untilValue('coney_cluster_nodes{state="reporting"}', "2");
      await prometheus.untilValue('sum(rabbitmq_global_messages_received_total{protocol="amqp091"})', "19");
    } finally {
      await prometheus.close();
    }
  });

  it("worker 1 frozen: worker 0's aggregate answers within its bound, names it stale, keeps its counters, leaves out its gauges", async () => {
    const before = seriesOf(await scrape(ports[0]!, "/metrics/cluster"));
    const w1own = seriesOf(await scrape(ports[1]!, "/metrics"));
    const w1pid = p.lines.filter((l) => l.msg === "worker started" && l["worker"] === "w1").pop()?.["pid"] as number;
    assert.equal(typeof w1pid, "number");
    // Frozen well inside the primary's heartbeat limit (3 missed beats of 1 s).
    process.kill(w1pid, "SIGSTOP");
    let text: string;
    const started = Date.now();
    try {
      text = await scrape(ports[0]!, "/metrics/cluster");
    } finally {
      process.kill(w1pid, "SIGCONT");
    }
    const took = Date.now() - started;
    assert.ok(took < 2_500, `answered in ${took} ms`);
    const frozen = seriesOf(text);
    const w1 = apis[1]!.node;
    assert.equal(frozen.get("coney_cluster_nodes{state=reporting}"), 1);
    assert.equal(frozen.get("coney_cluster_nodes{state=stale}"), 1);
    assert.equal(frozen.get(`coney_cluster_node_reporting{rabbitmq_node=${w1}}`), 0);
    assert.ok(frozen.get(`coney_cluster_node_figures_age_seconds{rabbitmq_node=${w1}}`)! > 0);
    // Counters: what worker 1 counted stays in the sum (no fall Prometheus would read as a reset).
    for (const c of ["rabbitmq_global_messages_received_total{protocol=amqp091}", "rabbitmq_channel_messages_published_total{}"]) {
      assert.equal(frozen.get(c), before.get(c), c);
    }
    // Gauges: worker 1's present state is unknown, so its queue and its connection are left out.
    for (const g of ["rabbitmq_queues{}", "rabbitmq_queue_messages{}", "rabbitmq_connections{}"]) {
      assert.equal(frozen.get(g), before.get(g)! - w1own.get(g)!, g);
    }
    assert.equal(frozen.get(`process_start_time_seconds{rabbitmq_node=${w1}}`), undefined);
    const promtool = spawnSync(requireProgram("promtool"), ["check", "metrics"], { input: text, encoding: "utf8" });
    assert.equal(promtool.status, 0, `promtool: ${promtool.stdout}${promtool.stderr}`);
    // Thawed: it reports again.
    await eventually(async () => seriesOf(await scrape(ports[0]!, "/metrics/cluster")).get("coney_cluster_nodes{state=stale}") === 0, 10_000, "worker 1 reporting after the thaw");
  });

  it("worker 1 stopped for good: a real Prometheus scraping worker 0's aggregate reads it as stale, its counters kept", async () => {
    const w1 = apis[1]!.node;
    const w1pid = p.lines.filter((l) => l.msg === "worker started" && l["worker"] === "w1").pop()?.["pid"] as number;
    const prometheus = new RunningPrometheus();
    try {
      // 3 s scrapes: the timeout (= the interval) above the aggregate's 1 s wait for a silent node.
      await prometheus.start([`127.0.0.1:${ports[0]}`], "/metrics/cluster", 3);
      await prometheus.untilValue('coney_cluster_nodes{state="reporting"}', "2");
      // Stopped, and after 3 missed heartbeats killed by the primary (restart held back 60 s).
      process.kill(w1pid, "SIGSTOP");
      await prometheus.untilValue('coney_cluster_nodes{state="stale"}', "1");
      await prometheus.untilValue(`coney_cluster_node_reporting{rabbitmq_node="${w1}"}`, "0");
      await prometheus.until("up", "worker 0's aggregate still scraped", (r) => r.length === 1 && r[0]!.value[1] === "1");
      // What worker 1 counted stays in the sum: 19 received, of which 4 on worker 1.
      await prometheus.untilValue('rabbitmq_global_messages_received_total{protocol="amqp091"}', "19");
    } finally {
      await prometheus.close();
    }
  });
});
