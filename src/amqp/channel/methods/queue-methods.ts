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
import type { Channel } from "../channel.js";
import { on, type HandlerTable } from "./handler.js";

/** RabbitMQ's expand_queue_name_shortcut. */
export function expandQueueName(ch: Channel, name: string): string {
  if (name !== "") return name;
  if (ch.lastQueue === "") throw new BrokerError("notFound", "no previously declared queue");
  return ch.lastQueue;
}

export const queueHandlers: HandlerTable = [
  on(MethodId.QueueDeclare, (ch, a) => {
    const name = a.passive ? expandQueueName(ch, a.queue) : a.queue;
    const { queue } = ch.conn.broker.declareQueue(
      ch.ctx,
      ch.conn.vhost,
      { name, durable: a.durable, autoDelete: a.autoDelete, exclusiveOwner: a.exclusive ? ch.conn : null, arguments: a.arguments },
      a.passive,
    );
    ch.lastQueue = queue.name;
    ch.conn.broker.stats.queueDeclared++;
    if (!a.nowait) {
      encodeQueueDeclareOk(ch.conn.out, ch.number, { queue: queue.name, messageCount: queue.messageCount, consumerCount: queue.consumerCount });
    }
  }),
  on(MethodId.QueueBind, (ch, a) => {
    const queue = expandQueueName(ch, a.queue);
    const key = a.queue === "" && a.routingKey === "" ? queue : a.routingKey;
    ch.conn.broker.bindQueue(ch.ctx, ch.conn.vhost, queue, a.exchange, key, a.arguments);
    if (!a.nowait) encodeQueueBindOk(ch.conn.out, ch.number, {});
  }),
  on(MethodId.QueueUnbind, (ch, a) => {
    const queue = expandQueueName(ch, a.queue);
    const key = a.queue === "" && a.routingKey === "" ? queue : a.routingKey;
    ch.conn.broker.unbindQueue(ch.ctx, ch.conn.vhost, queue, a.exchange, key, a.arguments);
    encodeQueueUnbindOk(ch.conn.out, ch.number, {});
  }),
  on(MethodId.QueuePurge, (ch, a) => {
    const count = ch.conn.broker.purgeQueue(ch.ctx, ch.conn.vhost, expandQueueName(ch, a.queue));
    if (!a.nowait) encodeQueuePurgeOk(ch.conn.out, ch.number, { messageCount: count });
  }),
  on(MethodId.QueueDelete, (ch, a) => {
    const count = ch.conn.broker.deleteQueue(ch.ctx, ch.conn.vhost, expandQueueName(ch, a.queue), { ifUnused: a.ifUnused, ifEmpty: a.ifEmpty });
    if (!a.nowait) encodeQueueDeleteOk(ch.conn.out, ch.number, { messageCount: count });
  }),
];
