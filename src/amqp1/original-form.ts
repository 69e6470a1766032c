/**
 * A message published over AMQP 1.0 kept in its own form for AMQP 1.0 consumers (the domain's
 * OriginalEncoding, format "amqp-1.0"), as RabbitMQ 4 keeps a message in its original format: a
 * 1.0 consumer gets the sender's header, properties (to, subject, group-sequence,
 * reply-to-group-id …), application-properties of every 1.0 type, body sections and footer byte
 * for byte, and the sender's message-annotations with RabbitMQ 4's x-exchange and x-routing-key
 * set. Delivery-annotations are for the next hop only and are not kept (part 3 §3.2.2).
 *
 * parts: [header section or nothing, message-annotations section, the rest] — written in that
 * order as the transfer's payload; the rest is a slice of the received payload (not copied), or
 * for a message that came in several transfers the slices of each (pieced-message.ts), in order.
 * A stream stores these parts as its record of the message (stored-original.ts).
 *
 * The hot path: a message without annotations of its own takes the annotations section its link
 * encoded last for the same exchange and key (one Buffer shared by every such message), so a
 * delivery encodes nothing per message.
 */
import type { OriginalEncoding } from "../broker/index.js";
import { isBodyParts } from "../broker/values/message-body.js";
import { encodeAmqp10 } from "../amqp10/amqp10-encoder.js";
import type { Amqp10Map } from "../amqp10/message-sections.js";
import { SECTION } from "../amqp10/message-sections.js";
import { str, sym, textOf, type Amqp10Value } from "../amqp10/amqp10-value.js";
import type { ConvertedMessage } from "./message-conversion.js";
import { AMQP10_FORMAT } from "../amqp10/stored-original.js";

export const AMQP1_FORMAT = AMQP10_FORMAT;

const isRouting = (k: Amqp10Value): boolean => {
  const t = textOf(k);
  return t === "x-exchange" || t === "x-routing-key";
};

function annotationsSection(own: Amqp10Map, exchange: string, routingKey: string): Buffer {
  // RabbitMQ 4's order (mc_amqp puts them first); a stream record kept whole is known by it (stored-original.ts).
  const map: Array<readonly [Amqp10Value, Amqp10Value]> = [[sym("x-routing-key"), str(routingKey)], [sym("x-exchange"), str(exchange)]];
  for (const kv of own) if (!isRouting(kv[0])) map.push(kv);
  return encodeAmqp10({ type: "described", descriptor: { type: "ulong", value: BigInt(SECTION.messageAnnotations) }, value: { type: "map", value: map } });
}

/** One incoming link's builder: it remembers the last routing-only annotations section. */
export class OriginalForms {
  private exchange = "";
  private routingKey = "";
  private routingOnly: Buffer | null = null;

  of(m: ConvertedMessage, exchange: string, routingKey: string): OriginalEncoding {
    let annotations: Buffer;
    if (m.annotations.length > 0) {
      annotations = annotationsSection(m.annotations, exchange, routingKey);
    } else {
      if (this.routingOnly === null || exchange !== this.exchange || routingKey !== this.routingKey) {
        this.routingOnly = annotationsSection([], exchange, routingKey);
        this.exchange = exchange;
        this.routingKey = routingKey;
      }
      annotations = this.routingOnly;
    }
    const rest = m.rest;
    if (isBodyParts(rest)) return { format: AMQP1_FORMAT, parts: m.header === null ? [annotations, ...rest] : [m.header, annotations, ...rest] };
    return { format: AMQP1_FORMAT, parts: m.header === null ? [annotations, rest] : [m.header, annotations, rest] };
  }
}
