/**
 * A FIFO of record refs (see record-ref.ts) on a growable Float64Array ring: 8 bytes per paged-out
 * message, no object per message. A negative value marks a ref whose entry was delivered before
 * (restored as redelivered); refs are never 0.
 */
const EMPTY = new Float64Array(0);

export class RefFifo {
  /** Allocated on first push: most durable queues never page. */
  private buf = EMPTY;
  private head = 0;
  private size = 0;

  get length(): number {
    return this.size;
  }

  push(v: number): void {
    if (this.size === this.buf.length) this.grow();
    this.buf[(this.head + this.size) & (this.buf.length - 1)] = v;
    this.size++;
  }

  peek(): number {
    return this.size === 0 ? 0 : this.buf[this.head]!;
  }

  shift(): number {
    if (this.size === 0) return 0;
    const v = this.buf[this.head]!;
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.size--;
    return v;
  }

  /** The i-th value from the head (0 = oldest). */
  at(i: number): number {
    return this.buf[(this.head + i) & (this.buf.length - 1)]!;
  }

  setAt(i: number, v: number): void {
    this.buf[(this.head + i) & (this.buf.length - 1)] = v;
  }

  /** Empties the FIFO, returning what it held in order. */
  drain(): Float64Array {
    const out = new Float64Array(this.size);
    for (let i = 0; i < this.size; i++) out[i] = this.buf[(this.head + i) & (this.buf.length - 1)]!;
    this.buf = EMPTY;
    this.head = 0;
    this.size = 0;
    return out;
  }

  /** Capacity stays a power of two so index wrap is a mask. */
  private grow(): void {
    const next = new Float64Array(Math.max(1024, this.buf.length * 2));
    for (let i = 0; i < this.size; i++) next[i] = this.buf[(this.head + i) & (this.buf.length - 1)]!;
    this.buf = next;
    this.head = 0;
  }
}
