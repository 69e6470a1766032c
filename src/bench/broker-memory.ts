/** Resident memory of a broker process (Linux /proc), for the reports; null where unreadable. */
import { readFileSync } from "node:fs";

export function residentBytes(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export function formatMiB(bytes: number | null): string {
  return bytes === null ? "n/a" : `${(bytes / 1048576).toFixed(1)} MiB`;
}
