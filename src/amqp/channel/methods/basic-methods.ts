/**
 * basic.* handlers: qos, consume/cancel, publish (content follows), get, ack/nack/reject,
 * recover. RabbitMQ's semantics where it extends or departs from the 0-9-1 text: qos
 * global=false is per consumer and global=true per channel; immediate=true is not supported;
 * recover with requeue=false is not supported.
 */
import {
  encodeBasicCancelOk,
  encodeBasicConsumeOk,
  encodeBasicQosOk,
  encodeBasicRecoverOk,
  MethodId,
} from "../../codec/generated.js";
import { BrokerError } from "../../../errors/broker-error.js";
import { REPLY_TO_QUEUE, checkConsumerArguments, generateConsumerTag, getFromLeader } from "../../../broker/index.js";
import { ChannelConsumer } from "../channel-consumer.js";
import { DirectReplyConsumer } from "../direct-reply-to.js";
import { recover, settle } from "../settlement.js";
import { on, type HandlerTable } from "./handler.js";
import { getAnswered, sendGetEmpty, sendGetOk } from "./leader-round-trips.js";
import { expandQueueName } from "./queue-methods.js";

/** basic.recover(-async) with requeue=false, which RabbitMQ does not implement either. */
const requeueFalse = (): BrokerError => new BrokerError("notImplemented", "requeue=false");

export const basicHandlers: HandlerTable = [
  on(MethodId.BasicQos, (ch, a) => {
    if (a.prefetchSize !== 0) throw new BrokerError("notImplemented", `prefetch_size!=0 (${a.prefetchSize})`);
    if (a.global) ch.prefetchCount = a.prefetchCount;
    else ch.consumerPrefetch = a.prefetchCount;
    encodeBasicQosOk(ch.output.out, ch.number, {});
    ch.resumeDeliveries();
  }),

  on(MethodId.BasicConsume, (ch, a) => {
    const tag = a.consumerTag === "" ? generateConsumerTag() : a.consumerTag;
    if (ch.consumers.has(tag) || ch.replyConsumer?.tag === tag) {
      throw new BrokerError("notAllowed", `attempt to reuse consumer tag '${tag}'`);
    }
    if (a.queue === REPLY_TO_QUEUE) {
      if (!a.noAck) throw new BrokerError("preconditionFailed", "reply consumer cannot acknowledge");
      if (ch.replyConsumer) throw new BrokerError("preconditionFailed", "reply consumer already set");
      ch.replyConsumer = new DirectReplyConsumer(ch, tag);
      if (!a.nowait) encodeBasicConsumeOk(ch.output.out, ch.number, { consumerTag: tag });
      return;
    }
    const queue = ch.host.broker.queueForRead(ch.ctx, ch.host.vhost, expandQueueName(ch, a.queue));
    const priority = checkConsumerArguments(queue.type, a.arguments, queue.name, queue.vhost);
    const consumer = new ChannelConsumer(ch, queue, tag, a.noAck, a.exclusive, priority, ch.consumerPrefetch, a.arguments);
    queue.checkConsumable(a.exclusive);
    queue.admitConsumer({ noAck: a.noAck, prefetch: ch.consumerPrefetch, channelPrefetch: ch.prefetchCount, arguments: a.arguments });
    // consume-ok must precede the first delivery, which addConsumer may trigger at once.
    if (!a.nowait) encodeBasicConsumeOk(ch.output.out, ch.number, { consumerTag: tag });
    ch.consumers.set(tag, consumer);
    if (!a.noAck) ch.ackWatch.watch(queue);
    queue.addConsumer(consumer);
  }),

  on(MethodId.BasicCancel, (ch, a) => {
    const reply = ch.replyConsumer;
    if (reply && reply.tag === a.consumerTag) {
      ch.host.broker.directReply.unregister(reply.key);
      ch.replyConsumer = null;
    } else {
      const c = ch.consumers.get(a.consumerTag);
      if (c) {
        ch.consumers.delete(a.consumerTag);
        c.queue.removeConsumer(c);
      }
    }
    if (!a.nowait) encodeBasicCancelOk(ch.output.out, ch.number, { consumerTag: a.consumerTag });
  }),

  on(MethodId.BasicPublish, (ch, a) => {
    if (a.immediate) throw new BrokerError("notImplemented", "immediate=true");
    const exchange = ch.host.broker.exchangeForPublish(ch.ctx, ch.vhost, a.exchange, a.routingKey);
    ch.startPublish(exchange, a.routingKey, a.mandatory);
  }),

  on(MethodId.BasicGet, (ch, a) => {
    const queue = ch.host.broker.queueForRead(ch.ctx, ch.host.vhost, expandQueueName(ch, a.queue));
    const fromLeader = getFromLeader(queue, a.noAck);
    if (fromLeader !== null) return getAnswered(ch, queue, fromLeader, a.noAck);
    // The channel counts its holds on a lent body (values/body-lease.ts), as its consumers do.
    const entry = queue.get(a.noAck, true);
    if (!entry) sendGetEmpty(ch);
    else sendGetOk(ch, queue, entry, a.noAck, queue.messageCount);
  }),

  on(MethodId.BasicAck, (ch, a) => settle(ch, a.deliveryTag, a.multiple, "ack")),
  on(MethodId.BasicNack, (ch, a) => settle(ch, a.deliveryTag, a.multiple, a.requeue ? "requeue" : "discard")),
  on(MethodId.BasicReject, (ch, a) => settle(ch, a.deliveryTag, false, a.requeue ? "requeue" : "discard")),

  on(MethodId.BasicRecover, (ch, a) => {
    if (!a.requeue) throw requeueFalse();
    recover(ch);
    encodeBasicRecoverOk(ch.output.out, ch.number, {});
  }),
  on(MethodId.BasicRecoverAsync, (ch, a) => {
    if (!a.requeue) throw requeueFalse();
    recover(ch);
  }),
];
