// The aggregate scrape's pure pieces (src/metrics/exposition-parse.ts, cluster-sum.ts,
// cluster-scrape.ts): reading back what the writer wrote, summing nodes by the family rules, and
// what a silent, a forgotten and a garbled node do to the sum. The same pieces run for real in
// test/workers/workers-prometheus-aggregate.test.ts (a real Prometheus, two workers).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Exposition, labelPair } from "../../src/metrics/exposition.js";
import { parseExposition } from "../../src/metrics/exposition-parse.js";
import { sumExpositions } from "../../src/metrics/cluster-sum.js";
import { ClusterScrape } from "../../src/metrics/cluster-scrape.js";
import type { ClusterFigures, NodeAnswer } from "../../src/metrics/peer-metrics.js";
import { parseExposition as parseForTest } from "./exposition-parser.js";

/** One node's /metrics-like body: queues it leads, a counter, a histogram, a per-node family, identity. */
function nodeBody(node: string, o: { queues: Record<string, number>; received: number; sizes: [number, number]; start: number }): string {
  const out = new Exposition();
  out.family("process_start_time_seconds", "gauge", "Start time");
  out.sample("process_start_time_seconds", "", o.start);
  out.family("rabbitmq_queue_messages", "gauge", "Sum of ready and unacknowledged messages");
  for (const [q, n] of Object.entries(o.queues)) out.sample("rabbitmq_queue_messages", `${labelPair("vhost", "/")},${labelPair("queue", q)}`, n);
  out.family("rabbitmq_queues", "gauge", "Queues available");
  out.sample("rabbitmq_queues", "", Object.keys(o.queues).length);
  out.family("rabbitmq_global_messages_received_total", "counter", "Total number of messages received from publishers");
  out.sample("rabbitmq_global_messages_received_total", labelPair("protocol", "amqp091"), o.received);
  out.family("rabbitmq_message_size_bytes", "histogram", "Size of messages");
  out.sample("rabbitmq_message_size_bytes_bucket", `${labelPair("protocol", "amqp091")},le="100.0"`, o.sizes[0]);
  out.sample("rabbitmq_message_size_bytes_bucket", `${labelPair("protocol", "amqp091")},le="+Inf"`, o.sizes[1]);
  out.family("rabbitmq_build_info", "untyped", "version info");
  out.sample("rabbitmq_build_info", labelPair("rabbitmq_version", "1.0.0"), 1);
  out.family("rabbitmq_identity_info", "untyped", "identity");
  out.sample("rabbitmq_identity_info", labelPair("rabbitmq_node", node), 1);
  return out.text();
}

/** family -> "labels" -> value, as the tests' own parser (test/metrics/exposition-parser.ts) reads a body. */
function valuesOf(text: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const f of parseForTest(text)) {
    for (const s of f.samples) {
      const key = Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(",");
      let m = out.get(s.name);
      if (!m) out.set(s.name, (m = new Map()));
      m.set(key, s.value);
    }
  }
  return out;
}

const a = (): string => nodeBody("n@a", { queues: { "q-a": 3, 'odd} "name" x': 4 }, received: 10, sizes: [5, 10], start: 100 });
const b = (): string => nodeBody("n@b", { queues: { "q-b": 5 }, received: 7, sizes: [1, 7], start: 200 });

describe("reading back an exposition", () => {
  it("gives every family, type, help and sample as written, label values with braces, quotes and spaces included", () => {
    const families = parseExposition(a());
    assert.deepEqual(families.map((f) => [f.name, f.type]), [
      ["process_start_time_seconds", "gauge"],
      ["rabbitmq_queue_messages", "gauge"],
      ["rabbitmq_queues", "gauge"],
      ["rabbitmq_global_messages_received_total", "counter"],
      ["rabbitmq_message_size_bytes", "histogram"],
      ["rabbitmq_build_info", "untyped"],
      ["rabbitmq_identity_info", "untyped"],
    ]);
    const q = families[1]!.samples;
    assert.deepEqual(q.map((s) => [s.series, s.value]), [
      ['rabbitmq_queue_messages{vhost="/",queue="q-a"}', 3],
      ['rabbitmq_queue_messages{vhost="/",queue="odd} \\"name\\" x"}', 4],
    ]);
    assert.equal(families[3]!.help, "Total number of messages received from publishers");
    assert.deepEqual(families[4]!.samples.map((s) => s.series), ['rabbitmq_message_size_bytes_bucket{protocol="amqp091",le="100.0"}', 'rabbitmq_message_size_bytes_bucket{protocol="amqp091",le="+Inf"}']);
  });

  it("refuses a line it cannot read rather than summing half a node", () => {
    assert.throws(() => parseExposition("# TYPE x gauge\nx{a=\"1\" 3\n"), /unreadable/);
    assert.throws(() => parseExposition("# TYPE x gauge\nx notanumber\n"), /unreadable/);
    assert.throws(() => parseExposition("x 1\n"), /before any family/);
    assert.throws(() => parseExposition("# TYPE x gauge\ny 1\n"), /unreadable/, "a sample of another family");
    assert.throws(() => parseExposition("# TYPE x gauge\nx{a=\"1\"}\n"), /unreadable/, "no value");
  });
});

describe("summing nodes", () => {
  it("sums shared series, passes each leader's queue series once, labels per-node families, one build_info, no identity", () => {
    const text = sumExpositions([
      { node: "n@a", families: parseExposition(a()), fresh: true },
      { node: "n@b", families: parseExposition(b()), fresh: true },
    ]).text();
    const v = valuesOf(text);
    assert.equal(v.get("rabbitmq_queues")!.get(""), 3);
    assert.deepEqual([...v.get("rabbitmq_queue_messages")!.values()], [3, 4, 5]);
    assert.equal(v.get("rabbitmq_global_messages_received_total")!.get("protocol=amqp091"), 17);
    assert.equal(v.get("rabbitmq_message_size_bytes_bucket")!.get("protocol=amqp091,le=+Inf"), 17);
    assert.equal(v.get("rabbitmq_message_size_bytes_bucket")!.get("protocol=amqp091,le=100.0"), 6);
    assert.deepEqual(Object.fromEntries(v.get("process_start_time_seconds")!), { "rabbitmq_node=n@a": 100, "rabbitmq_node=n@b": 200 });
    assert.deepEqual([...v.get("rabbitmq_build_info")!.values()], [1]);
    assert.equal(v.get("rabbitmq_identity_info"), undefined);
  });

  it("a stale node adds its counters and histograms at their last values, not its gauges or per-node series", () => {
    const v = valuesOf(
      sumExpositions([
        { node: "n@a", families: parseExposition(a()), fresh: true },
        { node: "n@b", families: parseExposition(b()), fresh: false },
      ]).text(),
    );
    assert.equal(v.get("rabbitmq_queues")!.get(""), 2);
    assert.equal(v.get("rabbitmq_queue_messages")!.size, 2);
    assert.equal(v.get("rabbitmq_global_messages_received_total")!.get("protocol=amqp091"), 17);
    assert.equal(v.get("rabbitmq_message_size_bytes_bucket")!.get("protocol=amqp091,le=+Inf"), 17);
    assert.deepEqual([...v.get("process_start_time_seconds")!.keys()], ["rabbitmq_node=n@a"]);
  });
});

/** Other nodes whose answers the test sets per scrape. */
class Peers implements ClusterFigures {
  answers: NodeAnswer[] = [];
  listed: string[] = [];
  async gatherMetrics(): Promise<NodeAnswer[]> {
    return this.answers;
  }
  async nodes(): Promise<string[]> {
    return this.listed;
  }
}

describe("the aggregate scrape", () => {
  it("names reporting and stale nodes, carries a silent node's counters with their age, forgets a node the list drops", async () => {
    const peers = new Peers();
    let now = 1_000_000;
    const scrape = new ClusterScrape({ node: "n@a", cluster: "c" }, peers, () => now);
    peers.listed = ["n@a", "n@b", "n@c"];
    peers.answers = [{ node: "n@b", text: b() }];
    let v = valuesOf(await scrape.render("aggregated", a));
    assert.equal(v.get("rabbitmq_queues")!.get(""), 3);
    assert.deepEqual(Object.fromEntries(v.get("coney_cluster_nodes")!), { "state=reporting": 2, "state=stale": 1 });
    assert.deepEqual(Object.fromEntries(v.get("coney_cluster_node_reporting")!), { "rabbitmq_node=n@a": 1, "rabbitmq_node=n@b": 1, "rabbitmq_node=n@c": 0 });
    // n@c never answered: named, no figures, no age.
    assert.deepEqual(Object.fromEntries(v.get("coney_cluster_node_figures_age_seconds")!), { "rabbitmq_node=n@a": 0, "rabbitmq_node=n@b": 0 });
    const identity = [...v.get("rabbitmq_identity_info")!.keys()];
    assert.equal(identity.length, 1, "one identity per target, so dashboards' joins find one match");
    assert.match(identity[0]!, /^rabbitmq_node=n@a,rabbitmq_cluster=c,.*rabbitmq_endpoint=cluster$/);

    // n@b goes silent for 4 s: its counter stays in the sum, its queue gauges leave it.
    now += 4000;
    peers.answers = [];
    v = valuesOf(await scrape.render("aggregated", a));
    assert.equal(v.get("rabbitmq_global_messages_received_total")!.get("protocol=amqp091"), 17);
    assert.equal(v.get("rabbitmq_queues")!.get(""), 2);
    assert.deepEqual(Object.fromEntries(v.get("coney_cluster_nodes")!), { "state=reporting": 1, "state=stale": 2 });
    assert.equal(v.get("coney_cluster_node_figures_age_seconds")!.get("rabbitmq_node=n@b"), 4);

    // A garbled answer counts as none.
    peers.answers = [{ node: "n@b", text: "# TYPE x gauge\nx{ 1\n" }];
    v = valuesOf(await scrape.render("aggregated", a));
    assert.equal(v.get("coney_cluster_node_reporting")!.get("rabbitmq_node=n@b"), 0);

    // An unanswered node list forgets no one; a list without n@b does.
    peers.answers = [];
    peers.listed = [];
    v = valuesOf(await scrape.render("aggregated", a));
    assert.equal(v.get("rabbitmq_global_messages_received_total")!.get("protocol=amqp091"), 17);
    peers.listed = ["n@a", "n@c"];
    v = valuesOf(await scrape.render("aggregated", a));
    assert.equal(v.get("rabbitmq_global_messages_received_total")!.get("protocol=amqp091"), 10);
    assert.equal(v.get("coney_cluster_node_reporting")!.get("rabbitmq_node=n@b"), undefined);
  });

  it("on a single node the figures are its own /metrics's", async () => {
    const scrape = new ClusterScrape({ node: "n@a", cluster: "c" }, null);
    const v = valuesOf(await scrape.render("aggregated", a));
    const own = valuesOf(a());
    for (const family of ["rabbitmq_queues", "rabbitmq_queue_messages", "rabbitmq_global_messages_received_total", "rabbitmq_message_size_bytes_bucket", "rabbitmq_build_info"]) {
      assert.deepEqual(v.get(family), own.get(family), family);
    }
    assert.deepEqual(Object.fromEntries(v.get("coney_cluster_nodes")!), { "state=reporting": 1, "state=stale": 0 });
  });
});
