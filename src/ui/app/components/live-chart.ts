/**
 * A live line chart (uPlot): each poll of a page appends one point per series, so the chart shows
 * the last ten minutes the tab has watched. The points are kept in the app's chart history (by
 * chart id) so leaving a page and coming back does not start the chart over.
 *
 * The time axis is ours, not uPlot's: at least the last minute (uPlot stretches a lone point over
 * a thousand days), clock times only (no dates that collide with their neighbours), and ticks at
 * least a label's width apart whatever the chart's width. The plot element carries the labels and
 * their positions in `data-ticks`.
 */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import { useApp } from "../app-context.js";
import { html } from "../html.js";

export interface SeriesDef {
  readonly label: string;
  readonly color: string;
  /** Dashed, for a series that often equals another (confirm = publish, total = ready) so both stay visible. */
  readonly dash?: boolean;
}

/** Time (s) then one column per series (null: no sample, the line breaks). */
export type History = Array<Array<number | null>>;

const KEEP_POINTS = 300;
/** The shortest time axis (s): one or two points still show as the last minute. */
const MIN_SPAN_S = 60;
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

/** Shows the points held, over at least the last minute. */
function fitTime(u: uPlot, h: History): void {
  const t = h[0] as number[];
  const last = t.length ? t[t.length - 1]! : Date.now() / 1000;
  const first = t.length ? t[0]! : last;
  u.setScale("x", { min: Math.min(first, last - MIN_SPAN_S), max: last });
}

export function LiveChart({ id, title, series, values, format }: {
  id: string;
  title: string;
  series: readonly SeriesDef[];
  /** The newest figures, one per series; a new array each poll appends a point. */
  values: ReadonlyArray<number | undefined> | undefined;
  format: (n: number) => string;
}) {
  const { charts, refreshMs } = useApp();
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  const history = (): History => {
    let h = charts.get(id);
    if (!h) {
      h = [[], ...series.map(() => [])];
      charts.set(id, h);
    }
    return h;
  };

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
        { stroke: "#5b6770", grid: { stroke: "#e6eaee" }, ticks: { stroke: "#e6eaee" }, size: 60, values: (_u, ticks) => ticks.map(format) },
      ],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, ...(s.dash ? { dash: [6, 4] } : {}), points: { show: false }, value: (_u: uPlot, v: number | null) => (v === null ? "–" : format(v)) }))],
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
    plot.current = new uPlot(opts, history() as uPlot.AlignedData, el);
    fitTime(plot.current, history());
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(200, el.clientWidth), height: 190 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [id]);

  useEffect(() => {
    if (!values) return;
    const h = history();
    const now = Date.now() / 1000;
    const last = (h[0] as number[]).at(-1);
    // Points are only taken while the page is watched: a gap (page left, tab hidden) stays a gap
    // (a null point breaks the line) instead of a straight line drawn across unseen minutes.
    if (last !== undefined && now - last > Math.max(3 * refreshMs, 10_000) / 1000) {
      (h[0] as number[]).push(last + 0.001);
      for (let i = 1; i < h.length; i++) (h[i] as Array<number | null>).push(null);
    }
    (h[0] as number[]).push(now);
    values.forEach((v, i) => (h[i + 1] as number[]).push(v ?? 0));
    if ((h[0] as number[]).length > KEEP_POINTS) for (const col of h) col.shift();
    if (plot.current) {
      plot.current.setData(h as uPlot.AlignedData, false);
      fitTime(plot.current, h);
    }
  }, [values]);

  const latest = values ?? [];
  return html`<figure class="chart">
    <figcaption>${title}</figcaption>
    <div ref=${box} class="chart-plot" role="img" aria-label=${`${title} chart`}></div>
    <ul class="chart-legend">
      ${series.map((s, i) => html`<li><span class="swatch" style=${{ background: s.color }}></span>${s.label} <strong>${latest[i] === undefined ? "–" : format(latest[i] as number)}</strong></li>`)}
    </ul>
  </figure>`;
}
