/**
 * What the whole machine did during a run, for reading a sweep row (docs/PERFORMANCE.md, "Eighth
 * pass"): on a small host the broker, the load generator's clients and the kernel's network and
 * disk work share the cores, and a row whose machine was busy all along measures the machine,
 * not the broker. From /proc/stat (every core's time since boot, in clock ticks) and a process's
 * /proc/<pid>/io (bytes it made the kernel write to storage). Linux only; elsewhere, or without
 * permission to read another user's io file, the figures are absent rather than invented.
 */
import { readFileSync } from "node:fs";

/** The aggregate "cpu" line of /proc/stat: ticks per state since boot. */
export interface MachineTicks {
  readonly busy: number;
  readonly idle: number;
  readonly iowait: number;
  readonly softirq: number;
}

/**
 * Parses /proc/stat's first line: `cpu user nice system idle iowait irq softirq steal …`.
 * Busy is everything but idle and iowait (steal counts as busy: the core was not ours to use).
 */
export function parseMachineTicks(procStat: string): MachineTicks | null {
  const line = procStat.slice(0, procStat.indexOf("\n") >>> 0);
  const f = line.trim().split(/\s+/);
  if (f[0] !== "cpu" || f.length < 8) return null;
  const n = f.slice(1).map(Number);
  if (n.some((x) => !Number.isFinite(x))) return null;
  const [user, nice, system, idle, iowait, irq, softirq] = n as [number, number, number, number, number, number, number];
  const steal = n[7] ?? 0;
  return { busy: user + nice + system + irq + softirq + steal, idle, iowait, softirq };
}

export function readMachineTicks(): MachineTicks | null {
  try {
    return parseMachineTicks(readFileSync("/proc/stat", "utf8"));
  } catch {
    return null;
  }
}

/** Shares of all cores' time between two readings: busy, of which softirq, and iowait. */
export interface MachineShare {
  readonly busy: number;
  readonly softirq: number;
  readonly iowait: number;
}

export function machineShare(before: MachineTicks, after: MachineTicks): MachineShare | null {
  const busy = after.busy - before.busy;
  const total = busy + after.idle - before.idle + after.iowait - before.iowait;
  if (total <= 0) return null;
  return { busy: busy / total, softirq: (after.softirq - before.softirq) / total, iowait: (after.iowait - before.iowait) / total };
}

/** Bytes the process has caused to be written to storage (`write_bytes` of /proc/<pid>/io); null if unreadable. */
export function storageWriteBytes(pid: number): number | null {
  try {
    const io = readFileSync(`/proc/${pid}/io`, "utf8");
    const at = io.indexOf("\nwrite_bytes:");
    if (at < 0) return null;
    const value = Number.parseInt(io.slice(at + 13), 10);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

const percent = (x: number): string => `${Math.round(x * 100)} %`;

/** "machine busy 92 % (softirq 12 %, iowait 0 %)", for a run's line. */
export function formatMachineShare(s: MachineShare): string {
  return `machine busy ${percent(s.busy)} (softirq ${percent(s.softirq)}, iowait ${percent(s.iowait)})`;
}
