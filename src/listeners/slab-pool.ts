/**
 * Read slabs that come back (issue 30). A socket reading into slabs (slab-reads.ts) cuts bodies
 * out of them; without a way back every slab is new external memory, and V8 marks the whole
 * heap per 64 MB of it: at 64 KB bodies about a fifth of the broker's CPU went to the collector,
 * half its user time. Here a slab counts who holds it and returns to the pool when none does.
 *
 * Holders of a slab: the socket reading into it (until it moves to the next slab and no frame
 * it cut is still being assembled: SlabTails.settle), and each BodyLease on a body with bytes in
 * it (SlabLease, below). A lease holds its slabs from the moment a body piece is cut, so a body
 * still arriving keeps them too. Every other cut of a slab is copied before the read returns
 * (small bodies, property bytes, frames split across reads: src/amqp/channel/content-assembly.ts
 * and codec/frame-reader.ts), so nothing reads a slab after its holds reach zero.
 *
 * A lease that is pinned (someone kept the body without counting) never lets its slabs go: they
 * are left to the garbage collector like any Buffer. Forgetting a release costs memory; a
 * release too many would hand bytes still in use to the next read, hence `poison`: tests fill
 * every returned slab with 0xdb, so a body read after its release shows it.
 */
import type { BodyLease } from "../broker/values/body-lease.js";

/**
 * A pool's slab is found from its memory through this property of its ArrayBuffer, set once when
 * the slab is made. A WeakMap did the same with ephemerons the collector must revisit: +10 % broker
 * CPU at 1 KB persistent (measured when each persistent read pinned its slab, looked up per read).
 */
const SLAB = Symbol("coney.slab");

interface SlabMemory {
  [SLAB]?: Slab;
}

/** A slab the pool hands out, and how many holders it has. */
export class Slab {
  /** The reader's hold, first. */
  holds = 1;

  constructor(
    readonly bytes: Buffer,
    readonly pool: SlabPool,
  ) {}

  hold(): void {
    this.holds++;
  }

  release(): void {
    const left = --this.holds;
    if (left === 0) this.pool.give(this);
    else if (left < 0) this.pool.overReleased();
  }
}

export interface SlabPoolOptions {
  /** The size of every slab (slab-reads.ts LARGE_SLAB). */
  readonly slabBytes: number;
  /** At most this many free slabs are kept; beyond, returned ones go to the garbage collector. */
  readonly maxFree: number;
  /** Fill returned slabs with 0xdb and throw on a release too many (tests). */
  readonly poison: boolean;
}

export class SlabPool {
  private readonly free: Slab[] = [];
  /** Slabs handed out again (tests check that slabs come back). */
  reused = 0;
  /** Slabs taken and not yet given back: each reader's current one, and those bodies still hold. */
  outstanding = 0;
  /** Slabs taken since the last trimToDemand(). */
  private takenSinceTrim = 0;

  constructor(readonly options: SlabPoolOptions) {}

  /** A slab for the next reads, its reader's hold taken. */
  take(): Slab {
    this.takenSinceTrim++;
    this.outstanding++;
    const reused = this.free.pop();
    if (reused !== undefined) {
      reused.holds = 1;
      this.reused++;
      return reused;
    }
    const slab = new Slab(Buffer.allocUnsafeSlow(this.options.slabBytes), this);
    (slab.bytes.buffer as SlabMemory)[SLAB] = slab;
    return slab;
  }

  /** The pool's slab that `piece` lies in, if any (another pool's slab counts as none). */
  slabOf(piece: Buffer): Slab | undefined {
    const slab = (piece.buffer as SlabMemory)[SLAB];
    return slab !== undefined && slab.pool === this ? slab : undefined;
  }

  /** A lease on a body whose pieces are added as they are cut (SlabLease.add); it starts with one holder. */
  lease(): SlabLease {
    return new SlabLease(this);
  }

  /** Free slabs kept. */
  get freeCount(): number {
    return this.free.length;
  }

  /** A slab nobody holds any more. */
  give(slab: Slab): void {
    this.outstanding--;
    if (this.free.length >= this.options.maxFree) return;
    if (this.options.poison) slab.bytes.fill(0xdb);
    this.free.push(slab);
  }

  /**
   * Called every few seconds: the free slabs are cut to as many as were taken since the last
   * call, so the pool follows demand. Under steady large traffic every free slab is taken again
   * (nothing is let go); a broker idle after a burst keeps none, a lightly used one a few.
   */
  trimToDemand(): void {
    if (this.free.length > this.takenSinceTrim) this.free.length = this.takenSinceTrim;
    this.takenSinceTrim = 0;
  }

  /** A slab was released more often than held: a holder released twice (a bug; tests throw). */
  overReleased(): void {
    if (this.options.poison) throw new Error("a read slab was released more often than it was held");
  }
}

/**
 * The lease on one message body cut from slabs: it holds each slab its pieces lie in, once, and
 * lets them go when its own holders are done (values/body-lease.ts).
 */
export class SlabLease implements BodyLease {
  private holders = 1;
  private pinned = false;
  /** Until handOver(): releases only count (see BodyLease.handOver). */
  private routing = true;
  /** The first slab held (most bodies lie in one), and any others: a short array, checked linearly. */
  private first: Slab | null = null;
  private more: Slab[] | null = null;

  constructor(private readonly pool: SlabPool) {}

  /** A body piece was cut: holds its slab (once per slab). */
  add(piece: Buffer): void {
    const slab = this.pool.slabOf(piece);
    if (slab === undefined || slab === this.first) return;
    if (this.first === null) this.first = slab;
    else if (this.more === null) this.more = [slab];
    else if (this.more.includes(slab)) return;
    else this.more.push(slab);
    slab.hold();
  }

  hold(): void {
    this.holders++;
  }

  handOver(entries: number): void {
    this.routing = false;
    this.holders += entries;
    this.release();
  }

  release(): void {
    if (this.pinned) return;
    const left = --this.holders;
    if (left > 0 || this.routing) return;
    if (left < 0) return this.pool.overReleased();
    this.first?.release();
    if (this.more !== null) for (const slab of this.more) slab.release();
  }

  pin(): void {
    this.pinned = true;
  }
}
