/**
 * Settles a shovel's source deliveries in delivery order once their fate is known (the
 * destination confirmed or nacked, or — on-publish — the message was handed over): confirmed
 * runs are acked with one `multiple` ack, a nack requeues its delivery. Settling waits for the
 * end of the current burst (a microtask), so a batch of confirms costs one ack frame.
 */
import type { Endpoint } from "../links/endpoint.js";

export class ConfirmWindow {
  private tags: number[] = [];
  private head = 0;
  private readonly resolved = new Map<number, boolean>();
  private scheduled = false;

  /** `settled(acked)` is told how many deliveries were acked at the source by each flush. */
  constructor(private readonly source: Endpoint, private readonly settled: (acked: number) => void) {}

  get outstanding(): number {
    return this.tags.length - this.head;
  }

  add(tag: number): void {
    this.tags.push(tag);
  }

  resolve(tag: number, ok: boolean): void {
    this.resolved.set(tag, ok);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    let lastAcked = -1;
    let acked = 0;
    const tags = this.tags;
    while (this.head < tags.length) {
      const tag = tags[this.head]!;
      const ok = this.resolved.get(tag);
      if (ok === undefined) break;
      this.resolved.delete(tag);
      this.head++;
      if (ok) {
        lastAcked = tag;
        acked++;
        continue;
      }
      if (lastAcked >= 0) this.source.ack(lastAcked, true);
      lastAcked = -1;
      this.source.nack(tag, true);
    }
    if (lastAcked >= 0) this.source.ack(lastAcked, true);
    if (this.head > 4096 && this.head * 2 > tags.length) {
      this.tags = tags.slice(this.head);
      this.head = 0;
    }
    if (acked > 0) this.settled(acked);
  }
}
