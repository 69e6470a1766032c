/** One message's place in one queue. A message routed to three queues has three entries. */
import type { Message } from "../message.js";

export interface QueueEntry {
  readonly message: Message;
  /** Position in this queue: strictly increasing in publish order; requeues go back by seq. */
  readonly seq: number;
  redelivered: boolean;
  /** How many times it has been handed to a consumer or basic.get. */
  deliveryCount: number;
  /** ms since epoch after which it must not be delivered; 0 = never. */
  expiresAt: number;
  /** Where the message store keeps this entry (see src/store/record-ref.ts); 0 or absent = not stored. */
  storeRef?: number;
}
