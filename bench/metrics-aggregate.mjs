// What /metrics/cluster adds on the answering node (docs/CLUSTERING.md, "One scrape for the whole
// broker"), in process (no IPC or links): two nodes' own expositions of N/2 queues each, read back
// and summed (src/metrics/exposition-parse.ts, cluster-sum.ts), against rendering one node's own.
//
//   npm run build && node bench/metrics-aggregate.mjs [queues]
import { performance } from "node:perf_hooks";
import { Broker } from "../dist/src/broker/broker.js";
import { bootstrapDefaults } from "../dist/src/broker/bootstrap.js";
import { defaultConfig } from "../dist/src/config/config.js";
import { renderAggregated, renderPerObject } from "../dist/src/metrics/render.js";
import { RuntimeMonitor } from "../dist/src/metrics/node-families.js";
import { ScrapeState } from "../dist/src/metrics/scrape-state.js";
import { parseExposition } from "../dist/src/metrics/exposition-parse.js";
import { sumExpositions } from "../dist/src/metrics/cluster-sum.js";

const queues = Number(process.argv[2] ?? 10_000);
const runtime = new RuntimeMonitor();
const alarms = { figures: { memLimit: 1, diskFreeLimit: 1, memAlarm: false, diskAlarm: false } };

/** One node's source with `n` idle queues of its own. */
function node(name, n) {
  const broker = new Broker();
  bootstrapDefaults(broker, defaultConfig());
  const ctx = { permissions: broker.checkerFor("guest"), owner: null };
  for (let i = 0; i < n; i++) broker.declareQueue(ctx, "/", { name: `${name}-idle-${i}`, durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
  return { broker, alarms, dataDir: ".", node: name, cluster: "coney@bench" };
}

// Wall and CPU time (user + system) of the median of 7 runs after 3 warm-ups: on a shared machine CPU is the steadier figure.
function median(label, fn) {
  for (let i = 0; i < 3; i++) fn();
  const runs = [];
  for (let i = 0; i < 7; i++) {
    const cpu = process.cpuUsage();
    const t = performance.now();
    fn();
    const used = process.cpuUsage(cpu);
    runs.push({ wall: performance.now() - t, cpu: (used.user + used.system) / 1000 });
  }
  runs.sort((a, b) => a.wall - b.wall);
  console.log(`${label.padEnd(64)} ${runs[3].wall.toFixed(1).padStart(8)} ms wall ${runs[3].cpu.toFixed(1).padStart(8)} ms CPU`);
}

const a = node("a@bench", queues / 2);
const b = node("b@bench", queues / 2);
console.log(`${queues.toLocaleString("en-US")} queues over 2 nodes, median of 7`);
for (const [path, render] of [["/metrics", renderAggregated], ["/metrics/per-object", renderPerObject]]) {
  const texts = [render(new ScrapeState(a), runtime, false), render(new ScrapeState(b), runtime, false)];
  median(`${path}: one node's own render (${queues / 2} queues)`, () => render(new ScrapeState(a), runtime, false));
  median(`${path.replace("/metrics", "/metrics/cluster")}: reading back and summing both`, () =>
    sumExpositions(texts.map((t, i) => ({ node: `n${i}`, families: parseExposition(t), fresh: true }))).text());
}
