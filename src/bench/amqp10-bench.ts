/**
 * `coney-perf amqp10`: one AMQP 1.0 sender → one receiver on one queue, against any AMQP 1.0
 * broker: Coney, or RabbitMQ 3.10's rabbitmq_amqp1_0 plugin. The queue is declared over AMQP
 * 0-9-1 on the same port (non-durable, as the 0-9-1 rows' queues) and addressed with the v1
 * address both brokers take for an existing queue, `/amq/queue/:q`; it is deleted after the run.
 * Sender and receiver run in two child processes (amqp10-perf-worker.ts), as the 0-9-1 rows'
 * producers and consumers do, so neither the other nor the parent shares its event loop.
 * Clients: `raw` (the lean generator, the default) or `rhea`. Modes: `unsettled` (the sender
 * keeps at most --window deliveries awaiting their outcome, the receiver accepts each and gives
 * --credit credit) and `settled` (both pre-settled; the sender is paced by link credit alone).
 * After one second of warm-up the run is measured: rates, the broker's CPU per received message,
 * and each client process's CPU (so a run limited by its load generator shows it).
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { AMQPClient } from "@cloudamqp/amqp-client";
import type { Amqp10Client, Amqp10Role, Amqp10WorkerOptions, Amqp10WorkerResult } from "./amqp10-perf-worker.js";
import { cpuSeconds } from "./process-cpu.js";
import { RAW_MAX_FRAME_SIZE } from "./amqp10-raw-client.js";

export interface Amqp10BenchOptions {
  /** amqp://user:pass@host:port */
  readonly url: string;
  readonly size: number;
  readonly mode: "unsettled" | "settled";
  readonly credit: number;
  /** Unsettled mode: deliveries awaiting their outcome at most. */
  readonly window: number;
  readonly durationSeconds: number;
  readonly client: Amqp10Client;
  /** The broker's pid: its CPU time (user + system) per received message is reported. */
  readonly brokerPid?: number;
  /** The max-frame-size both clients announce (default 131072): smaller, and a message goes in several transfers. */
  readonly frameMax?: number;
}

export interface Amqp10BenchResult {
  readonly sentPerSecond: number;
  readonly receivedPerSecond: number;
  /** Broker CPU µs per received message over the measured run (with brokerPid), else NaN. */
  readonly brokerCpuMicros: number;
  /** The share of one core each client process used over the measured run (1 = a whole core). */
  readonly senderCpuShare: number;
  readonly receiverCpuShare: number;
}

const WORKER = fileURLToPath(new URL("./amqp10-perf-worker.js", import.meta.url));
const WARM_UP_MS = 1000;

interface Worker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  readonly done: Promise<Amqp10WorkerResult>;
}

function forkWorker(role: Amqp10Role, o: Amqp10WorkerOptions): Worker {
  const child = fork(WORKER, [role, JSON.stringify(o)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let readyResolve!: () => void;
  const ready = new Promise<void>((r) => (readyResolve = r));
  const done = new Promise<Amqp10WorkerResult>((resolve, reject) => {
    child.on("message", (m: { type: string; result?: Amqp10WorkerResult }) => {
      if (m.type === "ready") readyResolve();
      else if (m.type === "done") resolve(m.result!);
    });
    child.on("exit", (code) => reject(new Error(`amqp10 ${role} exited with code ${code} before reporting`)));
  });
  // A worker that dies before "ready" fails the run instead of hanging it.
  return { child, ready: Promise.race([ready, done.then(() => undefined)]), done };
}

export async function runAmqp10Bench(o: Amqp10BenchOptions): Promise<Amqp10BenchResult> {
  const queue = `coney-perf-amqp10-${process.pid}-${Date.now().toString(36)}`;
  const amqp = await new AMQPClient(o.url).connect();
  const ch = await amqp.channel();
  await ch.queueDeclare(queue, { durable: false });
  const w: Amqp10WorkerOptions = { url: o.url, address: `/amq/queue/${queue}`, size: o.size, settled: o.mode === "settled", credit: o.credit, window: o.window, client: o.client, frameMax: o.frameMax ?? RAW_MAX_FRAME_SIZE };
  const workers: Worker[] = [];
  try {
    // The receiver attaches first, so nothing is sent before someone receives.
    workers.push(forkWorker("receiver", w));
    await workers[0]!.ready;
    workers.push(forkWorker("sender", w));
    await workers[1]!.ready;
    const from = Date.now() + WARM_UP_MS;
    const until = from + o.durationSeconds * 1000;
    for (const x of workers) x.child.send({ from, until });
    let cpuStart = Number.NaN;
    const pid = o.brokerPid;
    if (pid !== undefined) setTimeout(() => (cpuStart = cpuSeconds(pid)), from - Date.now());
    const cpuEnd = pid === undefined ? Promise.resolve(Number.NaN) : new Promise<number>((r) => setTimeout(() => r(cpuSeconds(pid)), until - Date.now()));
    const [received, sent] = await Promise.all(workers.map((x) => x.done));
    const cpu = (await cpuEnd) - cpuStart;
    const seconds = o.durationSeconds;
    return {
      sentPerSecond: sent!.count / seconds,
      receivedPerSecond: received!.count / seconds,
      brokerCpuMicros: (cpu * 1e6) / received!.count,
      senderCpuShare: sent!.cpuMicros / (seconds * 1e6),
      receiverCpuShare: received!.cpuMicros / (seconds * 1e6),
    };
  } finally {
    for (const x of workers) if (x.child.exitCode === null) x.child.kill();
    await ch.queueDelete(queue).catch(() => undefined);
    await amqp.close().catch(() => undefined);
  }
}

export function formatAmqp10Result(o: Amqp10BenchOptions, r: Amqp10BenchResult): string {
  const rate = (x: number): string => Math.round(x).toLocaleString("en");
  const pct = (x: number): string => `${Math.round(x * 100)}%`;
  const frames = o.frameMax === undefined || o.frameMax === RAW_MAX_FRAME_SIZE ? "" : `, frame-max ${o.frameMax}`;
  const settings = `credit ${o.credit}${o.mode === "unsettled" ? ` window ${o.window}` : ""}, client ${o.client}${frames}`;
  const broker = Number.isNaN(r.brokerCpuMicros) ? "" : `, broker CPU ${r.brokerCpuMicros.toFixed(1)} µs/msg`;
  return `amqp10 ${o.mode} ${o.size} B  ${settings}: sent ${rate(r.sentPerSecond)} msg/s, received ${rate(r.receivedPerSecond)} msg/s${broker}; client CPU sender ${pct(r.senderCpuShare)}, receiver ${pct(r.receiverCpuShare)} of a core`;
}
