/**
 * A consistent-hash ring: each member sits at points of the 32-bit hash space (its weight times
 * POINTS_PER_WEIGHT), and a key belongs to the member at the first point at or after the key's
 * hash (wrapping around).
 * A member's points depend only on its own identity, so adding or removing one moves only the
 * keys that land on its points; a member with twice the weight owns about twice the space.
 *
 * The points live in one sorted Uint32Array with parallel arrays of members, merged or filtered
 * when a member comes or goes (rare, linear in the ring's size); a lookup is a binary search and
 * allocates nothing.
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

export class HashRing<T> {
  /** Members by id: the value and its point count. */
  private readonly members = new Map<string, number>();
  /** Every point in ascending order (equal points by member id), with its member beside it. */
  private points = new Uint32Array(0);
  private owners: T[] = [];
  private ownerIds: string[] = [];

  get size(): number {
    return this.members.size;
  }

  get pointCount(): number {
    return this.points.length;
  }

  /**
   * Adds a member at `weight` × POINTS_PER_WEIGHT points derived from `id` (unique in the ring):
   * its points are sorted and merged into the ring's, linear in the ring's size.
   */
  add(id: string, value: T, weight: number): void {
    if (this.members.has(id)) this.remove(id);
    const n = weight * POINTS_PER_WEIGHT;
    const mine = new Uint32Array(n);
    for (let i = 0; i < n; i++) mine[i] = hashString(`${id}\u0000${i}`);
    mine.sort();
    const old = this.points;
    const total = old.length + n;
    const points = new Uint32Array(total);
    const owners = new Array<T>(total);
    const ownerIds = new Array<string>(total);
    let a = 0;
    let b = 0;
    for (let k = 0; k < total; k++) {
      const takeOld = b === n || (a < old.length && (old[a]! < mine[b]! || (old[a] === mine[b] && this.ownerIds[a]! < id)));
      if (takeOld) {
        points[k] = old[a]!;
        owners[k] = this.owners[a]!;
        ownerIds[k] = this.ownerIds[a]!;
        a++;
      } else {
        points[k] = mine[b]!;
        owners[k] = value;
        ownerIds[k] = id;
        b++;
      }
    }
    this.members.set(id, n);
    this.points = points;
    this.owners = owners;
    this.ownerIds = ownerIds;
  }

  /** Removes a member's points; every other point keeps its owner. */
  remove(id: string): void {
    const n = this.members.get(id);
    if (n === undefined) return;
    this.members.delete(id);
    const total = this.points.length - n;
    const points = new Uint32Array(total);
    const owners = new Array<T>(total);
    const ownerIds = new Array<string>(total);
    let k = 0;
    for (let i = 0; i < this.points.length; i++) {
      if (this.ownerIds[i] === id) continue;
      points[k] = this.points[i]!;
      owners[k] = this.owners[i]!;
      ownerIds[k] = this.ownerIds[i]!;
      k++;
    }
    this.points = points;
    this.owners = owners;
    this.ownerIds = ownerIds;
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
}
