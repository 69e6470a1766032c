/**
 * The history behind the management API's charts, kept by the broker as RabbitMQ keeps it
 * (`management.sample_retention_policies`): every 5 s the rate sampler records each object's
 * counters, and each retention level keeps points at its own interval for its own age — by default
 * for the overview, vhosts and the node ("global") 5 s points for 605 s, 1 min points for 1 h,
 * 10 min for 8 h 10 min and 30 min for a day; for queues, exchanges, connections and channels
 * ("basic") 5 s for 605 s and 1 min for 1 h. A request with `lengths_age`/`lengths_incr`,
 * `msg_rates_age`/`msg_rates_incr`, … gets `samples` at every `incr` seconds back to `age` at once,
 * so a chart has its history on first load.
 *
 * Memory: a point is one float per counter; an object whose counters have all been zero since it
 * appeared keeps nothing (10,000 idle queues cost no history), and an object gone at a sample
 * loses its history. Invariant: within a ring, points are in time order, newest at `head - 1`.
 */

/** One retention level: points every `intervalSeconds`, kept for `ageSeconds`. */
export interface RetentionLevel {
  readonly ageSeconds: number;
  readonly intervalSeconds: number;
}

export interface RetentionPolicies {
  /** The overview, vhosts and the node. */
  readonly global: readonly RetentionLevel[];
  /** Queues, exchanges, connections and channels. */
  readonly basic: readonly RetentionLevel[];
}

/** RabbitMQ 3.10's defaults (rabbitmq_management's sample_retention_policies). */
export const DEFAULT_RETENTION: RetentionPolicies = {
  global: [
    { ageSeconds: 605, intervalSeconds: 5 },
    { ageSeconds: 3660, intervalSeconds: 60 },
    { ageSeconds: 29400, intervalSeconds: 600 },
    { ageSeconds: 86400, intervalSeconds: 1800 },
  ],
  basic: [
    { ageSeconds: 605, intervalSeconds: 5 },
    { ageSeconds: 3600, intervalSeconds: 60 },
  ],
};

/** One point of a chart: RabbitMQ's `{sample, timestamp}` (milliseconds since the epoch). */
export interface ChartPoint {
  readonly sample: number;
  readonly timestamp: number;
}

/** A fixed number of points of every field of one object, oldest overwritten first. */
class Ring {
  readonly times: Float64Array;
  readonly values: Float64Array;
  /** Next slot to write; `size` slots before it (wrapping) hold points. */
  head = 0;
  size = 0;

  constructor(readonly slots: number, readonly width: number, readonly intervalMs: number) {
    this.times = new Float64Array(slots);
    this.values = new Float64Array(slots * width);
  }

  get newestTime(): number {
    return this.times[(this.head - 1 + this.slots) % this.slots]!;
  }

  /**
   * Records a point: one per interval, the last sample taken in it (interval k covers
   * (k-1)·I < t ≤ k·I), so the point read at an interval's end is the value then.
   */
  push(t: number, counters: Readonly<Record<string, number>>, fields: readonly string[]): void {
    const sameInterval = this.size > 0 && Math.ceil(t / this.intervalMs) === Math.ceil(this.newestTime / this.intervalMs);
    const slot = sameInterval ? (this.head - 1 + this.slots) % this.slots : this.head;
    this.times[slot] = t;
    const base = slot * this.width;
    for (let i = 0; i < fields.length; i++) this.values[base + i] = counters[fields[i]!] ?? 0;
    if (sameInterval) return;
    this.head = (slot + 1) % this.slots;
    if (this.size < this.slots) this.size++;
  }

  /** The time of the k-th newest point (k = 1 is the newest; 1 ≤ k ≤ size). */
  timeBack(k: number): number {
    return this.times[(this.head - k + this.slots) % this.slots]!;
  }

  /** Field `i` of the k-th newest point. */
  valueBack(k: number, i: number): number {
    return this.values[((this.head - k + this.slots) % this.slots) * this.width + i]!;
  }
}

interface ObjectHistory {
  readonly fields: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  readonly rings: readonly Ring[];
}

export class SampleHistory {
  private readonly objects = new Map<string, ObjectHistory>();

  constructor(private readonly retention: RetentionPolicies = DEFAULT_RETENTION) {}

  /** Records `counters` of `key` at `t` (ms) into each level whose interval has passed. */
  record(key: string, counters: Readonly<Record<string, number>>, t: number, policy: keyof RetentionPolicies): void {
    let h = this.objects.get(key);
    if (h === undefined) {
      if (allZero(counters)) return;
      h = this.create(counters, policy);
      this.objects.set(key, h);
    } else if (!sameFields(h, counters)) {
      // The object's counter set changed shape (it does not for one object): start again.
      h = this.create(counters, policy);
      this.objects.set(key, h);
    }
    for (const ring of h.rings) ring.push(t, counters, h.fields);
  }

  /** Drops the history of every object not in `alive` (called after each round of samples). */
  retain(alive: { has(key: string): boolean }): void {
    for (const key of this.objects.keys()) if (!alive.has(key)) this.objects.delete(key);
  }

  /**
   * The points of `field` of `key` every `incrSeconds` back to `ageSeconds` from `now`, newest
   * first, starting with `live` at `now`, each timestamp a multiple of `incr`; from the finest
   * level that covers the age. An object with no history (all zero so far) reads as zero.
   */
  samples(key: string, field: string, live: number, now: number, ageSeconds: number, incrSeconds: number): ChartPoint[] {
    const points: ChartPoint[] = [{ sample: live, timestamp: now }];
    const incr = Math.max(1, incrSeconds) * 1000;
    const newest = Math.floor(now / incr) * incr;
    const from = newest - ageSeconds * 1000;
    const h = this.objects.get(key);
    const i = h?.index.get(field);
    const ring = h && i !== undefined ? pickRing(h.rings, ageSeconds) : undefined;
    // At most 1,000 points, whatever was asked: a chart is a few hundred pixels wide.
    const wanted = Math.floor((now - from) / incr);
    const step = wanted > 1000 ? incr * Math.ceil(wanted / 1000) : incr;
    // Walks the ring newest to oldest once, alongside the requested times (both descending).
    let k = 1;
    for (let t = newest; t >= from; t -= step) {
      if (t === now) continue;
      if (ring === undefined) {
        points.push({ sample: 0, timestamp: t });
        continue;
      }
      while (k <= ring.size && ring.timeBack(k) > t) k++;
      if (k > ring.size) break;
      points.push({ sample: ring.valueBack(k, i!), timestamp: t });
    }
    return points;
  }

  /** How many objects keep a history (for the memory figures and tests). */
  get size(): number {
    return this.objects.size;
  }

  private create(counters: Readonly<Record<string, number>>, policy: keyof RetentionPolicies): ObjectHistory {
    const fields = Object.keys(counters);
    const index = new Map(fields.map((f, i) => [f, i]));
    const rings = this.retention[policy].map((l) => new Ring(Math.floor(l.ageSeconds / l.intervalSeconds) + 2, fields.length, l.intervalSeconds * 1000));
    return { fields, index, rings };
  }
}

/**
 * The finest level that reaches `ageSeconds` back, or the longest one. A ring holds one more
 * interval than its age: the current, unfinished one (the live value stands for it).
 */
function pickRing(rings: readonly Ring[], ageSeconds: number): Ring | undefined {
  for (const r of rings) if ((r.slots - 2) * r.intervalMs >= ageSeconds * 1000) return r;
  return rings[rings.length - 1];
}

function allZero(counters: Readonly<Record<string, number>>): boolean {
  for (const k in counters) if (counters[k] !== 0) return false;
  return true;
}

function sameFields(h: ObjectHistory, counters: Readonly<Record<string, number>>): boolean {
  let n = 0;
  for (const k in counters) {
    if (!h.index.has(k)) return false;
    n++;
  }
  return n === h.fields.length;
}
