/**
 * Lent body memory (issue 30): a transport may read bodies into buffers it wants back, and
 * lends a message its body under a lease. The memory goes back to the lender when the last
 * holder lets go, and never once anyone has kept the body without counting itself (pin()).
 *
 * Who holds, for a lease that is not pinned (the AMQP 0-9-1 transport keeps these rules, see
 * src/amqp/channel/publishing.ts and settlement.ts): the publish while it is routed; each entry
 * of the message in a queue that counts holds (Queue.countsBodyHolds); each record the message
 * store has not yet written (src/store/held-bodies.ts); each socket write of the body not yet
 * completed. Everything else that keeps a body — a consumer that does not count (MQTT, a shovel,
 * the delayed exchange), a paged-out message, a stream, an HTTP get — pins it first. A message
 * made from another (dead-lettering, a header added) never carries the original's lease
 * (message-headers.ts), so its holders are never counted against it.
 *
 * Invariant: release() is called once per hold() (plus once for the holder that created the
 * lease); a pinned lease ignores both, so forgetting a release only leaves memory to the garbage
 * collector, while a release too many would hand out bytes still in use.
 */
export interface BodyLease {
  /** One more holder. */
  hold(): void;
  /**
   * Routing is done: the publish's own hold passes to `entries` holders (the message's entries
   * in queues that count holds). Until then no release hands the memory back: a no-ack consumer
   * may take and release an entry while the message is still being routed to other queues.
   */
  handOver(entries: number): void;
  /** A holder is done with the body. */
  release(): void;
  /** Someone keeps the body without counting: its memory is never handed back. */
  pin(): void;
}
