/**
 * RabbitMQ's consumer delivery acknowledgement timeout: a channel that holds a delivery
 * unacknowledged for longer than the timeout (the node's consumer_timeout, or the queue's
 * x-consumer-timeout argument / consumer-timeout policy) is closed with PRECONDITION_FAILED, and
 * its unacked messages go back to their queues.
 *
 * Cost: nothing per message. A delivery is not timestamped; instead one timer per channel (only
 * while it has ack-mode consumers or unacked gets) samples the channel's next delivery tag every
 * quarter of the smallest timeout in play. Every tag below a sample taken at time T was delivered
 * before T, so an unacked tag below the newest sample older than `timeout` has certainly been
 * held longer than `timeout`: the channel is never closed early, and at most about two sampling
 * periods late. A check looks at the oldest unacked tags only, and stops at the first one too
 * young to have timed out.
 */
import type { Queue } from "../../broker/index.js";
import type { UnackedDeliveries } from "./unacked-deliveries.js";

/** What the watch reads of its channel. */
export interface WatchedChannel {
  readonly nextDeliveryTag: number;
  /** By delivery tag, oldest first. */
  readonly unacked: UnackedDeliveries;
  /** Whether the channel still has ack-mode consumers (the watch stops when it has none and nothing unacked). */
  hasAckConsumers(): boolean;
  /** A delivery outlived `timeoutMs`: close the channel. */
  ackTimedOut(timeoutMs: number): void;
}

const MIN_PERIOD_MS = 10;
const MAX_PERIOD_MS = 60_000;

export class AckTimeoutWatch {
  private timer: NodeJS.Timeout | null = null;
  /** The period the running timer was set with. */
  private scheduledPeriod = Infinity;
  /** Samples, oldest first: the next delivery tag at a time. */
  private readonly sampleTags: number[] = [];
  private readonly sampleTimes: number[] = [];
  /** Queues the channel consumes or gets from in ack mode, whose timeouts may apply. */
  private readonly queues = new Set<Queue>();

  constructor(
    private readonly channel: WatchedChannel,
    /** The node's consumer_timeout in ms; 0 = none (queues may still set one). */
    private readonly nodeTimeout: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** An ack-mode consumer started on `queue`, or an ack-mode get took from it: watch from now. */
  watch(queue: Queue): void {
    this.queues.add(queue);
    const period = this.period();
    // Already checking often enough (a queue with a shorter timeout than any so far shortens it).
    if (period === 0 || (this.timer !== null && period >= this.scheduledPeriod)) return;
    this.stop();
    this.sample(this.now());
    this.schedule(period);
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private timeoutOf(q: Queue): number {
    return q.settings.consumerTimeout ?? this.nodeTimeout;
  }

  /** A quarter of the smallest timeout in play, within bounds; 0 when no timeout applies. */
  private period(): number {
    let smallest = this.nodeTimeout > 0 ? this.nodeTimeout : Infinity;
    for (const q of this.queues) {
      const t = this.timeoutOf(q);
      if (t > 0 && t < smallest) smallest = t;
    }
    return smallest === Infinity ? 0 : Math.min(Math.max(Math.floor(smallest / 4), MIN_PERIOD_MS), MAX_PERIOD_MS);
  }

  private schedule(period: number): void {
    this.scheduledPeriod = period;
    this.timer = setTimeout(() => this.check(), period);
    this.timer.unref();
  }

  private sample(at: number): void {
    this.sampleTags.push(this.channel.nextDeliveryTag);
    this.sampleTimes.push(at);
  }

  /** The newest sampled tag taken at or before `time`: every tag below it was delivered by then. 0 = none. */
  private tagsBefore(time: number): number {
    let tag = 0;
    for (let i = 0; i < this.sampleTimes.length && this.sampleTimes[i]! <= time; i++) tag = this.sampleTags[i]!;
    return tag;
  }

  private check(): void {
    this.timer = null;
    const now = this.now();
    this.sample(now);
    for (const q of this.queues) if (q.isDeleted) this.queues.delete(q);
    const period = this.period();
    let smallest = Infinity;
    let largest = 0;
    for (const q of [...this.queues, null]) {
      const t = q === null ? this.nodeTimeout : this.timeoutOf(q);
      if (t > 0) {
        smallest = Math.min(smallest, t);
        largest = Math.max(largest, t);
      }
    }
    if (smallest !== Infinity) {
      const youngest = this.tagsBefore(now - smallest);
      for (const [tag, u] of this.channel.unacked) {
        if (tag >= youngest) break;
        const t = this.timeoutOf(u.queue);
        if (t > 0 && tag < this.tagsBefore(now - t)) {
          this.channel.ackTimedOut(t);
          return;
        }
      }
    }
    // Samples older than the newest one past the largest timeout are never consulted again.
    while (this.sampleTimes.length > 1 && this.sampleTimes[1]! <= now - largest) {
      this.sampleTimes.shift();
      this.sampleTags.shift();
    }
    if (period === 0 || (this.channel.unacked.size === 0 && !this.channel.hasAckConsumers())) {
      this.sampleTimes.length = 0;
      this.sampleTags.length = 0;
      this.queues.clear();
      return;
    }
    this.schedule(period);
  }
}
