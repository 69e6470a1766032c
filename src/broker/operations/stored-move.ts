/**
 * Moving stored messages between message stores when a data dir changes layout (the workers
 * taking a single node's data over, and back: src/workers/store-drain.ts). Only a classic queue
 * keeps a message log; any other queue type takes nothing this way.
 */
import type { Message } from "../message.js";
import { MessageQueue } from "../queue/queue.js";
import type { Queue } from "../queue/queue-type.js";

/** Writes `message` to `queue`'s store with its redelivered mark (MessageQueue.storeMovedIn); false when the queue keeps no log. */
export function storeMovedIn(queue: Queue, message: Message, redelivered: boolean): boolean {
  return queue instanceof MessageQueue && queue.storeMovedIn(message, redelivered);
}
