/**
 * What a served consumer holds until the connecting node settles it (served-consumer.ts), found
 * by the id its DELIVER frame carried without a Map (issue 42: a Map's set, get and delete per
 * forwarded delivery showed in the leader's profile).
 *
 * The id is the leader's to choose (the connecting node only echoes it in SETTLE), so it names a
 * slot: id = generation × SLOTS + slot. A settled slot is reused for the next delivery (a stack
 * of free slots), and its generation moves on, so an id settled once, or never handed out, finds
 * nothing. Slots are reused rather than indexed by delivery order because a consumer may hold
 * one message for long while others flow past it: memory stays bounded by the most ever held at
 * once (the consumer's window), not by how far deliveries ran ahead of the oldest.
 *
 * Invariants: `size` = slots holding an entry; every id handed out is an integer below 2^52.
 */

/** Slots per consumer at most (ids keep the slot in their low part). */
export const MAX_HELD = 1 << 21;
/** Generations wrap here, so ids stay exact in a double: an id settled 2^31 reuses ago of its slot is long gone. */
const GENERATIONS = 0x8000_0000;

export class HeldDeliveries<T> {
  /** Entries held, by slot (null: free). */
  private readonly slots: Array<T | null> = [];
  /** Each slot's generation. */
  private readonly generations: number[] = [];
  private readonly free: number[] = [];
  size = 0;

  /** Holds `entry`: returns the id that settles it. */
  add(entry: T): number {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.slots.length;
      this.slots.push(entry);
      this.generations.push(0);
    } else {
      this.slots[slot] = entry;
    }
    this.size++;
    return this.generations[slot]! * MAX_HELD + slot;
  }

  /** The entry held under `id`, no longer held; undefined when none is (settled already, or not an id of this holder). */
  take(id: number): T | undefined {
    const slot = id % MAX_HELD;
    const generation = (id - slot) / MAX_HELD;
    // A slot out of range, negative or fractional finds no generation; a settled or reused slot finds another.
    if (this.generations[slot] !== generation) return undefined;
    const entry = this.slots[slot];
    if (entry === null || entry === undefined) return undefined;
    this.slots[slot] = null;
    this.generations[slot] = (generation + 1) % GENERATIONS;
    this.free.push(slot);
    this.size--;
    return entry;
  }

  /** Visits every entry held (in slot order), keeping them held. */
  each(visit: (entry: T) => void): void {
    for (const entry of this.slots) if (entry !== null && entry !== undefined) visit(entry);
  }

  /** Every entry held (in slot order), none held any more. */
  takeAll(): T[] {
    const out: T[] = [];
    const slots = this.slots;
    for (let slot = 0; slot < slots.length; slot++) {
      const entry = slots[slot];
      if (entry === null || entry === undefined) continue;
      out.push(entry);
      slots[slot] = null;
      this.generations[slot] = (this.generations[slot]! + 1) % GENERATIONS;
      this.free.push(slot);
    }
    this.size = 0;
    return out;
  }
}
