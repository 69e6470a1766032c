/**
 * CPU a process has used (user + system), read from /proc/<pid>/stat — the figure every coney-perf
 * table's "broker CPU per message" is made of. Linux only.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

let clockTicks = 0;

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  if (clockTicks === 0) clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may contain spaces) close with ')': state is the first.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** Voluntary context switches of the process so far (/proc/<pid>/status): how often it slept in epoll and was woken, its event loop's wake-ups. */
export function wakeUps(pid: number): number {
  const m = /voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m === null ? 0 : Number(m[1]);
}
