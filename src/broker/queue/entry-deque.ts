/**
 * A FIFO of queue entries on a growable ring buffer: push/shift are O(1) with no per-operation
 * allocation (an Array's shift() is O(n) once arrays get large).
 */
import type { QueueEntry } from "./queue-entry.js";

export class EntryDeque {
  private buf: Array<QueueEntry | undefined>;
  private head = 0;
  private size = 0;

  constructor(capacity = 16) {
    this.buf = new Array<QueueEntry | undefined>(capacity);
  }

  get length(): number {
    return this.size;
  }

  push(e: QueueEntry): void {
    if (this.size === this.buf.length) this.grow();
    this.buf[(this.head + this.size) & (this.buf.length - 1)] = e;
    this.size++;
  }

  /** Puts an entry back at the front (the oldest position). */
  unshift(e: QueueEntry): void {
    if (this.size === this.buf.length) this.grow();
    this.head = (this.head - 1) & (this.buf.length - 1);
    this.buf[this.head] = e;
    this.size++;
  }

  peek(): QueueEntry | undefined {
    return this.size === 0 ? undefined : this.buf[this.head];
  }

  peekLast(): QueueEntry | undefined {
    return this.size === 0 ? undefined : this.buf[(this.head + this.size - 1) & (this.buf.length - 1)];
  }

  shift(): QueueEntry | undefined {
    if (this.size === 0) return undefined;
    const e = this.buf[this.head];
    this.buf[this.head] = undefined; // let the message be collected
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.size--;
    return e;
  }

  pop(): QueueEntry | undefined {
    if (this.size === 0) return undefined;
    const i = (this.head + this.size - 1) & (this.buf.length - 1);
    const e = this.buf[i];
    this.buf[i] = undefined;
    this.size--;
    return e;
  }

  /** Moves the entries `drop` picks into `out`, keeping the others in order (failure paths only: O(n)). */
  removeWhere(drop: (e: QueueEntry) => boolean, out: QueueEntry[]): void {
    for (let n = this.size; n > 0; n--) {
      const e = this.shift()!;
      if (drop(e)) out.push(e);
      else this.push(e);
    }
  }

  clear(): QueueEntry[] {
    const out: QueueEntry[] = [];
    for (let e = this.shift(); e; e = this.shift()) out.push(e);
    return out;
  }

  *[Symbol.iterator](): IterableIterator<QueueEntry> {
    for (let i = 0; i < this.size; i++) yield this.buf[(this.head + i) & (this.buf.length - 1)]!;
  }

  /** Capacity stays a power of two so index wrap is a mask, not a modulo. */
  private grow(): void {
    const next = new Array<QueueEntry | undefined>(this.buf.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = this.buf[(this.head + i) & (this.buf.length - 1)];
    this.buf = next;
    this.head = 0;
  }
}
