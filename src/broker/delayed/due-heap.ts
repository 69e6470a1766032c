/**
 * A binary min-heap of items by due time (ms since epoch), ties in insertion order: the delayed
 * exchange's timer looks only at the top, so one timer covers every held message.
 */
interface Slot<T> {
  readonly due: number;
  readonly order: number;
  readonly item: T;
}

export class DueHeap<T> {
  private readonly slots: Slot<T>[] = [];
  private inserted = 0;

  get size(): number {
    return this.slots.length;
  }

  /** The earliest due time; Infinity when empty. */
  get nextDue(): number {
    return this.slots.length === 0 ? Infinity : this.slots[0]!.due;
  }

  push(due: number, item: T): void {
    const s = this.slots;
    s.push({ due, order: this.inserted++, item });
    let i = s.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(s[i]!, s[parent]!)) break;
      [s[i], s[parent]] = [s[parent]!, s[i]!];
      i = parent;
    }
  }

  /** Removes and returns the earliest item if it is due at `now`; undefined otherwise. */
  popDue(now: number): T | undefined {
    const s = this.slots;
    if (s.length === 0 || s[0]!.due > now) return undefined;
    const top = s[0]!;
    const last = s.pop()!;
    if (s.length > 0) {
      s[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < s.length && before(s[l]!, s[m]!)) m = l;
        if (r < s.length && before(s[r]!, s[m]!)) m = r;
        if (m === i) break;
        [s[i], s[m]] = [s[m]!, s[i]!];
        i = m;
      }
    }
    return top.item;
  }

  /** Every item, in no particular order, and empties the heap. */
  drain(): T[] {
    const items = this.slots.map((s) => s.item);
    this.slots.length = 0;
    return items;
  }
}

function before<T>(a: Slot<T>, b: Slot<T>): boolean {
  return a.due < b.due || (a.due === b.due && a.order < b.order);
}
