/**
 * The `<field>_details: {"rate": r}` siblings of the management API's counters. RabbitMQ
 * samples its counters every 5 s and serves rates that lag behind; here a record's counters are
 * read live when it is served, and its rate is (live value − the value sampled one to two
 * intervals ago) / elapsed seconds, so a rate covers every event up to the request.
 *
 * One timer samples every object's counters (the `collect` callback names them by a key that is
 * stable for the object's life). Objects that disappear drop out at the next sample.
 */
export type Counters = Readonly<Record<string, number>>;
export type CountersWithRates = Record<string, number | { rate: number }>;

interface Sample {
  readonly t: number;
  readonly counters: Counters;
}

export type Collect = (visit: (key: string, counters: Counters) => void) => void;

/** How records ask for rates: the sampler itself, or its view that adds chart samples. */
export interface RateView {
  withRates(key: string, counters: Counters): CountersWithRates;
  addRates<T extends Record<string, unknown>>(target: T, key: string, counters: Counters): T;
  /** This view with chart samples added to every `_details`. */
  withSamples(): RateView;
}

/** One point of a chart: RabbitMQ's `{sample, timestamp}` (milliseconds since the epoch). */
interface ChartPoint {
  sample: number;
  timestamp: number;
}

export const SAMPLE_INTERVAL_MS = 5000;

export class RateSampler implements RateView {
  private older = new Map<string, Sample>();
  private newer = new Map<string, Sample>();
  private lastTick: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** `<field>_details`, built once per field name rather than once per record served. */
  private readonly detailsKeys = new Map<string, string>();

  constructor(
    private readonly collect: Collect,
    private readonly now: () => number = Date.now,
  ) {}

  start(intervalMs = SAMPLE_INTERVAL_MS): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Takes a sample of every object's counters; the previous sample becomes the baseline. */
  tick(): void {
    const t = this.now();
    const next = new Map<string, Sample>();
    this.collect((key, counters) => next.set(key, { t, counters }));
    this.older = this.newer;
    this.newer = next;
    this.lastTick = t;
  }

  /**
   * `counters` with a `_details` sibling per field. The baseline is the older sample when there
   * is one (1–2 intervals back, a steady window), else the newer; an object sampled never yet
   * (created since the last tick) has counted everything since it was created, so its rate is
   * taken against zero over the time since that tick.
   */
  withRates(key: string, counters: Counters): CountersWithRates {
    return this.addRates({}, key, counters);
  }

  /** `withRates` written into `target` (a record being built), which it returns. */
  addRates<T extends Record<string, unknown>>(target: T, key: string, counters: Counters): T {
    return this.fill(target, key, counters, false);
  }

  /**
   * The view a request with RabbitMQ's chart parameters (`lengths_age`, `msg_rates_age`, …) gets:
   * each `_details` also carries `samples` (the live value and the two samples kept, newest
   * first), `avg` and `avg_rate` over them. Only the last 5–10 s are kept, so that is what the
   * samples cover whatever age was asked (README, "Rates and charts").
   */
  withSamples(): RateView {
    const view: RateView = {
      withRates: (key, counters) => this.fill({}, key, counters, true),
      addRates: (target, key, counters) => this.fill(target, key, counters, true),
      withSamples: () => view,
    };
    return view;
  }

  private fill<T extends Record<string, unknown>>(target: T, key: string, counters: Counters, samples: boolean): T {
    const base = this.older.get(key) ?? this.newer.get(key);
    const now = this.now();
    const since = base?.t ?? this.lastTick ?? now;
    const seconds = (now - since) / 1000;
    const out = target as Record<string, unknown>;
    for (const field in counters) {
      const value = counters[field]!;
      out[field] = value;
      const delta = value - (base?.counters[field] ?? 0);
      const rate = seconds > 0 ? round(delta / seconds) : 0;
      out[this.detailsKey(field)] = samples ? this.chart(key, field, value, now, rate) : { rate };
    }
    return target;
  }

  private chart(key: string, field: string, value: number, now: number, rate: number): Record<string, unknown> {
    const points: ChartPoint[] = [{ sample: value, timestamp: now }];
    for (const s of [this.newer.get(key), this.older.get(key)]) {
      const v = s?.counters[field];
      if (s && v !== undefined && s.t < points[points.length - 1]!.timestamp) points.push({ sample: v, timestamp: s.t });
    }
    const first = points[0]!;
    const last = points[points.length - 1]!;
    const span = (first.timestamp - last.timestamp) / 1000;
    return {
      rate,
      samples: points,
      avg: round(points.reduce((n, p) => n + p.sample, 0) / points.length),
      avg_rate: span > 0 ? round((first.sample - last.sample) / span) : 0,
    };
  }

  private detailsKey(field: string): string {
    let k = this.detailsKeys.get(field);
    if (k === undefined) this.detailsKeys.set(field, (k = `${field}_details`));
    return k;
  }
}

/** RabbitMQ shows rates as floats with one decimal. */
function round(rate: number): number {
  return Math.round(rate * 10) / 10;
}
