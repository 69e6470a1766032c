/**
 * `coney-perf testing`: what coney/testing costs a test suite (issue 29's targets). Each sample is
 * a fresh Node process (this module run with `--child`), so the first start includes loading the
 * code, as in a test runner's worker:
 * - first: `import("coney/testing")` + the first `startTestBroker()` (and the same with `http`);
 * - next: each further start, and each close;
 * - reset: `reset()` with 1,000 queues (half durable) declared over AMQP by a connected client;
 * - memory: heap and external memory per idle test broker, 200 of them in one process, after a full GC.
 * Figures are medians over the processes; the report prints each with its spread.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { AMQPClient } from "@cloudamqp/amqp-client";

interface ChildFigures {
  readonly firstMs: number;
  readonly firstHttpMs: number;
  readonly nextStartMs: number;
  readonly closeMs: number;
  readonly reset1000Ms: number;
  readonly idleBrokerBytes: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** The measurements of one fresh process. `gc` needs --expose-gc. */
async function measure(): Promise<ChildFigures> {
  const t0 = performance.now();
  const { startTestBroker } = await import("../testing/index.js");
  const first = await startTestBroker();
  const firstMs = performance.now() - t0;
  const h0 = performance.now();
  const withHttp = await startTestBroker({ http: true });
  const firstHttpMs = performance.now() - h0;
  await withHttp.close();
  const starts: number[] = [];
  const closes: number[] = [];
  for (let i = 0; i < 30; i++) {
    const s = performance.now();
    const b = await startTestBroker();
    starts.push(performance.now() - s);
    const c = performance.now();
    await b.close();
    closes.push(performance.now() - c);
  }
  const resets: number[] = [];
  for (let round = 0; round < 30; round++) {
    const conn = await new AMQPClient(first.amqpUrl).connect();
    const ch = await conn.channel();
    const declared: Promise<unknown>[] = [];
    for (let i = 0; i < 1000; i++) declared.push(ch.queueDeclare(`q${i}`, { durable: i % 2 === 0 }));
    await Promise.all(declared);
    const r = performance.now();
    first.reset();
    resets.push(performance.now() - r);
    // reset() closed the connection (CONNECTION_FORCED): nothing to close here.
    void conn;
  }
  await first.close();
  const gc = (globalThis as { gc?: () => void }).gc!;
  // The JavaScript heap and the buffers outside it (RSS moves in steps the allocator chooses).
  const used = (): number => {
    gc();
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const before = used();
  const idle = [];
  for (let i = 0; i < 200; i++) idle.push(await startTestBroker());
  const idleBrokerBytes = (used() - before) / idle.length;
  for (const b of idle) await b.close();
  // The first ten rounds warm the code up (a suite resets before every test).
  return { firstMs, firstHttpMs, nextStartMs: median(starts), closeMs: median(closes), reset1000Ms: median(resets.slice(10)), idleBrokerBytes };
}

function child(): Promise<ChildFigures> {
  const proc = spawn(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--child"], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) =>
    proc.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as ChildFigures) : reject(new Error(`the measuring process exited with ${code}`)))),
  );
}

export async function runTestBrokerBench(processes: number, print: (line: string) => void): Promise<void> {
  const runs: ChildFigures[] = [];
  for (let i = 0; i < processes; i++) runs.push(await child());
  const row = (label: string, pick: (f: ChildFigures) => number, unit: string, target: string, scale = 1, digits = 2): void => {
    const xs = runs.map((r) => pick(r) / scale);
    print(`| ${label} | ${median(xs).toFixed(digits)} ${unit} | ${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)} | ${target} |`);
  };
  print(`coney/testing, ${processes} fresh processes (medians; range across processes)`);
  print("| what | median | range | target |");
  print("|---|---|---|---|");
  row("first startTestBroker() including the import", (f) => f.firstMs, "ms", "< 300 ms", 1, 0);
  row("first startTestBroker({ http: true }) after that", (f) => f.firstHttpMs, "ms", "", 1, 0);
  row("each next startTestBroker()", (f) => f.nextStartMs, "ms", "< 20 ms");
  row("close()", (f) => f.closeMs, "ms", "< 10 ms");
  row("reset() with 1,000 queues", (f) => f.reset1000Ms, "ms", "< 1 ms");
  row("memory per idle test broker", (f) => f.idleBrokerBytes, "MiB", "< 5 MiB", 1048576);
}

if (process.argv.includes("--child")) {
  measure().then(
    (f) => process.stdout.write(JSON.stringify(f)),
    (err: unknown) => {
      process.stderr.write(`${String(err)}\n`);
      process.exit(1);
    },
  );
}
