// RabbitMQ's Overview dashboard works unchanged: every metric its panels' PromQL names is in
// Coney's /metrics output, with the labels its joins and variables use (the dashboard is an
// unchanged copy in fixtures/, MPL-2.0, see fixtures/README.md).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { samplesOf, type ParsedFamily } from "./exposition-parser.js";
import { startMetricsBroker, type MetricsBroker } from "./metrics-fixture.js";

const dashboard = JSON.parse(readFileSync(new URL("../../../test/metrics/fixtures/RabbitMQ-Overview.json", import.meta.url), "utf8")) as unknown;

/** Every PromQL expression in the dashboard: panel targets' `expr` and template variables' `query`. */
function expressions(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) expressions(n, out);
  else if (node !== null && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if ((k === "expr" || k === "query" || k === "definition") && typeof v === "string") out.push(v);
      else expressions(v, out);
    }
  }
  return out;
}

const PROMQL_KEYWORDS = new Set(["sum", "rate", "irate", "increase", "count", "on", "by", "group_left", "label_values", "instance", "job", "without", "ignoring"]);

/** Metric names in an expression: identifiers outside braces and strings that are neither functions nor keywords nor label names. */
function metricNames(expr: string): string[] {
  const outside = expr
    .replace(/\b(on|by|group_left|group_right|ignoring|without)\s*\([^)]*\)/g, " ")
    .replace(/(label_values\([^,]*),[^)]*\)/g, "$1)")
    .replace(/\{[^}]*\}/g, " ").replace(/"[^"]*"/g, " ").replace(/\[[^\]]*\]/g, " ");
  const names: string[] = [];
  for (const m of outside.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(?=\s*(\(|\{|\*|\)|-|\+|\/|$|\s|,))/g)) {
    const name = m[0];
    if (PROMQL_KEYWORDS.has(name) || !name.includes("_")) continue;
    names.push(name);
  }
  return names;
}

/** Label names a `by(...)` / `group_left(...)` / `on(...)` clause or a label_values() call needs on the joined metric. */
function joinedLabels(expr: string): string[] {
  const labels: string[] = [];
  for (const m of expr.matchAll(/group_left\s*\(([^)]*)\)/g)) labels.push(...m[1]!.split(",").map((s) => s.trim()).filter(Boolean));
  for (const m of expr.matchAll(/label_values\([^,]*,\s*([a-z_]+)\)/g)) labels.push(m[1]!);
  return labels;
}

describe("the RabbitMQ-Overview Grafana dashboard against Coney's /metrics", () => {
  let b: MetricsBroker;
  let families: ParsedFamily[];

  before(async () => {
    b = await startMetricsBroker();
    families = await b.scrape("/metrics");
  });
  after(() => b.close());

  const exprs = expressions(dashboard);

  it("has queries to check (the fixture is the real dashboard)", () => {
    assert.ok(exprs.length >= 40, `${exprs.length} expressions`);
  });

  it("every metric a query names has a sample", () => {
    const names = [...new Set(exprs.flatMap(metricNames))].filter((n) => n.startsWith("rabbitmq_"));
    assert.ok(names.length >= 30, `${names.length} metric names parsed`);
    const missing = names.filter((n) => samplesOf(families, n).length === 0);
    assert.deepEqual(missing, []);
  });

  it("every histogram bucket a query selects exists", () => {
    const les = [...new Set(exprs.flatMap((e) => [...e.matchAll(/rabbitmq_message_size_bytes_bucket\{le="([^"]+)"\}/g)].map((m) => m[1]!)))];
    assert.ok(les.length >= 9, `${les.length} buckets`);
    const have = new Set(samplesOf(families, "rabbitmq_message_size_bytes_bucket").map((s) => s.labels["le"]));
    assert.deepEqual(les.filter((le) => !have.has(le)), []);
  });

  it("rabbitmq_identity_info carries every label the queries join on and the variables list", () => {
    const identity = samplesOf(families, "rabbitmq_identity_info");
    assert.equal(identity.length, 1);
    const labels = new Set(exprs.flatMap(joinedLabels));
    // namespace comes from Kubernetes service discovery, not from the broker (RabbitMQ has no such label either);
    // rabbitmq_version and erlang_version come from rabbitmq_build_info.
    for (const l of ["namespace", "rabbitmq_version", "erlang_version"]) labels.delete(l);
    for (const l of labels) assert.ok(l in identity[0]!.labels, `identity_info lacks ${l}`);
    const build = samplesOf(families, "rabbitmq_build_info")[0]!;
    assert.ok("rabbitmq_version" in build.labels && "erlang_version" in build.labels);
  });
});
