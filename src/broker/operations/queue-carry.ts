/**
 * A planned move of a queue group (docs/CLUSTERING.md, "Built: group stores under the workers")
 * carries what only memory holds — transient messages of a durable queue, every message of a
 * non-durable one — through the group's store: the node giving the group up writes them there
 * before the store closes (MessageQueue.storeForHandOver, in queue order, redelivered ones
 * marked), and the node taking it recovers them with the rest. A durable queue's carried records
 * are its own, recovered and acknowledged like any other. A non-durable queue has no log: its
 * records are written under a carry log of its key, and the next leader opens the same kind of
 * log before the recovery, then moves its messages into the queue's memory and drops the records
 * (a non-durable queue's messages must not outlive a crash of their new leader either).
 *
 * A worker killed -9 gives nothing up: its in-memory messages are lost, as a RabbitMQ node crash
 * loses a classic queue's transient messages.
 */
import type { Message } from "../message.js";
import type { QueueEntry } from "../queue/queue-entry.js";
import type { PageSink, QueueJournal, QueueLog } from "../queue/queue-journal.js";
import { maxPriorityOf } from "../queue/queue-settings.js";
import type { Queue } from "../queue/queue-type.js";
import { MessageQueue } from "../queue/queue.js";

/** A non-durable queue of a group just taken, and the log its carried records are recovered into. */
export interface CarriedQueue {
  readonly queue: MessageQueue;
  readonly log: QueueLog;
}

/** Whether `q` is a queue whose in-memory messages a move carries (an exclusive queue never moves; a stream keeps its own log). */
function carriable(q: Queue): q is MessageQueue {
  return q instanceof MessageQueue && q.exclusiveOwner === null;
}

/**
 * `q` was handed over (nothing is dispatched or routed to it any more) and its group's store is
 * still open here: what only memory holds is written to the store. Returns how many messages were.
 */
export function carryOnHandOver(journal: QueueJournal, vhost: string, q: Queue, group: number): number {
  if (!carriable(q)) return 0;
  const carry = q.durable ? null : journal.forQueue(vhost, q.name, maxPriorityOf(q.arguments), group);
  return q.storeForHandOver(carry, q.heldAtHandOver);
}

/** Before the recovery of a group just taken: a log for each non-durable queue, so its carried records are found. */
export function openCarriedLogs(journal: QueueJournal, queues: ReadonlyArray<{ vhost: string; queue: Queue }>, group: number): CarriedQueue[] {
  const out: CarriedQueue[] = [];
  for (const { vhost, queue } of queues) {
    if (!carriable(queue) || queue.durable) continue;
    out.push({ queue, log: journal.forQueue(vhost, queue.name, maxPriorityOf(queue.arguments), group) });
  }
  return out;
}

/** After the recovery: each non-durable queue's carried messages move into its memory, in order, and their records are dropped. */
export function restoreCarried(carried: readonly CarriedQueue[]): number {
  let n = 0;
  for (const { queue, log } of carried) {
    const sink: PageSink = {
      restore(message: Message, redelivered: boolean, ref: number): void {
        // Written as a persistent record only to be carried: its own delivery mode again.
        queue.restore({ ...message, persistent: message.properties.deliveryMode === 2 }, redelivered, 0);
        const record: QueueEntry = { message, seq: 0, redelivered, deliveryCount: 0, returns: 0, expiresAt: 0, storeRef: ref };
        log.forget(record);
        n++;
      },
    };
    while (log.pagedCount > 0) log.pageInOne(sink);
    log.queueDeleted();
  }
  return n;
}
