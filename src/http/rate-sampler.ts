/**
 * The `<field>_details: {"rate": r}` siblings of the management API's counters. RabbitMQ
 * samples its counters every 5 s and serves rates that lag behind; here a record's counters are
 * read live when it is served, and its rate is (live value − the value sampled one to two
 * intervals ago) / elapsed seconds, so a rate covers every event up to the request.
 *
 * One timer samples every object's counters (the `collect` callback names them by a key that is
 * stable for the object's life). Objects that disappear drop out at the next sample. Each sample
 * also goes into the chart history (sample-history.ts), which requests with RabbitMQ's chart
 * parameters read back.
 */
import { SampleHistory, type ChartPoint, type RetentionPolicies } from "./sample-history.js";

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
  /** This view with chart samples added to every `_details`, over the ranges asked. */
  withSamples(ranges: ChartRanges): RateView;
}

/** A chart's range: RabbitMQ's `<group>_age` and `<group>_incr`, in seconds. */
export interface ChartRange {
  readonly age: number;
  readonly incr: number;
}

/**
 * RabbitMQ's chart groups: queue lengths (`lengths_age`), message rates (`msg_rates_age`), data
 * rates (`data_rates_age`: octets) and the node's gauges (`node_stats_age`). A group not asked
 * for takes the first one that was.
 */
export interface ChartRanges {
  readonly lengths?: ChartRange;
  readonly msgRates?: ChartRange;
  readonly dataRates?: ChartRange;
  readonly nodeStats?: ChartRange;
}

const LENGTH_FIELDS = new Set(["messages", "messages_ready", "messages_unacknowledged"]);
const DATA_FIELDS = new Set(["recv_oct", "send_oct"]);

/** Which retention policy a sampled key's history follows (global: overview, vhosts, node). */
export type PolicyOf = (key: string) => keyof RetentionPolicies;

export const SAMPLE_INTERVAL_MS = 5000;

export class RateSampler implements RateView {
  private older = new Map<string, Sample>();
  private newer = new Map<string, Sample>();
  private lastTick: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** `<field>_details`, built once per field name rather than once per record served. */
  private readonly detailsKeys = new Map<string, string>();

  private readonly history: SampleHistory;

  constructor(
    private readonly collect: Collect,
    private readonly now: () => number = Date.now,
    private readonly policyOf: PolicyOf = () => "global",
    retention?: RetentionPolicies,
  ) {
    this.history = new SampleHistory(retention);
  }

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
    this.collect((key, counters) => {
      next.set(key, { t, counters });
      this.history.record(key, counters, t, this.policyOf(key));
    });
    this.history.retain(next);
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
    return this.fill(target, key, counters, null);
  }

  /**
   * The view a request with RabbitMQ's chart parameters (`lengths_age`, `msg_rates_age`, …) gets:
   * each `_details` also carries `samples` (the live value, then the history every `incr` seconds
   * back to `age`, newest first), `avg` and `avg_rate` over them.
   */
  withSamples(ranges: ChartRanges): RateView {
    const view: RateView = {
      withRates: (key, counters) => this.fill({}, key, counters, ranges),
      addRates: (target, key, counters) => this.fill(target, key, counters, ranges),
      withSamples: (r) => this.withSamples(r),
    };
    return view;
  }

  private fill<T extends Record<string, unknown>>(target: T, key: string, counters: Counters, ranges: ChartRanges | null): T {
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
      out[this.detailsKey(field)] = ranges === null ? { rate } : this.chart(key, field, value, now, rate, rangeOf(ranges, key, field));
    }
    return target;
  }

  private chart(key: string, field: string, value: number, now: number, rate: number, range: ChartRange): Record<string, unknown> {
    const points: ChartPoint[] = this.history.samples(key, field, value, now, range.age, range.incr);
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

/** The range for `field` of `key`: its group's, or the first group asked for. */
function rangeOf(ranges: ChartRanges, key: string, field: string): ChartRange {
  const own = key === NODE_KEY ? ranges.nodeStats : LENGTH_FIELDS.has(field) ? ranges.lengths : DATA_FIELDS.has(field) ? ranges.dataRates : ranges.msgRates;
  return own ?? ranges.lengths ?? ranges.msgRates ?? ranges.dataRates ?? ranges.nodeStats ?? { age: 60, incr: 5 };
}

/** The node's gauges (node-record.ts samples them under this key): charted by `node_stats_age`. */
export const NODE_KEY = "node-gauges";
