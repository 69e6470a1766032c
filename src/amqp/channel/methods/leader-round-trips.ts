/**
 * The methods that are round trips when their queue is led by another node (docs/CLUSTERING.md,
 * "A delivery that crosses nodes", step 7): basic.get, queue.purge, queue.delete and a passive
 * queue.declare's counts. The connection reads nothing more until the leader answers
 * (ChannelHost.holdReadingUntil), so every channel's order holds; the answer is written as the
 * local method writes it, or the leader's error closes the channel as a local one would.
 */
import type { Queue, QueueEntry } from "../../../broker/index.js";
import { encodeBasicGetEmpty, encodeBasicGetOk, encodeQueueDeclareOk, encodeQueuePurgeOk } from "../../codec/generated.js";
import type { ChannelState } from "../channel-state.js";
import { writeContent } from "../delivery-frames.js";

const QUEUE_CLASS = 50;
const BASIC_CLASS = 60;

/** Waits for `p`, then runs `answer` if the channel is still open; a failure is the method's error. */
export function afterLeader<T>(ch: ChannelState, p: Promise<T>, classId: number, methodId: number, answer: (value: T) => void): void {
  const host = ch.host;
  const open = (): boolean => ch.state === "open" && host.holdsChannel(ch.number, ch);
  host.holdReadingUntil(
    p.then(
      (value) => {
        if (!open()) return;
        answer(value);
        ch.output.maybeFlush();
      },
      (err: unknown) => {
        if (open()) host.methodError(err, ch.number, classId, methodId);
      },
    ),
  );
}

/** basic.get-ok for an entry (held for settling unless no-ack), as the local get sends it. */
export function sendGetOk(ch: ChannelState, queue: Queue, entry: QueueEntry, noAck: boolean, messageCount: number): void {
  const tag = ch.nextDeliveryTag++;
  if (!noAck) {
    ch.unacked.add(tag, queue, entry, null);
    ch.ackWatch.watch(queue);
  }
  ch.stats.got(noAck);
  const m = entry.message;
  encodeBasicGetOk(ch.output.out, ch.number, { deliveryTag: tag, redelivered: entry.redelivered, exchange: m.exchange, routingKey: m.routingKey, messageCount });
  writeContent(ch.output, ch.number, m);
  if (noAck) m.lease?.release();
}

export function sendGetEmpty(ch: ChannelState): void {
  ch.stats.gotEmpty();
  encodeBasicGetEmpty(ch.output.out, ch.number, { clusterId: "" });
}

export function getAnswered(ch: ChannelState, queue: Queue, p: Promise<{ entry: QueueEntry; remaining: number } | null>, noAck: boolean): void {
  afterLeader(ch, p, BASIC_CLASS, 70, (got) => (got === null ? sendGetEmpty(ch) : sendGetOk(ch, queue, got.entry, noAck, got.remaining)));
}

export function purgeAnswered(ch: ChannelState, p: Promise<number>, nowait: boolean): void {
  afterLeader(ch, p, QUEUE_CLASS, 30, (count) => {
    if (!nowait) encodeQueuePurgeOk(ch.output.out, ch.number, { messageCount: count });
  });
}

export function declareAnswered(ch: ChannelState, name: string, p: Promise<{ messages: number; consumers: number }>): void {
  afterLeader(ch, p, QUEUE_CLASS, 10, (info) => encodeQueueDeclareOk(ch.output.out, ch.number, { queue: name, messageCount: info.messages, consumerCount: info.consumers }));
}
