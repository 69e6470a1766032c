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

export const SAMPLE_INTERVAL_MS = 5000;

export class RateSampler {
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
    const base = this.older.get(key) ?? this.newer.get(key);
    const now = this.now();
    const since = base?.t ?? this.lastTick ?? now;
    const seconds = (now - since) / 1000;
    const out = target as Record<string, unknown>;
    for (const field in counters) {
      const value = counters[field]!;
      out[field] = value;
      const delta = value - (base?.counters[field] ?? 0);
      out[this.detailsKey(field)] = { rate: seconds > 0 ? round(delta / seconds) : 0 };
    }
    return target;
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
