/**
 * Settling what a channel handed out: basic.ack, nack and reject by delivery tag (`multiple`
 * settles every outstanding tag up to and including the given one; tag 0 with multiple means
 * all), basic.recover, and giving everything back when the channel closes. In tx mode a
 * settlement waits for tx.commit. Requeued messages go back to their queues in tag order, one
 * requeue call per queue. An ack lets go of the entry's hold on a lent body (values/body-lease.ts);
 * nack, reject and requeue do not (the message lives on, or a dead-letter copy may share its body).
 */
import type { Queue, QueueEntry } from "../../broker/index.js";
import { BrokerError } from "../../errors/broker-error.js";
import type { SettleVisitor, Unacked } from "./unacked-deliveries.js";
import type { ChannelState } from "./channel-state.js";

export type Outcome = "ack" | "requeue" | "discard";

/**
 * basic.ack / nack / reject. The common case — an ack outside a transaction — settles straight
 * out of the channel's UnackedDeliveries with nothing allocated per message; nack, reject and
 * transactions take a snapshot first (a refusal must leave every tag as it was; a transaction
 * applies it at commit).
 */
export function settle(ch: ChannelState, tag: number, multiple: boolean, outcome: Outcome): void {
  const unacked = ch.unacked;
  if (multiple) {
    if (tag !== 0 && unacked.countUpTo(tag) === 0) throw unknownTag(tag);
  } else if (!unacked.has(tag)) {
    throw unknownTag(tag);
  }
  if (outcome === "ack" && !ch.tx) {
    const touched = new Set<Queue>();
    const ack: SettleVisitor = (queue, entry, consumer) => {
      if (consumer) consumer.unackedCount--;
      touched.add(queue);
      queue.settle(entry);
      entry.message.lease?.release();
      ch.stats.acked();
    };
    if (multiple) unacked.takeUpTo(tag, ack);
    else unacked.take(tag, ack);
    ch.resumeDeliveries(touched);
    return;
  }
  const picked: Array<[number, Unacked]> = [];
  for (const item of unacked) {
    if (multiple ? tag !== 0 && item[0] > tag : item[0] !== tag) {
      if (multiple) break;
      continue;
    }
    picked.push(item);
    if (!multiple) break;
  }
  // Checked before anything is settled: a refusal (a stream queue's) leaves every tag as it was.
  if (outcome !== "ack") for (const [, u] of picked) u.queue.checkRejectable();
  const apply = (): void => applySettlement(ch, picked, outcome);
  if (ch.tx) ch.tx.settlements.push(apply);
  else apply();
}

/** basic.recover / recover-async with requeue: every unacked message goes back to its queue. */
export function recover(ch: ChannelState): void {
  applySettlement(ch, [...ch.unacked], "requeue");
}

/** Applies a snapshot of settlements; a tag settled since the snapshot (a tx's) is skipped. */
function applySettlement(ch: ChannelState, picked: Array<[number, Unacked]>, outcome: Outcome): void {
  const requeue = new Map<Queue, QueueEntry[]>();
  const touched = new Set<Queue>();
  for (const [tag] of picked) {
    ch.unacked.take(tag, (queue, entry, consumer) => {
      if (consumer) consumer.unackedCount--;
      touched.add(queue);
      if (outcome === "ack") {
        queue.settle(entry);
        entry.message.lease?.release();
        ch.stats.acked();
      } else if (outcome === "requeue") {
        let list = requeue.get(queue);
        if (!list) requeue.set(queue, (list = []));
        list.push(entry);
      } else {
        queue.discard(entry);
      }
    });
  }
  for (const [q, entries] of requeue) q.requeue(entries);
  ch.resumeDeliveries(touched);
}

/** The channel closes: its unacked messages return to their queues (consumers must be gone first). */
export function requeueAllUnacked(ch: ChannelState): void {
  const byQueue = new Map<Queue, QueueEntry[]>();
  for (const [, u] of ch.unacked) {
    let list = byQueue.get(u.queue);
    if (!list) byQueue.set(u.queue, (list = []));
    list.push(u.entry);
  }
  ch.unacked.clear();
  for (const [q, entries] of byQueue) q.requeue(entries);
}

function unknownTag(tag: number): BrokerError {
  return new BrokerError("preconditionFailed", `unknown delivery tag ${tag}`);
}
