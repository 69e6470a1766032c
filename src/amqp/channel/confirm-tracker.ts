/**
 * Publisher confirms for one channel (confirm.select). Each publish takes the next sequence
 * number; it is settled (ack, or nack when refused) when every queue it went to has taken
 * responsibility for it (for persistent messages in durable queues: after fsync). Confirms go
 * out in order and coalesce: a run of acks becomes one basic.ack with multiple=true.
 */
/** The message-store sync token of a tx.commit; confirm sequence numbers (the other tokens) start at 1. */
export const TX_COMMIT_TOKEN = 0;

export class ConfirmTracker {
  private nextSeq = 1;
  /** Sequence numbers below this are confirmed to the client. */
  private sentUpTo = 1;
  /** Settled but not yet sent: seq → ack (true) / nack (false). */
  private readonly settled = new Map<number, boolean>();

  get unconfirmed(): number {
    return this.nextSeq - this.sentUpTo;
  }

  take(): number {
    return this.nextSeq++;
  }

  settle(seq: number, ack: boolean): void {
    this.settled.set(seq, ack);
  }

  /**
   * Emits what can be confirmed, in order: `emit(tag, multiple, ack)`. A run of consecutive acks
   * is one call with multiple=true; a nack is sent alone.
   */
  drain(emit: (deliveryTag: number, multiple: boolean, ack: boolean) => void): void {
    let seq = this.sentUpTo;
    let runStart = seq;
    let runEnd = 0;
    for (;;) {
      const ack = this.settled.get(seq);
      if (ack === undefined) break;
      this.settled.delete(seq);
      if (ack) {
        runEnd = seq;
      } else {
        if (runEnd > 0) emit(runEnd, runEnd > runStart, true);
        runEnd = 0;
        emit(seq, false, false);
        runStart = seq + 1;
      }
      seq++;
    }
    if (runEnd > 0) emit(runEnd, runEnd > runStart, true);
    this.sentUpTo = seq;
  }
}
