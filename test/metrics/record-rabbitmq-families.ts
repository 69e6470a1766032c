/**
 * Records the metric families a real RabbitMQ 3.10 exposes on its Prometheus port into
 * test/metrics/rabbitmq-3.10-families.json, the reference the golden test checks Coney against.
 *
 * Run by hand against a RabbitMQ with rabbitmq_prometheus enabled, never in CI (tests must not
 * need RabbitMQ):
 *   npm run build && node dist/test/metrics/record-rabbitmq-families.js [amqp-url] [api-url] [metrics-url]
 * Defaults: amqp://guest:guest@127.0.0.1:5672, http://guest:guest@127.0.0.1:15672, http://127.0.0.1:15692.
 *
 * It creates a vhost of its own with traffic of every kind (so per-object families show their
 * labels), records names, types, help texts and label names (never label values), then deletes
 * the vhost.
 */
import { writeFileSync } from "node:fs";
import amqp from "amqplib";
import { parseExposition, type ParsedFamily } from "./exposition-parser.js";

const [amqpBase = "amqp://guest:guest@127.0.0.1:5672", apiUrl = "http://guest:guest@127.0.0.1:15672", metricsUrl = "http://127.0.0.1:15692"] = process.argv.slice(2);
const VHOST = "coney-prometheus-reference";

/** The groups /metrics/detailed takes as `family=` (RabbitMQ 3.10's prometheus docs list them). */
const DETAILED_GROUPS = [
  "connection_churn_metrics", "node_coarse_metrics", "node_metrics", "node_persister_metrics", "ra_metrics",
  "auth_attempt_metrics", "auth_attempt_detailed_metrics", "queue_coarse_metrics", "queue_consumer_count", "queue_metrics",
  "channel_metrics", "channel_exchange_metrics", "channel_process_metrics", "channel_queue_metrics",
  "connection_coarse_metrics", "connection_metrics", "channel_queue_exchange_metrics",
  "vhost_status", "exchange_bindings", "exchange_names",
];

async function api(method: string, path: string, body?: unknown): Promise<void> {
  const url = new URL(apiUrl);
  const auth = Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64");
  const res = await fetch(`${url.origin}${path}`, { method, headers: { authorization: `Basic ${auth}`, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (!res.ok && res.status !== 404) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
}

async function scrape(path: string): Promise<ParsedFamily[]> {
  const res = await fetch(`${metricsUrl}${path}`);
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return parseExposition(await res.text());
}

/** Names, types, help and the label names seen on any sample. */
function describe(families: ParsedFamily[]): Array<{ name: string; type: string; help: string; labels: string[] }> {
  return families.map((f) => ({ name: f.name, type: f.type, help: f.help, labels: [...new Set(f.samples.flatMap((s) => Object.keys(s.labels)))].filter((l) => l !== "le" && l !== "quantile").sort() }));
}

async function main(): Promise<void> {
  const v = encodeURIComponent(VHOST);
  await api("PUT", `/api/vhosts/${v}`, {});
  await api("PUT", `/api/permissions/${v}/guest`, { configure: ".*", write: ".*", read: ".*" });
  const conn = await amqp.connect(`${amqpBase}/${v}`);
  try {
    const ch = await conn.createConfirmChannel();
    await ch.assertExchange("ref.x", "direct", { durable: false });
    await ch.assertQueue("ref.q", { durable: false });
    await ch.bindQueue("ref.q", "ref.x", "k");
    for (let i = 0; i < 5; i++) ch.publish("ref.x", "k", Buffer.from(`m${i}`));
    ch.publish("ref.x", "nowhere", Buffer.from("returned"), { mandatory: true });
    ch.publish("ref.x", "nowhere", Buffer.from("dropped"));
    await ch.waitForConfirms();
    const get = await conn.createChannel();
    const got = await get.get("ref.q", { noAck: false });
    if (got) get.nack(got, false, true);
    await get.get("ref.q", { noAck: true });
    await get.get("ref.q", { noAck: false });
    const consumer = await conn.createChannel();
    await consumer.prefetch(10);
    await consumer.consume("ref.q", (m) => m && consumer.ack(m), { noAck: false });
    await get.assertQueue("ref.empty", { durable: false });
    await get.get("ref.empty");
    await new Promise((r) => setTimeout(r, 6000)); // RabbitMQ emits channel and queue stats every 5 s
    const reference = {
      note: "Recorded from a real RabbitMQ 3.10.8 (Debian package, rabbitmq_prometheus enabled, default settings) by test/metrics/record-rabbitmq-families.ts, run by hand; never in CI. Label names only, as seen on samples after traffic of every kind in one vhost; families with no sample list no labels.",
      recordedAt: new Date().toISOString(),
      aggregated: describe(await scrape("/metrics")),
      perObject: describe(await scrape("/metrics/per-object")),
      detailed: Object.fromEntries(await Promise.all(DETAILED_GROUPS.map(async (g) => [g, describe(await scrape(`/metrics/detailed?family=${g}`)).map((f) => f.name).filter((n) => n.startsWith("rabbitmq_detailed_") || n.startsWith("rabbitmq_cluster_"))] as const))),
      detailedFamilies: describe(await scrape(`/metrics/detailed?${DETAILED_GROUPS.map((g) => `family=${g}`).join("&")}`)),
    };
    const out = new URL("../../../test/metrics/rabbitmq-3.10-families.json", import.meta.url);
    writeFileSync(out, JSON.stringify(reference, null, 1) + "\n");
    process.stdout.write(`wrote ${out.pathname}: ${reference.aggregated.length} aggregated, ${reference.perObject.length} per-object, ${reference.detailedFamilies.length} detailed families\n`);
  } finally {
    await conn.close().catch(() => undefined);
    await api("DELETE", `/api/vhosts/${v}`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
