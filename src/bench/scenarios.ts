/**
 * `npm run bench:all`: the scenario list of the performance issue, run against one broker or two
 * (side by side, in the same run), printed as one table. Throughput scenarios use the perf run;
 * the others time topology operations, the management API and resident memory directly.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AMQPClient, type AMQPBaseClient } from "@cloudamqp/amqp-client";
import { formatMiB, residentBytes } from "./broker-memory.js";
import { DEFAULT_PERF_OPTIONS, type PerfOptions } from "./perf-options.js";
import { formatResult, runPerf } from "./perf-run.js";

export interface Target {
  readonly name: string;
  readonly uri: string;
  /** Management API base URL, credentials in it (http://user:pass@host:port). */
  readonly http: string | undefined;
  /** Prometheus endpoint base URL (http://host:15692). */
  readonly metrics?: string | undefined;
  readonly pid: number | undefined;
}

export interface ScenarioSettings {
  readonly durationSeconds: number;
  readonly queueCount: number;
  readonly connectionCount: number;
  /** Wait before timing the list scenarios, so the broker's statistics have been emitted. */
  readonly statsSettleMs: number;
  readonly only: readonly string[] | null;
}

type Measure = (t: Target, s: ScenarioSettings) => Promise<string>;

const throughput = (perf: Partial<PerfOptions>, what: "consumed" | "published" = "consumed"): Measure => async (t, s) => {
  const r = await runPerf({ ...DEFAULT_PERF_OPTIONS, ...perf, uri: t.uri, durationSeconds: s.durationSeconds, queuePrefix: "bench" });
  process.stderr.write(`  ${t.name}: ${formatResult(r).replaceAll("\n", "; ")}\n`);
  const rate = what === "consumed" ? r.consumedPerSecond : r.publishedPerSecond;
  return `${Math.round(rate).toLocaleString("en-US")}/s (p99 ${r.latencyP99.toFixed(1)} ms)`;
};

const BENCH_QUEUE = (i: number): string => `bench-idle-${i}`;

/** Declares (or deletes) the idle queues over 10 channels in parallel; returns the seconds taken. */
async function eachQueue(t: Target, count: number, op: "declare" | "delete"): Promise<number> {
  const conn = await new AMQPClient(t.uri).connect();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 10 }, async (_, c) => {
      const ch = await conn.channel();
      for (let i = c; i < count; i += 10) {
        if (op === "declare") await ch.queueDeclare(BENCH_QUEUE(i), { durable: false });
        else await ch.queueDelete(BENCH_QUEUE(i));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await conn.close();
  return seconds;
}

/**
 * A Prometheus scrape as Prometheus makes it (gzip accepted): the time until the last byte of the
 * compressed body, which is not decompressed here (undici's fetch would, and on a loaded machine
 * that is most of what it would time). `bytes` is the compressed size.
 */
function scrapeGet(base: string | undefined, path: string): Promise<{ ms: number; bytes: number }> {
  if (!base) return Promise.reject(new Error("no --metrics for this broker"));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    httpRequest(new URL(path, base), { headers: { "accept-encoding": "gzip" } }, (res) => {
      let bytes = 0;
      res.on("data", (d: Buffer) => (bytes += d.length));
      res.on("end", () => (res.statusCode === 200 ? resolve({ ms: performance.now() - started, bytes }) : reject(new Error(`GET ${path}: ${res.statusCode}`))));
    })
      .on("error", reject)
      .end();
  });
}

async function httpGet(t: Target, path: string): Promise<{ ms: number; bytes: number }> {
  if (!t.http) throw new Error("no --http for this broker");
  const url = new URL(path, t.http);
  const auth = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`;
  url.username = "";
  url.password = "";
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: auth } });
  const body = await res.arrayBuffer();
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return { ms: performance.now() - started, bytes: body.byteLength };
}

/**
 * The median of 5 GETs, taken once the broker's statistics have settled: RabbitMQ emits queue
 * statistics every 5 s, and until then its records lack most figures (a third of the bytes), so
 * a list taken right after the declarations would compare unlike records.
 */
async function settledGet(t: Target, s: ScenarioSettings, path: string): Promise<{ ms: number; bytes: number }> {
  await new Promise((r) => setTimeout(r, s.statsSettleMs));
  const runs: Array<{ ms: number; bytes: number }> = [];
  for (let i = 0; i < 5; i++) runs.push(path.startsWith("/metrics") ? await scrapeGet(t.metrics, path) : await httpGet(t, path));
  runs.sort((a, b) => a.ms - b.ms);
  return runs[2]!;
}

const rss = (t: Target): string => (t.pid === undefined ? "n/a (no pid)" : formatMiB(residentBytes(t.pid)));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Coney only: spawn the broker on an empty data dir and time until its AMQP port accepts. */
async function coneyStartup(): Promise<string> {
  const bin = fileURLToPath(new URL("../../../bin/coney.js", import.meta.url));
  const dataDir = mkdtempSync(join(tmpdir(), "coney-startup-"));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [bin, "--amqp-port", String(port), "--http-port", "off", "--prometheus-port", "off", "--bind", "127.0.0.1", "--data-dir", dataDir, "--log-level", "silent"], { stdio: "ignore" });
  try {
    for (;;) {
      const ok = await new Promise<boolean>((resolve) => {
        const s = createConnection({ port, host: "127.0.0.1" }, () => {
          s.destroy();
          resolve(true);
        });
        s.on("error", () => resolve(false));
      });
      if (ok) return `${Math.round(performance.now() - started)} ms`;
      if (performance.now() - started > 10_000) return "did not start in 10 s";
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    child.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Scenario {
  readonly name: string;
  readonly title: string;
  readonly measure: Measure | null;
}

/** In order: the idle-queue scenarios share the queues that "declare" creates and "cleanup" deletes. */
export const SCENARIOS: readonly Scenario[] = [
  { name: "1p1c-16b", title: "1 producer, 1 consumer, 16 B, manual ack, prefetch 1000", measure: throughput({ size: 16 }) },
  { name: "1p1c-1kb", title: "same, 1 KB", measure: throughput({ size: 1024 }) },
  { name: "1p1c-64kb", title: "same, 64 KB", measure: throughput({ size: 65536 }) },
  { name: "persistent", title: "persistent, confirms (256 in flight), durable queue, 16 B", measure: throughput({ size: 16, persistent: true, confirm: 256 }) },
  { name: "stream-confirm", title: "confirms (256 in flight), stream queue (consumed from next), 16 B", measure: throughput({ size: 16, persistent: true, confirm: 256, stream: true }) },
  { name: "fanout", title: "1 producer → fanout of 10 queues, 10 consumers (deliveries/s)", measure: throughput({ size: 16, queues: 10, consumers: 10, fanout: true }) },
  {
    name: "declare",
    title: "declare N queues (10 channels)",
    measure: async (t, s) => `${(await eachQueue(t, s.queueCount, "declare")).toFixed(2)} s`,
  },
  {
    name: "list-full",
    title: "GET /api/queues with N queues, full list",
    measure: async (t, s) => {
      const r = await settledGet(t, s, "/api/queues");
      return `${Math.round(r.ms)} ms (${(r.bytes / 1048576).toFixed(1)} MiB)`;
    },
  },
  {
    name: "list-page",
    title: "GET /api/queues?page=1&page_size=100 with N queues",
    measure: async (t, s) => `${Math.round((await settledGet(t, s, "/api/queues?page=1&page_size=100")).ms)} ms`,
  },
  {
    name: "metrics",
    title: "GET /metrics (Prometheus, aggregated) with N queues",
    measure: async (t, s) => `${(await settledGet(t, s, "/metrics")).ms.toFixed(1)} ms`,
  },
  {
    name: "metrics-per-object",
    title: "GET /metrics/per-object (Prometheus) with N queues",
    measure: async (t, s) => {
      const r = await settledGet(t, s, "/metrics/per-object");
      return `${Math.round(r.ms)} ms (${(r.bytes / 1048576).toFixed(1)} MiB gzipped)`;
    },
  },
  { name: "rss-queues", title: "broker RSS with N idle queues", measure: async (t) => rss(t) },
  { name: "cleanup", title: "delete the N queues (not a target)", measure: async (t, s) => `${(await eachQueue(t, s.queueCount, "delete")).toFixed(2)} s` },
  {
    name: "rss-connections",
    title: "broker RSS with C idle connections (before → with them)",
    measure: async (t, s) => {
      const before = rss(t);
      const conns: AMQPBaseClient[] = [];
      try {
        for (let i = 0; i < s.connectionCount; i++) conns.push(await new AMQPClient(t.uri).connect());
        await new Promise((r) => setTimeout(r, 1000));
        return `${before} → ${rss(t)}`;
      } finally {
        await Promise.all(conns.map((c) => c.close().catch(() => {})));
      }
    },
  },
  { name: "startup", title: "start to accepting connections, empty data dir (Coney only)", measure: null },
];

export async function runScenarios(targets: readonly Target[], s: ScenarioSettings, print: (line: string) => void): Promise<void> {
  const rows: string[][] = [];
  for (const sc of SCENARIOS) {
    if (s.only && !s.only.includes(sc.name)) continue;
    const title = sc.title.replaceAll(" N ", ` ${s.queueCount.toLocaleString("en-US")} `).replaceAll(" C ", ` ${s.connectionCount.toLocaleString("en-US")} `);
    process.stderr.write(`${sc.name}: ${title}\n`);
    const cells: string[] = [];
    for (const t of targets) {
      if (sc.measure === null) {
        cells.push(t === targets[0] ? await coneyStartup() : "n/a");
        continue;
      }
      try {
        cells.push(await sc.measure(t, s));
      } catch (err) {
        cells.push(`error: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    rows.push([title, ...cells]);
  }
  const header = ["scenario", ...targets.map((t) => t.name)];
  print(`| ${header.join(" | ")} |`);
  print(`|${header.map(() => "---").join("|")}|`);
  for (const r of rows) print(`| ${r.join(" | ")} |`);
}
