/**
 * A chart of the broker's history (uPlot): every poll brings the object's samples over the chosen
 * range (chart-range.ts), so the chart is full on first load and follows the broker live after.
 * The columns come from chart-series.ts: lengths and gauges as sampled, rates from successive
 * counter samples.
 *
 * The time axis is ours, not uPlot's: the whole range chosen (history not kept yet stays empty
 * rather than stretched), clock times only (no dates that collide with their neighbours), and ticks
 * at least a label's width apart whatever the chart's width. The plot element carries the labels
 * and their positions in `data-ticks`, and what it draws in `data-points` (time points), `data-peak`
 * (the largest figure before the newest point), `data-age` and `data-incr` (the range), readable
 * without the canvas.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useRef } from "preact/hooks";
import uPlot from "uplot";
import { axisLabels, gaugeColumns, latest, rateColumns, WHOLE_STEPS, type Columns, type Details } from "../chart-series.js";
import { html } from "../html.js";
import { RangePicker, type ChartRange } from "./chart-range.js";

export interface SeriesDef {
  readonly label: string;
  readonly color: string;
  /** Dashed, for a series that often equals another (confirm = publish, total = ready) so both stay visible. */
  readonly dash?: boolean;
}

/** Room per time label (px): "10:19:45" at the axis font, with a gap. */
const TICK_SPACE_PX = 80;
const STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400];

const pad = (n: number): string => String(n).padStart(2, "0");

/** Tick times (s) for [min, max] on `width` CSS pixels: round multiples of a step, TICK_SPACE_PX apart or more. */
export function timeTicks(min: number, max: number, width: number): number[] {
  const span = Math.max(max - min, 1);
  const fit = Math.max(1, Math.floor(width / TICK_SPACE_PX));
  const step = STEPS_S.find((s) => span / s <= fit) ?? STEPS_S[STEPS_S.length - 1]!;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max; t += step) ticks.push(t);
  return ticks;
}

/** A clock label: seconds shown only when ticks are less than a minute apart. */
function clockLabels(ticks: readonly number[]): string[] {
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 60;
  return ticks.map((t) => {
    const d = new Date(t * 1000);
    return step < 60 ? `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}` : `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  });
}

/** Shows the whole range, ending at the newest point (the broker's clock: the samples' own times). */
function fitTime(u: uPlot, cols: Columns, ageSeconds: number): void {
  const t = cols[0] as number[];
  const last = t.length ? t[t.length - 1]! : Date.now() / 1000;
  u.setScale("x", { min: last - ageSeconds, max: last });
}

/** The largest figure drawn before the newest point: what the history (not the live value) shows. */
function peakBefore(cols: Columns): number {
  let peak = 0;
  const last = (cols[0]?.length ?? 0) - 1;
  for (let s = 1; s < cols.length; s++) for (let i = 0; i < last; i++) peak = Math.max(peak, cols[s]![i] ?? 0);
  return peak;
}

/** Dots only where a series has so few points that a line would not show (a lone point draws nothing). */
function fewPoints(u: uPlot, seriesIdx: number): boolean {
  let n = 0;
  for (const v of u.data[seriesIdx] ?? []) if (v !== null && v !== undefined && ++n > 3) return false;
  return true;
}

/** The charts of a page under one range picker. */
export function ChartGrid({ children }: { children: ComponentChildren }) {
  return html`<div class="charts-block">
    <div class="charts-head"><${RangePicker} /></div>
    <div class="charts">${children}</div>
  </div>`;
}

export function HistoryChart({ title, series, details, kind, range, format }: {
  title: string;
  series: readonly SeriesDef[];
  /** Each series' `<field>_details` from the record (with `samples`); undefined until the first answer. */
  details: ReadonlyArray<Details | undefined> | undefined;
  /** "gauge": lengths and gauges as sampled; "rate": per-second rates of counters. */
  kind: "gauge" | "rate";
  /** The range the details were asked for. */
  range: ChartRange;
  format: (n: number) => string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const cols = useMemo<Columns>(() => (details ? (kind === "rate" ? rateColumns(details) : gaugeColumns(details)) : [[], ...series.map(() => [])]), [details, kind]);
  const view = useRef({ cols, age: range.age });
  view.current = { cols, age: range.age };

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: 190,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      // The x range is set by fitTime after every change (uPlot's own makes a lone point years wide).
      scales: { x: { time: true, auto: false }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        {
          stroke: "#5b6770",
          grid: { stroke: "#e6eaee" },
          ticks: { stroke: "#e6eaee" },
          splits: (u, _axis, min, max) => timeTicks(min, max, u.bbox.width / devicePixelRatio),
          values: (_u, ticks) => clockLabels(ticks),
        },
        {
          stroke: "#5b6770",
          grid: { stroke: "#e6eaee" },
          ticks: { stroke: "#e6eaee" },
          size: 72,
          // Lengths and byte counts step in whole numbers; rates may step in fractions, written exactly.
          ...(kind === "gauge" ? { incrs: [...WHOLE_STEPS] } : {}),
          values: (_u, ticks) => {
            const labels = axisLabels(ticks, format);
            el.dataset["yticks"] = JSON.stringify(labels);
            return labels;
          },
        },
      ],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, ...(s.dash ? { dash: [6, 4] } : {}), points: { show: fewPoints, size: 6 }, value: (_u: uPlot, v: number | null) => (v === null ? "–" : format(v)) }))],
      hooks: {
        // What the axis shows, readable without the canvas (and checked by the UI tests).
        draw: [
          (u) => {
            const x = u.scales["x"];
            const ticks = timeTicks(x?.min ?? 0, x?.max ?? 0, u.bbox.width / devicePixelRatio);
            const labels = clockLabels(ticks);
            el.dataset["ticks"] = JSON.stringify(ticks.map((t, i) => [labels[i], Math.round(u.valToPos(t, "x"))]));
          },
        ],
      },
    };
    plot.current = new uPlot(opts, view.current.cols as uPlot.AlignedData, el);
    fitTime(plot.current, view.current.cols, view.current.age);
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(200, el.clientWidth), height: 190 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);

  useEffect(() => {
    const el = box.current;
    // Set once an answer is drawn, so a test waiting on it reads the broker's points, not the empty start.
    if (el && details) {
      el.dataset["points"] = String((cols[0] as number[]).length);
      el.dataset["peak"] = String(peakBefore(cols));
      el.dataset["age"] = String(range.age);
      el.dataset["incr"] = String(range.incr);
    }
    if (!plot.current) return;
    plot.current.setData(cols as uPlot.AlignedData, false);
    fitTime(plot.current, cols, range.age);
  }, [cols, range]);

  return html`<figure class="chart">
    <figcaption>${title} <span class="muted chart-range">${range.label.toLowerCase()}</span></figcaption>
    <div ref=${box} class="chart-plot" role="img" aria-label=${`${title} chart`}></div>
    <ul class="chart-legend">
      ${series.map((s, i) => {
        const v = latest(details?.[i], kind);
        return html`<li><span class="swatch" style=${{ background: s.color }}></span>${s.label} <strong>${v === undefined ? "–" : format(v)}</strong></li>`;
      })}
    </ul>
  </figure>`;
}
