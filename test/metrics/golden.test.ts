// Golden: Coney's Prometheus output has every family a RabbitMQ 3.10.8 was recorded exposing
// (rabbitmq-3.10-families.json, recorded by record-rabbitmq-families.ts), with RabbitMQ's type,
// help text and label names, except the families and labels listed with reasons in exclusions.ts;
// and it invents no rabbitmq_ names of its own.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import amqp from "amqplib";
import { ADDED_FAMILIES, ADDED_LABELS, excludedLabelsOf, exclusionOf } from "./exclusions.js";
import type { ParsedFamily } from "./exposition-parser.js";
import { startMetricsBroker, type MetricsBroker } from "./metrics-fixture.js";

interface RecordedFamily {
  readonly name: string;
  readonly type: string;
  readonly help: string;
  readonly labels: readonly string[];
}

interface Reference {
  readonly aggregated: RecordedFamily[];
  readonly perObject: RecordedFamily[];
  readonly detailed: Record<string, string[]>;
  readonly detailedFamilies: RecordedFamily[];
}

const reference = JSON.parse(readFileSync(new URL("../../../test/metrics/rabbitmq-3.10-families.json", import.meta.url), "utf8")) as Reference;

function labelNames(f: ParsedFamily): string[] {
  return [...new Set(f.samples.flatMap((s) => Object.keys(s.labels)))].filter((l) => l !== "le").sort();
}

function expectedLabels(r: RecordedFamily): string[] {
  const dropped = excludedLabelsOf(r.name);
  return [...r.labels.filter((l) => !dropped.includes(l)), ...(ADDED_LABELS[r.name] ?? [])].sort();
}

/** Compares one endpoint's output with the recorded list; returns the mismatches (empty when all agree). */
function compare(recorded: readonly RecordedFamily[], coney: ParsedFamily[]): string[] {
  const byName = new Map(coney.map((f) => [f.name, f]));
  const problems: string[] = [];
  for (const r of recorded) {
    if (exclusionOf(r.name) !== null) continue;
    const c = byName.get(r.name);
    if (!c) {
      problems.push(`missing ${r.name}`);
      continue;
    }
    if (c.type !== r.type) problems.push(`${r.name}: type ${c.type}, RabbitMQ ${r.type}`);
    if (c.help !== r.help) problems.push(`${r.name}: help '${c.help}', RabbitMQ '${r.help}'`);
    // Families RabbitMQ showed no sample of have no recorded labels to compare.
    if (r.labels.length > 0) assert.ok(c.samples.length > 0, `${r.name} has no sample to show its labels`);
    if (r.labels.length > 0 && labelNames(c).join(",") !== expectedLabels(r).join(",")) {
      problems.push(`${r.name}: labels [${labelNames(c).join(",")}], expected [${expectedLabels(r).join(",")}]`);
    }
  }
  const known = new Set(recorded.map((r) => r.name));
  for (const c of coney) if (!known.has(c.name) && !ADDED_FAMILIES.test(c.name)) problems.push(`${c.name} is not a RabbitMQ 3.10 family`);
  return problems;
}

describe("Prometheus families against RabbitMQ 3.10.8's", () => {
  let b: MetricsBroker;
  let conn: amqp.ChannelModel;

  before(async () => {
    b = await startMetricsBroker();
    // Traffic of every kind, so that every per-object family has series to show its labels.
    conn = await amqp.connect(b.amqpUrl);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue("golden.q", { durable: false });
    ch.publish("", "golden.q", Buffer.from("kept"), { timestamp: 1_700_000_000 });
    ch.publish("", "golden.q", Buffer.from("x"));
    await ch.waitForConfirms();
    const get = await conn.createChannel();
    await get.assertQueue("golden.empty", { durable: false });
    assert.equal(await get.get("golden.empty"), false);
  });

  after(async () => {
    await conn.close().catch(() => undefined);
    await b.close();
  });

  it("/metrics has the aggregated families with RabbitMQ's types, help and labels", async () => {
    assert.deepEqual(compare(reference.aggregated, await b.scrape("/metrics")), []);
  });

  it("/metrics/per-object has them per queue, channel and connection", async () => {
    assert.deepEqual(compare(reference.perObject, await b.scrape("/metrics/per-object")), []);
  });

  it("/metrics/detailed answers each family group with RabbitMQ's detailed families", async () => {
    for (const [group, names] of Object.entries(reference.detailed)) {
      const families = await b.scrape(`/metrics/detailed?family=${group}`);
      const got = families.map((f) => f.name).filter((n) => n.startsWith("rabbitmq_detailed_") || n.startsWith("rabbitmq_cluster_"));
      assert.deepEqual(got, names.filter((n) => exclusionOf(n) === null), `family=${group}`);
    }
    const all = Object.keys(reference.detailed).map((g) => `family=${g}`).join("&");
    assert.deepEqual(compare(reference.detailedFamilies, await b.scrape(`/metrics/detailed?${all}`)), []);
  });

  it("every exclusion names a family RabbitMQ has (the list stays honest)", () => {
    const recorded = [...reference.aggregated, ...reference.perObject, ...reference.detailedFamilies].map((f) => f.name);
    for (const name of recorded) if (exclusionOf(name) !== null) assert.ok(recorded.includes(name));
    assert.ok(recorded.filter((n) => exclusionOf(n) === null).length > 150, "most of RabbitMQ's families are compared, not excluded");
  });
});
