/**
 * A consistent-hash ring: each member sits at points of the 32-bit hash space (its weight times
 * POINTS_PER_WEIGHT), and a key belongs to the member at the first point at or after the key's
 * hash (wrapping around).
 * A member's points depend only on its own identity, so adding or removing one moves only the
 * keys that land on its points; a member with twice the weight owns about twice the space.
 *
 * The points live in one sorted Uint32Array with a parallel array of members, rebuilt when a
 * member comes or goes (rare); a lookup is a binary search and allocates nothing.
 */

/** FNV-1a over a string's UTF-16 code units, then murmur3's finaliser for a good spread of short keys. */
export function hashString(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return finalise(h);
}

/** The same hash over raw bytes (a binary header value). */
export function hashBytes(b: Uint8Array, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < b.length; i++) {
    h ^= b[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return finalise(h);
}

function finalise(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Points per unit of weight. A member's share of the ring is the sum of the arcs before its
 * points, which varies by about 1/sqrt(points): 1024 points per weight keep a weight-1 member
 * within a few percent of its share (a handful of points would leave it anywhere from half to
 * double), at 12 bytes per point.
 */
export const POINTS_PER_WEIGHT = 1024;

interface Member<T> {
  readonly value: T;
  readonly points: Uint32Array;
}

export class HashRing<T> {
  /** By member identity (its id string). */
  private readonly members = new Map<string, Member<T>>();
  private points = new Uint32Array(0);
  private owners: T[] = [];

  get size(): number {
    return this.members.size;
  }

  get pointCount(): number {
    return this.points.length;
  }

  /** Adds a member at `weight` × POINTS_PER_WEIGHT points derived from `id` (unique in the ring). */
  add(id: string, value: T, weight: number): void {
    const n = weight * POINTS_PER_WEIGHT;
    const points = new Uint32Array(n);
    for (let i = 0; i < n; i++) points[i] = hashString(`${id}\u0000${i}`);
    this.members.set(id, { value, points });
    this.rebuild();
  }

  remove(id: string): void {
    if (this.members.delete(id)) this.rebuild();
  }

  /** The member owning `hash` (the first point at or after it, wrapping), or undefined when the ring is empty. */
  lookup(hash: number): T | undefined {
    const p = this.points;
    const n = p.length;
    if (n === 0) return undefined;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (p[mid]! < hash) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === n ? 0 : lo];
  }

  /**
   * Sorts every point with its member's rank packed below it (point × 2^21 + rank, exact in a
   * double), so one typed-array sort orders a million points quickly; members are ranked by id,
   * so the owner of a point two members share never depends on the order they were added in.
   */
  private rebuild(): void {
    const ids = [...this.members.keys()].sort();
    let total = 0;
    for (const m of this.members.values()) total += m.points.length;
    const packed = new Float64Array(total);
    let k = 0;
    for (let rank = 0; rank < ids.length; rank++) {
      for (const point of this.members.get(ids[rank]!)!.points) packed[k++] = point * RANK_SPAN + rank;
    }
    packed.sort();
    const values = ids.map((id) => this.members.get(id)!.value);
    this.points = new Uint32Array(total);
    this.owners = new Array<T>(total);
    for (let i = 0; i < total; i++) {
      const x = packed[i]!;
      const rank = x % RANK_SPAN;
      this.points[i] = (x - rank) / RANK_SPAN;
      this.owners[i] = values[rank]!;
    }
  }
}

/** Room for 2^21 members below each point in the packed sort key (2^32 × 2^21 = 2^53). */
const RANK_SPAN = 2 ** 21;
