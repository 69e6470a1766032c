/**
 * `coney-perf sizes`: the message-size sweep of docs/PERFORMANCE.md — one producer, one consumer,
 * for each body size, transient and persistent+confirm, against one broker or two in the same
 * run. Besides messages/s it reports what the broker process spent: CPU per consumed message
 * (user + system time from /proc/<pid>/stat over the run) and its peak resident memory (sampled
 * every 100 ms), so a broker that is fast only by burning more CPU, or by buffering without
 * bound, shows it.
 *
 * Runs on one machine vary by ±20 %: `repeat` measures each cell that many times, alternating
 * which broker goes first, and reports the median rate and CPU (and the highest RSS). Each run's
 * line on stderr also gives the load generator's own CPU per message: on a small machine the
 * clients share the cores with the broker, which bounds how far apart two brokers can be.
 * Before each run the sweep waits for the brokers to be quiet and syncs the disk (settle). The
 * line also says how busy the whole machine was (and, for persistent runs, how many bytes per
 * message the broker wrote to storage): a row run on a machine busy all along, or at the disk's
 * bandwidth, measures the machine more than the broker (machine-load.ts).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { residentBytes } from "./broker-memory.js";
import { formatMachineShare, machineShare, readMachineTicks, storageWriteBytes } from "./machine-load.js";
import { DEFAULT_PERF_OPTIONS, type PerfClient, type PerfOptions } from "./perf-options.js";
import { formatResult, runPerf } from "./perf-run.js";

export interface SweepTarget {
  readonly name: string;
  readonly uri: string;
  /** The broker's pid, for CPU and memory; without it those columns say n/a. */
  readonly pid: number | undefined;
}

export type SweepMode = "transient" | "persistent";

export interface SweepOptions {
  readonly sizes: readonly number[];
  readonly modes: readonly SweepMode[];
  readonly durationSeconds: number;
  /** Unconfirmed publishes per producer in persistent mode. */
  readonly confirm: number;
  /** Runs per cell and broker (alternating order); the table shows medians. */
  readonly repeat: number;
  /** The clients' code (perf-options.ts); default amqp-client. */
  readonly client?: PerfClient;
}

/** One cell of the sweep. */
export interface SweepCell {
  readonly consumedPerSecond: number;
  /** Microseconds of broker CPU (user + system) per consumed message; NaN without a pid. */
  readonly cpuMicrosPerMessage: number;
  /** Peak resident memory of the broker during the run, bytes; NaN without a pid. */
  readonly peakRss: number;
}

/**
 * Prefetch per size: 1,000 as the rest of the table, fewer for large bodies so that what a
 * consumer may hold unacknowledged stays near 64 MiB (a 1 MB run with prefetch 1,000 measures
 * a gigabyte of buffering, not the broker). Both brokers get the same value.
 */
export function prefetchFor(size: number): number {
  return Math.max(16, Math.min(1000, Math.floor((64 * 1024 * 1024) / size)));
}

let clockTicks = 0;
/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  if (clockTicks === 0) clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may contain spaces) close with ')': state is the first.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** A broker counts as quiet once it used under a tenth of a core over half a second. */
const QUIET_CPU_SECONDS = 0.05;
const SETTLE_LIMIT_MS = 60_000;

/**
 * Before a run: waits until every broker is quiet and the page cache's dirty data is written
 * (`sync`), so a run does not pay for the last one's aftermath — a broker still deleting a
 * backlog of gigabytes, or the kernel writing it back, took half the throughput of the next
 * broker's persistent run.
 */
async function settle(pids: readonly number[]): Promise<void> {
  const until = Date.now() + SETTLE_LIMIT_MS;
  while (Date.now() < until) {
    const before = pids.map(cpuSeconds);
    await new Promise((r) => setTimeout(r, 500));
    if (pids.every((pid, i) => cpuSeconds(pid) - before[i]! < QUIET_CPU_SECONDS)) break;
  }
  execFileSync("sync");
}

async function measure(t: SweepTarget, o: PerfOptions, quiet: readonly number[]): Promise<SweepCell> {
  await settle(quiet);
  let peak = Number.NaN;
  let timer: NodeJS.Timeout | undefined;
  if (t.pid !== undefined) {
    const pid = t.pid;
    peak = residentBytes(pid) ?? Number.NaN;
    timer = setInterval(() => {
      const r = residentBytes(pid);
      if (r !== null && !(r <= peak)) peak = r;
    }, 100);
  }
  try {
    const cpuStart = t.pid === undefined ? Number.NaN : cpuSeconds(t.pid);
    const machineStart = readMachineTicks();
    const writtenStart = t.pid === undefined ? null : storageWriteBytes(t.pid);
    const r = await runPerf(o);
    // The run's CPU includes its declarations and the final drain: counted against consumed
    // messages, which is what the broker did work for.
    const cpu = t.pid === undefined ? Number.NaN : cpuSeconds(t.pid) - cpuStart;
    const machineEnd = readMachineTicks();
    const writtenEnd = t.pid === undefined ? null : storageWriteBytes(t.pid);
    const loadMicros = r.consumed > 0 ? (r.clientCpuMicros / r.consumed).toFixed(1) : "n/a";
    // Whether the run was bound by the machine rather than the broker, and what reached the disk.
    const share = machineStart && machineEnd ? machineShare(machineStart, machineEnd) : null;
    const machine = share ? `; ${formatMachineShare(share)}` : "";
    const disk = o.persistent && writtenStart !== null && writtenEnd !== null && r.consumed > 0 ? `; broker wrote ${((writtenEnd - writtenStart) / r.consumed / 1024).toFixed(1)} KiB/msg to storage` : "";
    process.stderr.write(`  ${t.name} ${o.size} B${o.persistent ? " persistent" : ""}: ${formatResult(r).replaceAll("\n", "; ")}; load generator CPU ${loadMicros} µs/msg${machine}${disk}\n`);
    return { consumedPerSecond: r.consumedPerSecond, cpuMicrosPerMessage: r.consumed > 0 ? (cpu * 1e6) / r.consumed : Number.NaN, peakRss: peak };
  } finally {
    if (timer) clearInterval(timer);
  }
}

/** The median rate and CPU of a cell's runs, and the highest RSS any of them reached. */
export function medianCell(runs: readonly SweepCell[]): SweepCell {
  const median = (xs: number[]): number => {
    const v = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
    if (v.length === 0) return Number.NaN;
    const m = v.length >> 1;
    return v.length % 2 === 1 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
  };
  const rss = runs.map((c) => c.peakRss).filter((x) => !Number.isNaN(x));
  return {
    consumedPerSecond: median(runs.map((c) => c.consumedPerSecond)),
    cpuMicrosPerMessage: median(runs.map((c) => c.cpuMicrosPerMessage)),
    peakRss: rss.length === 0 ? Number.NaN : Math.max(...rss),
  };
}

export function formatSize(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KB`;
  return `${n} B`;
}

const rate = (c: SweepCell): string => `${Math.round(c.consumedPerSecond).toLocaleString("en-US")}/s`;
const cpu = (c: SweepCell): string => (Number.isNaN(c.cpuMicrosPerMessage) ? "n/a" : `${c.cpuMicrosPerMessage.toFixed(1)} µs`);
const rss = (c: SweepCell): string => (Number.isNaN(c.peakRss) ? "n/a" : `${(c.peakRss / 1048576).toFixed(0)} MiB`);

/** Runs the sweep and prints a Markdown table row by row (the first target is "ours", the second the comparison). */
export async function runSizeSweep(targets: readonly SweepTarget[], s: SweepOptions, print: (line: string) => void): Promise<void> {
  const names = targets.map((t) => t.name);
  const pids = targets.flatMap((t) => (t.pid === undefined ? [] : [t.pid]));
  const head = ["body", "mode", "prefetch", ...names.flatMap((n) => [`${n} msg/s`, `${n} CPU/msg`, `${n} peak RSS`])];
  if (targets.length === 2) head.push("msg/s ratio", "CPU ratio");
  print(`| ${head.join(" | ")} |`);
  print(`|${head.map(() => "---").join("|")}|`);
  for (const mode of s.modes) {
    for (const size of s.sizes) {
      const o: PerfOptions = {
        ...DEFAULT_PERF_OPTIONS,
        size,
        prefetch: prefetchFor(size),
        persistent: mode === "persistent",
        confirm: mode === "persistent" ? s.confirm : 0,
        durationSeconds: s.durationSeconds,
        queuePrefix: "sweep",
        client: s.client ?? "amqp-client",
      };
      const runs: SweepCell[][] = targets.map(() => []);
      for (let r = 0; r < s.repeat; r++) {
        // Odd rounds go in reverse order, so neither broker always runs right after the other.
        const order = r % 2 === 0 ? targets.map((_, i) => i) : targets.map((_, i) => targets.length - 1 - i);
        for (const i of order) runs[i]!.push(await measure(targets[i]!, { ...o, uri: targets[i]!.uri }, pids));
      }
      const cells = runs.map(medianCell);
      const row = [formatSize(size), mode === "persistent" ? `persistent, confirm ${s.confirm}` : "transient", String(o.prefetch), ...cells.flatMap((c) => [rate(c), cpu(c), rss(c)])];
      if (cells.length === 2) {
        const [a, b] = cells as [SweepCell, SweepCell];
        row.push(`${(a.consumedPerSecond / b.consumedPerSecond).toFixed(2)}×`);
        row.push(Number.isNaN(a.cpuMicrosPerMessage) || Number.isNaN(b.cpuMicrosPerMessage) ? "n/a" : `${(a.cpuMicrosPerMessage / b.cpuMicrosPerMessage).toFixed(2)}`);
      }
      print(`| ${row.join(" | ")} |`);
    }
  }
}
