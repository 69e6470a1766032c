/**
 * One perf run: declare the queues (and the fanout exchange), fork the consumers and producers,
 * start them together, collect their counts, delete what was declared.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { AMQPClient, type AMQPChannel } from "@cloudamqp/amqp-client";
import { LatencyHistogram } from "./latency-histogram.js";
import { fanoutName, queueName, type PerfOptions } from "./perf-options.js";
import type { WorkerResult, WorkerRole } from "./perf-worker.js";

export interface PerfResult {
  readonly published: number;
  readonly consumed: number;
  readonly publishedPerSecond: number;
  readonly consumedPerSecond: number;
  /** Milliseconds; NaN when nothing was consumed. */
  readonly latencyP50: number;
  readonly latencyP99: number;
  /** CPU the client processes (producers and consumers) spent during the run, microseconds. */
  readonly clientCpuMicros: number;
}

const WORKER = fileURLToPath(new URL("./perf-worker.js", import.meta.url));

interface Worker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  readonly done: Promise<WorkerResult>;
}

function forkWorker(role: WorkerRole, index: number, o: PerfOptions): Worker {
  const child = fork(WORKER, [role, String(index), JSON.stringify(o)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let readyResolve!: () => void;
  const ready = new Promise<void>((r) => (readyResolve = r));
  const done = new Promise<WorkerResult>((resolve, reject) => {
    child.on("message", (m: { type: string; result?: WorkerResult }) => {
      if (m.type === "ready") readyResolve();
      else if (m.type === "done") resolve(m.result!);
    });
    child.on("exit", (code) => reject(new Error(`${role} ${index} exited with code ${code} before reporting`)));
  });
  // A worker that dies before "ready" must fail the run, not hang it.
  return { child, ready: Promise.race([ready, done.then(() => undefined)]), done };
}

async function declare(o: PerfOptions): Promise<() => Promise<void>> {
  // Queue i through declareUris[i % n] when given (a spread cluster homes it on that node), else through `uri`.
  const through = o.declareUris !== undefined && o.declareUris.length > 0 ? o.declareUris : [o.uri];
  const conns = await Promise.all(through.map((u) => new AMQPClient(u).connect()));
  const chans = await Promise.all(conns.map((c) => c.channel()));
  const chOf = (i: number): AMQPChannel => chans[i % chans.length]!;
  for (let i = 0; i < o.queues; i++) {
    const ch = chOf(i);
    await ch.queueDelete(queueName(o, i)).catch(() => {});
    await ch.queueDeclare(queueName(o, i), { durable: o.persistent || o.stream === true }, o.stream === true ? { "x-queue-type": "stream" } : {});
    if (o.fanout) {
      await ch.exchangeDeclare(fanoutName(o), "fanout", { durable: o.persistent });
      await ch.queueBind(queueName(o, i), fanoutName(o), "");
    }
  }
  return async () => {
    for (let i = 0; i < o.queues; i++) await chOf(i).queueDelete(queueName(o, i));
    if (o.fanout) await chOf(0).exchangeDelete(fanoutName(o));
    for (const c of conns) await c.close();
  };
}

export async function runPerf(options: PerfOptions): Promise<PerfResult> {
  // Names of this run only: publishes of an earlier run still in the broker's socket buffers must
  // not land in this run's queues and be counted here.
  const o: PerfOptions = { ...options, queuePrefix: `${options.queuePrefix}-${process.pid}-${Date.now().toString(36)}` };
  const cleanup = await declare(o);
  const workers: Worker[] = [];
  try {
    for (let i = 0; i < o.consumers; i++) workers.push(forkWorker("consumer", i, o));
    for (let i = 0; i < o.producers; i++) workers.push(forkWorker("producer", i, o));
    await Promise.all(workers.map((w) => w.ready));
    const until = Date.now() + o.durationSeconds * 1000;
    for (const w of workers) w.child.send({ until });
    const results = await Promise.all(workers.map((w) => w.done));
    const histogram = new LatencyHistogram();
    let published = 0;
    let consumed = 0;
    let clientCpuMicros = 0;
    for (const r of results) {
      clientCpuMicros += r.cpuMicros;
      if (r.role === "producer") published += r.count;
      else {
        consumed += r.count;
        histogram.merge(new LatencyHistogram(r.histogram));
      }
    }
    return {
      published,
      consumed,
      publishedPerSecond: published / o.durationSeconds,
      consumedPerSecond: consumed / o.durationSeconds,
      latencyP50: histogram.percentile(0.5),
      latencyP99: histogram.percentile(0.99),
      clientCpuMicros,
    };
  } finally {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill();
    await cleanup();
  }
}

/** One run's figures as coney-perf prints them. */
export function formatResult(r: PerfResult): string {
  const ms = (x: number): string => (Number.isNaN(x) ? "n/a" : `${x.toFixed(2)} ms`);
  return [
    `published: ${Math.round(r.publishedPerSecond).toLocaleString("en-US")} msg/s (${r.published} messages)`,
    `consumed:  ${Math.round(r.consumedPerSecond).toLocaleString("en-US")} msg/s (${r.consumed} messages)`,
    `latency:   p50 ${ms(r.latencyP50)}, p99 ${ms(r.latencyP99)}`,
  ].join("\n");
}
