/**
 * The frames that carry a message to a client: basic.deliver, and the content (header and body
 * frames) that follows a deliver, get-ok or return. Per message this allocates nothing: the
 * deliver arguments are one scratch object, filled and encoded synchronously, and received
 * property bytes are sent back as they came.
 */
import { writeBody } from "../codec/body-frames.js";
import { EXTERNAL_BODY_MIN } from "../codec/output-buffer.js";
import { encodeBasicDeliver, encodeBasicProperties, writeContentHeader, type BasicDeliverArgs } from "../codec/generated.js";
import type { Message } from "../../broker/index.js";
import type { ChannelOutput } from "./channel-host.js";

export const BASIC_CLASS = 60;

/** Scratch arguments for basic.deliver; encoding never re-enters, so one object serves every channel. */
const deliverArgs: BasicDeliverArgs = { consumerTag: "", deliveryTag: 0, redelivered: false, exchange: "", routingKey: "" };

/** basic.deliver followed by the message's content (`copyBody`: the body is lent, see Queue.lendsBodies). */
export function writeDelivery(output: ChannelOutput, channel: number, consumerTag: string, deliveryTag: number, redelivered: boolean, m: Message, copyBody = false): void {
  const a = deliverArgs;
  a.consumerTag = consumerTag;
  a.deliveryTag = deliveryTag;
  a.redelivered = redelivered;
  a.exchange = m.exchange;
  a.routingKey = m.routingKey;
  encodeBasicDeliver(output.out, channel, a);
  writeContent(output, channel, m, copyBody);
}

/** Writes a message's content header (re-sending received property bytes) and body frames. */
export function writeContent(output: ChannelOutput, channel: number, m: Message, copyBody = false): void {
  const out = output.out;
  m.rawProperties ??= encodeBasicProperties(m.properties);
  writeContentHeader(out, channel, BASIC_CLASS, m.bodySize, m.rawProperties);
  // A lent body sent by reference is held until the socket has written it (values/body-lease.ts).
  // (A body under EXTERNAL_BODY_MIN is copied into the output: nothing to hold.)
  const lease = m.lease;
  if (lease !== null && !copyBody && m.bodySize >= EXTERNAL_BODY_MIN) out.holdUntilWritten(lease);
  writeBody(out, channel, m.body, output.frameMax, copyBody);
  output.maybeFlush();
}
