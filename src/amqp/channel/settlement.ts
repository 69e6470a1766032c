/**
 * Settling what a channel handed out: basic.ack, nack and reject by delivery tag (`multiple`
 * settles every outstanding tag up to and including the given one; tag 0 with multiple means
 * all), basic.recover, and giving everything back when the channel closes. In tx mode a
 * settlement waits for tx.commit. Requeued messages go back to their queues in tag order, one
 * requeue call per queue.
 */
import type { Queue, QueueEntry } from "../../broker/index.js";
import { BrokerError } from "../../errors/broker-error.js";
import type { Unacked } from "./channel-consumer.js";
import type { ChannelState } from "./channel-state.js";

export type Outcome = "ack" | "requeue" | "discard";

export function settle(ch: ChannelState, tag: number, multiple: boolean, outcome: Outcome): void {
  const picked: Array<[number, Unacked]> = [];
  if (multiple) {
    for (const item of ch.unacked) {
      if (tag !== 0 && item[0] > tag) break;
      picked.push(item);
    }
    if (picked.length === 0 && tag !== 0 && !ch.unacked.has(tag)) throw unknownTag(tag);
  } else {
    const u = ch.unacked.get(tag);
    if (!u) throw unknownTag(tag);
    picked.push([tag, u]);
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

function applySettlement(ch: ChannelState, picked: Array<[number, Unacked]>, outcome: Outcome): void {
  const requeue = new Map<Queue, QueueEntry[]>();
  const touched = new Set<Queue>();
  for (const [tag, u] of picked) {
    if (!ch.unacked.delete(tag)) continue;
    if (u.consumer) u.consumer.unackedCount--;
    touched.add(u.queue);
    if (outcome === "ack") {
      u.queue.settle(u.entry);
      ch.stats.acked();
    } else if (outcome === "requeue") {
      let list = requeue.get(u.queue);
      if (!list) requeue.set(u.queue, (list = []));
      list.push(u.entry);
    } else {
      u.queue.discard(u.entry);
    }
  }
  for (const [q, entries] of requeue) q.requeue(entries);
  ch.resumeDeliveries(touched);
}

/** The channel closes: its unacked messages return to their queues (consumers must be gone first). */
export function requeueAllUnacked(ch: ChannelState): void {
  const byQueue = new Map<Queue, QueueEntry[]>();
  for (const u of ch.unacked.values()) {
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
