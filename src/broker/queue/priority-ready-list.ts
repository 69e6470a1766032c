/**
 * The ready messages of a priority queue (x-max-priority): one ReadyList per priority level, so
 * a higher priority is served first and order within a priority stays FIFO (with requeued
 * entries back in their original places). A message's priority above the queue's maximum counts
 * as the maximum; no priority counts as 0 (RabbitMQ's rabbit_priority_queue).
 */
import type { QueueEntry } from "./queue-entry.js";
import { ReadyList, type ReadyEntries } from "./ready-list.js";

export class PriorityReadyList implements ReadyEntries {
  private readonly levels: ReadyList[] = [];
  private count = 0;
  bytes = 0;

  constructor(private readonly maxPriority: number) {
    for (let i = 0; i <= maxPriority; i++) this.levels.push(new ReadyList());
  }

  get length(): number {
    return this.count;
  }

  levelLength(level: number): number {
    return this.levels[level]?.length ?? 0;
  }

  topLevel(): number {
    if (this.count === 0) return -1;
    for (let i = this.maxPriority; i >= 0; i--) if (this.levels[i]!.length > 0) return i;
    return -1;
  }

  push(e: QueueEntry): void {
    this.levelOf(e).push(e);
    this.count++;
    this.bytes += e.message.bodySize;
  }

  peek(): QueueEntry | undefined {
    return this.top()?.peek();
  }

  shift(): QueueEntry | undefined {
    const e = this.top()?.shift();
    if (e) {
      this.count--;
      this.bytes -= e.message.bodySize;
    }
    return e;
  }

  requeue(entries: readonly QueueEntry[]): void {
    // One requeue per level, so a channel closing with many unacked entries sorts each level once.
    const byLevel = new Map<ReadyList, QueueEntry[]>();
    for (const e of entries) {
      const level = this.levelOf(e);
      const list = byLevel.get(level);
      if (list) list.push(e);
      else byLevel.set(level, [e]);
      this.bytes += e.message.bodySize;
    }
    for (const [level, list] of byLevel) level.requeue(list);
    this.count += entries.length;
  }

  removeWhere(drop: (e: QueueEntry) => boolean): QueueEntry[] {
    const out: QueueEntry[] = [];
    for (const level of this.levels) out.push(...level.removeWhere(drop));
    this.count -= out.length;
    for (const e of out) this.bytes -= e.message.bodySize;
    return out;
  }

  clear(): QueueEntry[] {
    const out: QueueEntry[] = [];
    for (let i = this.maxPriority; i >= 0; i--) out.push(...this.levels[i]!.clear());
    this.count = 0;
    this.bytes = 0;
    return out;
  }

  *[Symbol.iterator](): IterableIterator<QueueEntry> {
    for (let i = this.maxPriority; i >= 0; i--) yield* this.levels[i]!;
  }

  /** The highest non-empty level; at most max-priority+1 (≤ 256) steps and usually a handful. */
  private top(): ReadyList | undefined {
    const i = this.topLevel();
    return i < 0 ? undefined : this.levels[i];
  }

  private levelOf(e: QueueEntry): ReadyList {
    const p = e.message.properties.priority ?? 0;
    return this.levels[p > this.maxPriority ? this.maxPriority : p]!;
  }
}
