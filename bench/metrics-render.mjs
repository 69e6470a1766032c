// How long one Prometheus scrape of N queues takes to render, in process (no network): Coney's
// direct exposition writer against prom-client (registry + labelled gauges, reset and refilled per
// scrape, which is what a collector of live objects must do). The README's choice rests on it.
//
//   npm run build && npm install --no-save prom-client && node bench/metrics-render.mjs [queues]
//
// prom-client is not a dependency of Coney; it is installed only to run this comparison
// (PROM_CLIENT=/path/to/node_modules/prom-client to use a copy elsewhere).
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { gzipSync, constants } from "node:zlib";
import { Broker } from "../dist/src/broker/broker.js";
import { bootstrapDefaults } from "../dist/src/broker/bootstrap.js";
import { defaultConfig } from "../dist/src/config/config.js";
import { renderAggregated, renderPerObject } from "../dist/src/metrics/render.js";
import { RuntimeMonitor } from "../dist/src/metrics/node-families.js";
import { ScrapeState } from "../dist/src/metrics/scrape-state.js";
import { CORE_GROUPS } from "../dist/src/metrics/family-groups.js";

const queues = Number(process.argv[2] ?? 10_000);
const broker = new Broker();
bootstrapDefaults(broker, defaultConfig());
const ctx = { permissions: broker.checkerFor("guest"), owner: null };
for (let i = 0; i < queues; i++) broker.declareQueue(ctx, "/", { name: `bench-idle-${i}`, durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
const alarms = { figures: { memLimit: 1, diskFreeLimit: 1, memAlarm: false, diskAlarm: false } };
const source = { broker, alarms, dataDir: ".", node: "coney@bench", cluster: "coney@bench" };
const runtime = new RuntimeMonitor();

// Wall time, and this process's CPU time (user + system) for the same run: on a shared, loaded
// machine the CPU time is the steadier figure.
function median(label, fn) {
  for (let i = 0; i < 3; i++) fn(); // warm up
  const runs = [];
  let size = 0;
  for (let i = 0; i < 7; i++) {
    const cpu = process.cpuUsage();
    const t = performance.now();
    size = fn();
    const used = process.cpuUsage(cpu);
    runs.push({ wall: performance.now() - t, cpu: (used.user + used.system) / 1000 });
  }
  runs.sort((a, b) => a.wall - b.wall);
  const m = runs[3];
  console.log(`${label.padEnd(62)} ${m.wall.toFixed(1).padStart(8)} ms wall ${m.cpu.toFixed(1).padStart(8)} ms CPU  ${(size / 1048576).toFixed(1)} MiB`);
}

console.log(`${queues.toLocaleString("en-US")} queues, median of 7`);
median("Coney /metrics (aggregated), render", () => renderAggregated(new ScrapeState(source), runtime).length);
median("Coney /metrics/per-object, render", () => renderPerObject(new ScrapeState(source), runtime).length);
const text = renderPerObject(new ScrapeState(source), runtime);
median("Coney /metrics/per-object, gzip level 1 of the text", () => gzipSync(text, { level: constants.Z_BEST_SPEED }).length);

let client;
try {
  client = createRequire(import.meta.url)(process.env.PROM_CLIENT ?? "prom-client");
} catch {
  console.log("prom-client is not installed: npm install --no-save prom-client");
  process.exit(0);
}
// The same per-queue families through prom-client: one labelled Gauge per family.
const registry = new client.Registry();
const queueGroups = CORE_GROUPS.filter((g) => g.kind === "object" && (g.name === "queue_coarse_metrics" || g.name === "queue_metrics"));
const gauges = queueGroups.map((g) => ({ g, gauges: g.families.map((f) => new client.Gauge({ name: `rabbitmq_${f.name}_pc`, help: f.help, labelNames: ["vhost", "queue"], registers: [registry] })) }));
const scratch = new Float64Array(32);
median("prom-client, per-queue families: reset + set (render not awaited)", () => {
  for (const { gauges: gs } of gauges) for (const gauge of gs) gauge.reset();
  for (const q of new ScrapeState(source).queues()) {
    const labels = { vhost: q.vhost, queue: q.name };
    for (const { g, gauges: gs } of gauges) {
      g.values(q, scratch);
      for (let j = 0; j < gs.length; j++) if (!Number.isNaN(scratch[j])) gs[j].set(labels, scratch[j]);
    }
  }
  let size = 0;
  registry.metrics().then((t) => (size = t.length));
  return size;
});
// registry.metrics() is async in prom-client 15; time it to completion.
const cpu = process.cpuUsage();
const t = performance.now();
for (const { gauges: gs } of gauges) for (const gauge of gs) gauge.reset();
for (const q of new ScrapeState(source).queues()) {
  const labels = { vhost: q.vhost, queue: q.name };
  for (const { g, gauges: gs } of gauges) {
    g.values(q, scratch);
    for (let j = 0; j < gs.length; j++) if (!Number.isNaN(scratch[j])) gs[j].set(labels, scratch[j]);
  }
}
const out = await registry.metrics();
const used = process.cpuUsage(cpu);
console.log(`${"prom-client, same, one run awaited to the end".padEnd(62)} ${(performance.now() - t).toFixed(1).padStart(8)} ms wall ${((used.user + used.system) / 1000).toFixed(1).padStart(8)} ms CPU  ${(out.length / 1048576).toFixed(1)} MiB`);
