/** Display formats for figures: counts, bytes, rates, durations, times. Pure functions. */

// One formatter for every figure: Number#toLocaleString builds a new one per call, which costs
// tens of milliseconds over a 100-row list.
const INTEGER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const GROUPED = new Intl.NumberFormat("en-US");

export function fmtNum(n: unknown): string {
  if (typeof n !== "number" || !Number.isFinite(n)) return "–";
  return GROUPED.format(n);
}

export function fmtBytes(n: unknown): string {
  if (typeof n !== "number" || !Number.isFinite(n)) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function fmtRate(n: unknown): string {
  if (typeof n !== "number" || !Number.isFinite(n)) return "–";
  if (n === 0) return "0.0/s";
  return `${n >= 100 ? INTEGER.format(n) : n.toFixed(1)}/s`;
}

/** Seconds or milliseconds as "3d 4h", "5m 2s". */
export function fmtDuration(ms: unknown): string {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "–";
  let s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}

export function fmtTime(ms: unknown): string {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "–";
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A value of unknown shape for a table cell: objects as compact JSON. */
export function fmtValue(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** The rate in a `*_details` object: item.message_stats.publish_details.rate. */
export function rateOf(stats: unknown, key: string): number | undefined {
  const d = (stats as Record<string, { rate?: number } | undefined> | undefined)?.[`${key}_details`];
  return typeof d?.rate === "number" ? d.rate : undefined;
}

/** Bytes per second: "1.2 KiB/s". */
export function fmtByteRate(n: unknown): string {
  if (typeof n !== "number" || !Number.isFinite(n)) return "–";
  // Below 10 B/s a tenth still means something (an idle connection's heartbeats).
  return n !== 0 && Math.abs(n) < 10 ? `${n.toFixed(1)} B/s` : `${fmtBytes(Math.round(n))}/s`;
}
