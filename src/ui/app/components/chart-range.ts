/**
 * The charts' time range, as RabbitMQ's UI offers it (last minute … last day, each with its
 * sample spacing): one choice for every chart, remembered in localStorage so it holds across pages
 * and visits. A page asks the broker for its history with `chartQuery` (RabbitMQ's `<group>_age`
 * and `<group>_incr` parameters) and starts its poll over when the range changes.
 */
import { useEffect, useState } from "preact/hooks";
import { html } from "../html.js";

export interface ChartRange {
  readonly key: string;
  readonly label: string;
  /** Seconds back from now. */
  readonly age: number;
  /** Seconds between points. */
  readonly incr: number;
}

/** RabbitMQ's choices (and the broker keeps history for each: docs in README, "Web UI"). */
export const CHART_RANGES: readonly ChartRange[] = [
  { key: "60|5", label: "Last minute", age: 60, incr: 5 },
  { key: "600|5", label: "Last ten minutes", age: 600, incr: 5 },
  { key: "3600|60", label: "Last hour", age: 3600, incr: 60 },
  { key: "28800|600", label: "Last eight hours", age: 28800, incr: 600 },
  { key: "86400|1800", label: "Last day", age: 86400, incr: 1800 },
];

const STORAGE_KEY = "coney.chartRange";
const DEFAULT = CHART_RANGES[0]!;

function stored(): ChartRange {
  try {
    const key = localStorage.getItem(STORAGE_KEY);
    return CHART_RANGES.find((r) => r.key === key) ?? DEFAULT;
  } catch {
    // Storage refused (private mode, a policy): the default for this visit.
    return DEFAULT;
  }
}

let current: ChartRange | null = null;
const listeners = new Set<(r: ChartRange) => void>();

function setRange(r: ChartRange): void {
  current = r;
  try {
    localStorage.setItem(STORAGE_KEY, r.key);
  } catch {
    // Not remembered; the choice still holds until the tab closes.
  }
  for (const l of listeners) l(r);
}

/** The selected range; re-renders when any picker changes it. */
export function useChartRange(): ChartRange {
  const [range, set] = useState<ChartRange>(() => (current ??= stored()));
  useEffect(() => {
    listeners.add(set);
    // A picker may have changed it between this render and the subscription.
    if (current && current !== range) set(current);
    return () => void listeners.delete(set);
  }, []);
  return range;
}

/** RabbitMQ's chart groups a record's `_details` belong to. */
export type ChartGroup = "lengths" | "msg_rates" | "data_rates" | "node_stats";

/** The query parameters asking for `groups`' history over `range`. */
export function chartQuery(range: ChartRange, groups: readonly ChartGroup[]): Record<string, number> {
  const q: Record<string, number> = {};
  for (const g of groups) {
    q[`${g}_age`] = range.age;
    q[`${g}_incr`] = range.incr;
  }
  return q;
}

export function RangePicker() {
  const range = useChartRange();
  return html`<label class="range-picker">Charts <select name="chart-range" value=${range.key}
      onChange=${(e: Event) => {
        const r = CHART_RANGES.find((x) => x.key === (e.target as HTMLSelectElement).value);
        if (r) setRange(r);
      }}>
      ${CHART_RANGES.map((r) => html`<option value=${r.key}>${r.label}</option>`)}
    </select></label>`;
}
