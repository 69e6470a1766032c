/**
 * The connecting node's forwarded messages not yet covered by STORED, by link position (issue 42,
 * fourth pass): the leader may hand one of them back to this node as DELIVER_OWN, naming its
 * position instead of carrying the message again (link-frames.ts). Kept only on a link whose
 * leader said in READY that it sends DELIVER_OWN (link-handshake.ts).
 *
 * Why until STORED and no longer: the leader sends DELIVER_OWN only while it handles the PUBLISH
 * of that position (a consumer of this node was waiting for it), which is before it reports the
 * position STORED; the link is FIFO, so a message is always still here when its DELIVER_OWN
 * arrives and never needed once STORED covers it. The credit bounds what is kept (at most what is
 * in flight: DEFAULT_CREDIT_MESSAGES / DEFAULT_CREDIT_BYTES).
 *
 * A lent body (values/body-lease.ts) is held while kept, so its read slab cannot go back under it.
 *
 * Invariant: kept[head + i] is the message of position first + i; positions are kept in order,
 * one each, from 1 (StoredWaits.next hands them out the same way).
 */
import type { Message } from "../broker/index.js";

export class KeptForwards {
  private kept: Array<Message | null> = [];
  private head = 0;
  /** The position of kept[head]. */
  private first = 1;

  /** How many are kept. */
  get size(): number {
    return this.kept.length - this.head;
  }

  /** The message of the next position (StoredWaits.next's). */
  keep(message: Message): void {
    message.lease?.hold();
    this.kept.push(message);
  }

  /** The message kept for `position`, or undefined (never kept, or STORED since). */
  at(position: number): Message | undefined {
    const i = this.head + (position - this.first);
    if (i < this.head || i >= this.kept.length) return undefined;
    return this.kept[i] ?? undefined;
  }

  /** STORED through `through`: those messages are let go. */
  storedThrough(through: number): void {
    const k = this.kept;
    while (this.head < k.length && this.first <= through) {
      const m = k[this.head]!;
      k[this.head++] = null;
      this.first++;
      m.lease?.release();
    }
    if (this.head === k.length) {
      k.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > k.length) {
      this.kept = k.slice(this.head);
      this.head = 0;
    }
  }

  /** The link is lost: everything kept is let go (no DELIVER_OWN can come any more). */
  dropAll(): void {
    const k = this.kept;
    for (let i = this.head; i < k.length; i++) k[i]!.lease?.release();
    this.first += k.length - this.head;
    this.kept = [];
    this.head = 0;
  }
}
