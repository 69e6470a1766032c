/**
 * Latency percentiles without keeping every sample: log-spaced buckets (about 2% wide) from 1 µs
 * to ~17 minutes. Histograms from several consumer processes merge by adding their buckets.
 */
const BUCKETS_PER_DOUBLING = 32;
const MIN_US = 1;
const BUCKETS = BUCKETS_PER_DOUBLING * 30;

export class LatencyHistogram {
  readonly counts: number[];
  total = 0;

  constructor(counts?: readonly number[]) {
    this.counts = counts ? [...counts] : new Array<number>(BUCKETS).fill(0);
    for (const c of this.counts) this.total += c;
  }

  /** Records one latency in milliseconds (negative clock skew counts as zero). */
  record(ms: number): void {
    const us = Math.max(MIN_US, ms * 1000);
    const i = Math.min(BUCKETS - 1, Math.floor(Math.log2(us / MIN_US) * BUCKETS_PER_DOUBLING));
    this.counts[i]!++;
    this.total++;
  }

  merge(other: LatencyHistogram): void {
    for (let i = 0; i < BUCKETS; i++) this.counts[i]! += other.counts[i]!;
    this.total += other.total;
  }

  /** The latency (ms, bucket's upper edge) below which fraction `p` of the samples fall; NaN when empty. */
  percentile(p: number): number {
    if (this.total === 0) return Number.NaN;
    const rank = Math.ceil(p * this.total);
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return (MIN_US * 2 ** ((i + 1) / BUCKETS_PER_DOUBLING)) / 1000;
    }
    return Number.NaN;
  }
}
