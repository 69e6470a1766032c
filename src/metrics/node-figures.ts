/**
 * The process's own figures, read when a scrape asks: resident memory, file descriptors in use
 * and their limit, free space on the data dir's file system, uptime. On systems without /proc
 * the descriptor figures are absent (no sample) rather than made up.
 */
import { readdirSync, readFileSync, statfsSync } from "node:fs";

export interface NodeFigures {
  readonly residentMemory: number;
  /** NaN when unknown (no /proc). */
  readonly openFds: number;
  readonly maxFds: number;
  readonly diskFree: number;
  readonly uptimeSeconds: number;
}

export function nodeFigures(dataDir: string): NodeFigures {
  return {
    residentMemory: process.memoryUsage.rss(),
    openFds: openFds(),
    maxFds: maxFds(),
    diskFree: diskFree(dataDir),
    uptimeSeconds: process.uptime(),
  };
}

function openFds(): number {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return NaN;
  }
}

/** The soft limit on open files, from /proc/self/limits ("Max open files  <soft>  <hard>  files"). */
function maxFds(): number {
  try {
    for (const line of readFileSync("/proc/self/limits", "utf8").split("\n")) {
      if (!line.startsWith("Max open files")) continue;
      const soft = line.slice("Max open files".length).trim().split(/\s+/)[0];
      return soft === "unlimited" ? NaN : Number(soft);
    }
  } catch {
    // not Linux: unknown
  }
  return NaN;
}

function diskFree(dir: string): number {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return NaN;
  }
}
