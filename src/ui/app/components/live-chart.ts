/**
 * A live line chart (uPlot): each poll of a page appends one point per series, so the chart shows
 * the last ten minutes the tab has watched. The points are kept in the app's chart history (by
 * chart id) so leaving a page and coming back does not start the chart over.
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
      // At least a minute of time axis: one or two points must not stretch it to years.
      scales: { x: { time: true, range: (_u, min, max) => (max === null || min === null ? [Date.now() / 1000 - 60, Date.now() / 1000] : [Math.min(min, max - 60), max]) }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        { stroke: "#5b6770", grid: { stroke: "#e6eaee" }, ticks: { stroke: "#e6eaee" } },
        { stroke: "#5b6770", grid: { stroke: "#e6eaee" }, ticks: { stroke: "#e6eaee" }, size: 60, values: (_u, ticks) => ticks.map(format) },
      ],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, ...(s.dash ? { dash: [6, 4] } : {}), points: { show: false }, value: (_u: uPlot, v: number | null) => (v === null ? "–" : format(v)) }))],
    };
    plot.current = new uPlot(opts, history() as uPlot.AlignedData, el);
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
    plot.current?.setData(h as uPlot.AlignedData);
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
