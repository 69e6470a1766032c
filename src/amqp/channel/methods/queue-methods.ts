/**
 * queue.* handlers. An empty queue name means the queue last declared on this channel, and a
 * bind with both queue and routing key empty uses that name as the key (AMQP 0-9-1 queue.bind).
 */
import {
  encodeQueueBindOk,
  encodeQueueDeclareOk,
  encodeQueueDeleteOk,
  encodeQueuePurgeOk,
  encodeQueueUnbindOk,
  MethodId,
} from "../../codec/generated.js";
import { BrokerError } from "../../../errors/broker-error.js";
import { countsFromLeader, definitionsAnswered, deleteQueueOnLeader, purgeQueueOnLeader } from "../../../broker/index.js";
import { afterLeader, declareAnswered, purgeAnswered } from "./leader-round-trips.js";
import { lateRefusal } from "./late-refusal.js";
import { answerEverywhere } from "./answered-everywhere.js";
import { withCancelsAfterAnswer } from "../channel-consumer.js";
import type { ChannelState } from "../channel-state.js";
import { on, type HandlerTable } from "./handler.js";

/** RabbitMQ's expand_queue_name_shortcut. */
export function expandQueueName(ch: ChannelState, name: string): string {
  if (name !== "") return name;
  if (ch.lastQueue === "") throw new BrokerError("notFound", "no previously declared queue");
  return ch.lastQueue;
}

const QUEUE_CLASS = 50;

/**
 * On a node that others follow (`coney --workers N`), a new queue or binding is answered once
 * every other node applied it (TopologyMirror.settled): a reply published anywhere after the
 * client heard declare-ok then routes to it, as after RabbitMQ's Mnesia transaction. Null on a
 * single node. The connection reads no further frame meanwhile, so every channel's order holds.
 */
function followedEverywhere(ch: ChannelState, methodId: number): Promise<void> | null {
  // A spread cluster may refuse the change when it lost to an earlier one of another node (TopologyMirror.verdict), even after ok.
  return definitionsAnswered(ch.host.broker, lateRefusal(ch, QUEUE_CLASS, methodId));
}

export const queueHandlers: HandlerTable = [
  on(MethodId.QueueDeclare, (ch, a) => {
    const name = a.passive ? expandQueueName(ch, a.queue) : a.queue;
    const { queue, created } = ch.host.broker.declareQueue(
      ch.ctx,
      ch.host.vhost,
      { name, durable: a.durable, autoDelete: a.autoDelete, exclusiveOwner: a.exclusive ? ch.host : null, arguments: a.arguments },
      a.passive,
    );
    ch.lastQueue = queue.name;
    ch.stats.queueDeclared();
    const counts = a.passive && !a.nowait ? countsFromLeader(queue) : null;
    if (counts !== null) return declareAnswered(ch, queue.name, counts);
    const answer = (): void => {
      if (!a.nowait) encodeQueueDeclareOk(ch.output.out, ch.number, { queue: queue.name, messageCount: queue.messageCount, consumerCount: queue.consumerCount });
    };
    const followed = created ? followedEverywhere(ch, 10) : null;
    if (followed !== null) return afterLeader(ch, followed, QUEUE_CLASS, 10, answer);
    answer();
  }),
  on(MethodId.QueueBind, (ch, a) => {
    const queue = expandQueueName(ch, a.queue);
    const key = a.queue === "" && a.routingKey === "" ? queue : a.routingKey;
    const created = ch.host.broker.bindQueue(ch.ctx, ch.host.vhost, queue, a.exchange, key, a.arguments);
    const answer = (): void => {
      if (!a.nowait) encodeQueueBindOk(ch.output.out, ch.number, {});
    };
    const followed = created ? followedEverywhere(ch, 20) : null;
    if (followed !== null) return afterLeader(ch, followed, QUEUE_CLASS, 20, answer);
    answer();
  }),
  on(MethodId.QueueUnbind, (ch, a) => {
    const queue = expandQueueName(ch, a.queue);
    const key = a.queue === "" && a.routingKey === "" ? queue : a.routingKey;
    ch.host.broker.unbindQueue(ch.ctx, ch.host.vhost, queue, a.exchange, key, a.arguments);
    answerEverywhere(ch, undefined, QUEUE_CLASS, 50, () => encodeQueueUnbindOk(ch.output.out, ch.number, {}));
  }),
  on(MethodId.QueuePurge, (ch, a) => {
    const onLeader = purgeQueueOnLeader(ch.host.broker, ch.ctx, ch.host.vhost, expandQueueName(ch, a.queue));
    if (onLeader !== null) return purgeAnswered(ch, onLeader, a.nowait);
    const count = ch.host.broker.purgeQueue(ch.ctx, ch.host.vhost, expandQueueName(ch, a.queue));
    if (!a.nowait) encodeQueuePurgeOk(ch.output.out, ch.number, { messageCount: count });
  }),
  on(MethodId.QueueDelete, (ch, a) => {
    const opts = { ifUnused: a.ifUnused, ifEmpty: a.ifEmpty };
    // Led elsewhere: deleted on the leader, then forgotten here (told to the others from here too).
    const name = expandQueueName(ch, a.queue);
    const { value: count, release } = withCancelsAfterAnswer(ch, () => deleteQueueOnLeader(ch.host.broker, ch.ctx, ch.host.vhost, name, opts) ?? ch.host.broker.deleteQueue(ch.ctx, ch.host.vhost, name, opts));
    answerEverywhere(ch, count, QUEUE_CLASS, 40, (n) => {
      if (!a.nowait) encodeQueueDeleteOk(ch.output.out, ch.number, { messageCount: n });
      release();
    });
  }),
];
