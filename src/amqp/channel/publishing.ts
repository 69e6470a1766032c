/**
 * From an assembled basic.publish to a routed message: the user-id and expiration checks,
 * direct reply-to addressing, holding the message for a transaction, routing, returning an
 * unroutable mandatory message (basic.return), and publisher confirms, which are settled at
 * once or, for a message the store wrote, when the store has synced (the channel is the
 * store's SyncWaiter), and written out coalesced right before the connection's socket write.
 *
 * Hot path: one Message per publish and nothing else allocated; the routing result goes into
 * the channel's scratch array.
 */
import { PUBLISH_REFUSED, PUBLISH_ROUTED, PUBLISH_STORED, PUBLISH_UNROUTED, type Exchange, createMessage, type Message, checkExpiration, holdForEntries } from "../../broker/index.js";
import type { Body } from "../../broker/values/message-body.js";
import { BrokerError } from "../../errors/broker-error.js";
import { encodeBasicAck, encodeBasicNack, encodeBasicReturn, encodeTxCommitOk } from "../codec/generated.js";
import type { ChannelState } from "./channel-state.js";
import { TX_COMMIT_TOKEN } from "./confirm-tracker.js";
import type { PendingPublish } from "./content-assembly.js";
import { BASIC_CLASS, writeContent } from "./delivery-frames.js";

const BASIC_PUBLISH = 40;
const REPLY_TO_PREFIX = "amq.rabbitmq.reply-to.";

/** The last body frame (or an empty body's header) arrived: check, then route or hold for tx.commit. */
export function completePublish(ch: ChannelState, c: PendingPublish, body: Body): void {
  try {
    let props = c.properties!;
    const user = ch.host.user;
    if (props.userId !== undefined && props.userId !== user && !ch.ctx.permissions.user.tags.includes("impersonator")) {
      throw new BrokerError("preconditionFailed", `user_id property set to '${props.userId}' but authenticated user was '${user}'`);
    }
    if (props.expiration !== undefined) checkExpiration(props.expiration);
    let raw = c.rawProperties;
    if (props.replyTo !== undefined && props.replyTo === "amq.rabbitmq.reply-to") {
      if (!ch.replyConsumer) throw new BrokerError("preconditionFailed", "fast reply consumer does not exist");
      // New properties, not a change in place: the decoded ones may be shared (content-assembly.ts).
      props = { ...props, replyTo: ch.replyConsumer.replyAddress };
      raw = null;
    }
    const message = createMessage(c.exchange.name, c.routingKey, props, raw, body, Date.now(), c.takeLease());
    ch.stats.published(message.bodySize);
    if (ch.tx) {
      ch.tx.publishes.push({ exchange: c.exchange, message, mandatory: c.mandatory });
      return;
    }
    route(ch, c.exchange, message, c.mandatory);
  } catch (err) {
    ch.host.methodError(err, ch.number, BASIC_CLASS, BASIC_PUBLISH);
  }
}

/**
 * Routes one message, returns it when unroutable and mandatory, and settles its confirm. True when
 * the store wrote it (a transaction's commit-ok then waits for the store's sync too).
 */
export function route(ch: ChannelState, exchange: Exchange, message: Message, mandatory: boolean): boolean {
  const confirm = ch.confirm;
  const seq = confirm ? confirm.take() : 0;
  const host = ch.host;
  const broker = host.broker;
  const directReply = exchange.name === "" && message.routingKey.startsWith(REPLY_TO_PREFIX);
  const outcome = directReply
    ? (broker.directReply.deliver(message.routingKey, message) ? PUBLISH_ROUTED : PUBLISH_UNROUTED)
    : broker.publish(ch.vhost, exchange, message, ch.routed);
  if ((outcome === PUBLISH_ROUTED || outcome === PUBLISH_STORED) && !directReply) host.flow.check(ch.routed, ch.routed.length);
  const lease = message.lease;
  if (lease !== null) {
    if (directReply || (outcome !== PUBLISH_ROUTED && outcome !== PUBLISH_STORED)) lease.pin();
    else holdForEntries(lease, ch.routed);
  }
  if (outcome === PUBLISH_UNROUTED) {
    if (mandatory) sendReturn(ch, 312, "NO_ROUTE", message);
    ch.stats.unroutable(mandatory);
  }
  if (confirm) {
    ch.stats.publishedForConfirm();
    // A queue at its limit with overflow reject-publish(-dlx) refused it: the publisher gets a nack.
    // A persistent message stored for a durable queue is confirmed only once it is fsynced.
    if (outcome === PUBLISH_REFUSED) storeSynced(ch, seq, false);
    else if (outcome === PUBLISH_STORED) broker.whenStored(ch, seq);
    else storeSynced(ch, seq, true);
  }
  return outcome === PUBLISH_STORED;
}

function sendReturn(ch: ChannelState, code: number, text: string, message: Message): void {
  encodeBasicReturn(ch.output.out, ch.number, { replyCode: code, replyText: text, exchange: message.exchange, routingKey: message.routingKey });
  writeContent(ch.output, ch.number, message);
}

/** What the store synced for the channel (Channel.synced): a confirm (token = seq) or a tx.commit. */
export function storeSynced(ch: ChannelState, token: number, ok: boolean): void {
  const host = ch.host;
  if (token === TX_COMMIT_TOKEN) {
    if (ch.state !== "open" || !host.holdsChannel(ch.number, ch)) return;
    if (ok) encodeTxCommitOk(ch.output.out, ch.number, {});
    else host.methodError(new BrokerError("internalError", "the message store could not write the transaction"), ch.number, 90, 20);
    ch.output.maybeFlush();
    return;
  }
  if (!ch.confirm) return;
  ch.confirm.settle(token, ok);
  ch.output.scheduleFlush();
}

/** Right before the connection writes its buffer: the confirms settled since, coalesced. */
export function writeConfirms(ch: ChannelState): void {
  const tracker = ch.confirm;
  // A closing channel sends nothing but close-ok (AMQP 0-9-1 §2.2.4): its confirms are dropped
  // with it, as RabbitMQ's; the client may already have reused the channel number.
  if (!tracker || tracker.unconfirmed === 0 || ch.state !== "open") return;
  const before = tracker.unconfirmed;
  const out = ch.output.out;
  tracker.drain((deliveryTag, multiple, ack) => {
    if (ack) encodeBasicAck(out, ch.number, { deliveryTag, multiple });
    else encodeBasicNack(out, ch.number, { deliveryTag, multiple, requeue: false });
  });
  ch.stats.confirmed(before - tracker.unconfirmed);
}
