/**
 * Turns the broker's chart history (each `<field>_details` with `samples`, newest first: the live
 * value at the request's time, then one point every `incr` seconds back to `age`) into the columns
 * a chart draws: time (s) then one column per series, oldest first. Pure: no DOM, no imports, so
 * the unit tests run it under Node.
 *
 * Lengths and gauges are drawn as sampled. Rates come from successive counter samples: the rate
 * at a point is the counter's growth since the previous point over the time between them. The
 * live point is drawn with the broker's own `rate` instead: the aligned point before it may be
 * only a moment older while its value was sampled up to an interval earlier, so a difference over
 * that short gap would spike.
 */

export interface ChartPoint {
  readonly sample: number;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
}

export interface Details {
  readonly rate?: number;
  readonly samples?: readonly ChartPoint[];
}

/** Time (s), then one column per series; null where a series has no point at that time. */
export type Columns = Array<Array<number | null>>;

/** One series' points as [time ms, value], in any order. */
type Points = ReadonlyArray<readonly [number, number]>;

/** The samples as drawn: lengths and gauges. A series without samples shows its live value alone (none: no point). */
export function gaugeColumns(series: ReadonlyArray<Details | undefined>): Columns {
  return align(series.map((d) => (d?.samples ?? []).map((p) => [p.timestamp, p.sample] as const)));
}

/** Per-second rates between successive counter samples, and the broker's live rate at the newest point. */
export function rateColumns(series: ReadonlyArray<Details | undefined>): Columns {
  return align(series.map((d) => ratePoints(d)));
}

function ratePoints(d: Details | undefined): Points {
  const s = d?.samples ?? [];
  const out: Array<readonly [number, number]> = [];
  if (s.length === 0) return out;
  out.push([s[0]!.timestamp, d?.rate ?? 0]);
  // Aligned points (every incr seconds) from the second on; each rate covers the interval it ends.
  for (let i = 1; i + 1 < s.length; i++) {
    const newer = s[i]!;
    const older = s[i + 1]!;
    const seconds = (newer.timestamp - older.timestamp) / 1000;
    if (seconds <= 0) continue;
    // A counter that went down belongs to an object created again: no negative rates.
    out.push([newer.timestamp, Math.max(0, (newer.sample - older.sample) / seconds)]);
  }
  return out;
}

/** Every series on the union of their times, ascending; a series missing a time has null there. */
function align(series: readonly Points[]): Columns {
  const times = new Set<number>();
  for (const pts of series) for (const [t] of pts) times.add(t);
  const sorted = [...times].sort((a, b) => a - b);
  const at = new Map(sorted.map((t, i) => [t, i]));
  const cols: Columns = [sorted.map((t) => t / 1000)];
  for (const pts of series) {
    const col: Array<number | null> = new Array<number | null>(sorted.length).fill(null);
    for (const [t, v] of pts) col[at.get(t)!] = v;
    cols.push(col);
  }
  return cols;
}

/** The newest figure of a series for the legend: the live sample, or the broker's live rate. */
export function latest(d: Details | undefined, kind: "gauge" | "rate"): number | undefined {
  if (!d) return undefined;
  return kind === "rate" ? d.rate : d.samples?.[0]?.sample;
}

/** `<key>_details` of a record (or of its message_stats), when it has one. */
export function detailsOf(record: unknown, key: string): Details | undefined {
  if (typeof record !== "object" || record === null) return undefined;
  const d = (record as Record<string, unknown>)[`${key}_details`];
  return typeof d === "object" && d !== null ? (d as Details) : undefined;
}

/** The y-axis steps of a chart of counts (messages, bytes): whole numbers only, never a fraction of a message. */
export const WHOLE_STEPS: readonly number[] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 2e7, 5e7, 1e8, 2e8, 5e8, 1e9, 2e9, 5e9, 1e10, 1e11, 1e12, 1e13];

/** Decimals needed to write every tick exactly (0.25 needs 2), at most 4. */
function decimalsOf(ticks: readonly number[]): number {
  let most = 0;
  for (const t of ticks) {
    let d = 0;
    while (d < 4 && Math.abs(Number(t.toFixed(d)) - t) > 1e-9) d++;
    if (d > most) most = d;
  }
  return most;
}

/**
 * An axis's labels: the chart's own format while it writes the ticks exactly; otherwise the
 * ticks with the decimals they need and the format's unit (a rate axis at 0.25 and 0.75 reads
 * "0.25/s", "0.75/s", not a rounded "0.3/s", "0.8/s").
 */
export function axisLabels(ticks: readonly number[], format: (n: number) => string): string[] {
  const d = decimalsOf(ticks);
  if (d <= 1) return ticks.map(format);
  const sample = format(10);
  let i = 0;
  while (i < sample.length && ((sample[i]! >= "0" && sample[i]! <= "9") || sample[i] === "." || sample[i] === ",")) i++;
  const unit = sample.slice(i);
  return ticks.map((t) => `${t.toFixed(d)}${unit}`);
}
