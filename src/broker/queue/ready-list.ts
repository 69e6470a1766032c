/**
 * The ready messages of a queue, in delivery order. Requeued entries (rejected, nacked, or left
 * unacked by a closed channel) return to their original positions: since a queue always hands
 * out its oldest entry, every requeued entry is older (smaller seq) than every entry that was
 * never delivered, so requeued entries live in their own small list sorted by seq and are served
 * first. The list is kept in descending order so that taking the oldest is an O(1) pop().
 */
import type { ReadyFill } from "./queue-journal.js";
import { EntryDeque } from "./entry-deque.js";
import type { QueueEntry } from "./queue-entry.js";

/** What a queue needs from its ready messages; a plain FIFO or a priority queue (priority-ready-list.ts). */
export interface ReadyEntries extends Iterable<QueueEntry>, ReadyFill {
  readonly length: number;
  readonly bytes: number;
  push(e: QueueEntry): void;
  peek(): QueueEntry | undefined;
  shift(): QueueEntry | undefined;
  requeue(entries: readonly QueueEntry[]): void;
  clear(): QueueEntry[];
  /** Removes the entries `drop` picks, keeping every other in its place; returns them (failure paths only: O(n)). */
  removeWhere(drop: (e: QueueEntry) => boolean): QueueEntry[];
}

export class ReadyList implements ReadyEntries {
  private readonly fresh = new EntryDeque();
  /** Descending by seq: the oldest requeued entry is last. */
  private requeued: QueueEntry[] = [];
  bytes = 0;

  get length(): number {
    return this.fresh.length + this.requeued.length;
  }

  levelLength(): number {
    return this.length;
  }

  topLevel(): number {
    return this.length > 0 ? 0 : -1;
  }

  push(e: QueueEntry): void {
    this.fresh.push(e);
    this.bytes += e.message.bodySize;
  }

  peek(): QueueEntry | undefined {
    return this.requeued.length > 0 ? this.requeued[this.requeued.length - 1] : this.fresh.peek();
  }

  shift(): QueueEntry | undefined {
    const e = this.requeued.length > 0 ? this.requeued.pop() : this.fresh.shift();
    if (e) this.bytes -= e.message.bodySize;
    return e;
  }

  /** Returns entries to their original positions (see the header); a single requeue of the oldest is O(1). */
  requeue(entries: readonly QueueEntry[]): void {
    if (entries.length === 0) return;
    for (const e of entries) this.bytes += e.message.bodySize;
    if (entries.length === 1 && (this.requeued.length === 0 || this.requeued[this.requeued.length - 1]!.seq > entries[0]!.seq)) {
      this.requeued.push(entries[0]!);
      return;
    }
    this.requeued = this.requeued.concat(entries).sort((a, b) => b.seq - a.seq);
  }

  removeWhere(drop: (e: QueueEntry) => boolean): QueueEntry[] {
    const out: QueueEntry[] = [];
    const kept: QueueEntry[] = [];
    for (const e of this.requeued) (drop(e) ? out : kept).push(e);
    this.requeued = kept;
    this.fresh.removeWhere(drop, out);
    for (const e of out) this.bytes -= e.message.bodySize;
    return out;
  }

  clear(): QueueEntry[] {
    const out = this.requeued.reverse().concat(this.fresh.clear());
    this.requeued = [];
    this.bytes = 0;
    return out;
  }

  *[Symbol.iterator](): IterableIterator<QueueEntry> {
    for (let i = this.requeued.length - 1; i >= 0; i--) yield this.requeued[i]!;
    yield* this.fresh;
  }
}
