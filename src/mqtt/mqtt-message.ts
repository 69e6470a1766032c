/**
 * MQTT PUBLISH ↔ the broker's Message, with RabbitMQ's mapping (its mc_mqtt ↔ AMQP 0-9-1):
 * QoS 1 is delivery mode 2 (persistent) and QoS 0 delivery mode 1; QoS 2 is delivery mode 2 with
 * header x-mqtt-publish-qos 2 (RabbitMQ 3.x's header name), so a QoS 2 subscriber gets it at QoS 2; MQTT 5's content type is
 * content-type, correlation data is correlation-id (header x-correlation-id when it does not fit
 * a short string), response topic is header x-reply-to-topic (as an AMQP key), message expiry
 * is the per-message TTL (expiration, ms), user properties are string headers.
 */
import type { IPublishPacket, QoS, UserProperties } from "mqtt-packet";
import { createMessage, type Message } from "../broker/index.js";
import type { FieldTable } from "../broker/values/field-value.js";
import { joinBody } from "../broker/values/message-body.js";
import type { MessageProperties } from "../broker/values/message-properties.js";
import { amqpToMqtt, mqttToAmqp } from "./mqtt-topic.js";

export type PublishProperties = NonNullable<IPublishPacket["properties"]>;

/** A PUBLISH packet's payload as bytes (mqtt-packet parses it as a Buffer; a will may be a string). */
export function payloadOf(p: Pick<IPublishPacket, "payload">): Buffer {
  return typeof p.payload === "string" ? Buffer.from(p.payload) : p.payload;
}

/** The broker's message for an MQTT PUBLISH (or will) routed with `routingKey` through `exchange`. */
export function messageFromPublish(qos: QoS, mp: PublishProperties | undefined, payload: Buffer, exchange: string, routingKey: string, now: number): Message {
  const props: MessageProperties = { deliveryMode: qos === 0 ? 1 : 2 };
  if (mp !== undefined) mapPublishProperties(mp, props);
  if (qos === 2) props.headers = { ...props.headers, [QOS_HEADER]: 2 };
  return createMessage(exchange, routingKey, props, null, payload, now);
}

function mapPublishProperties(mp: PublishProperties, props: MessageProperties): void {
  const headers: FieldTable = {};
  let hasHeaders = false;
  if (mp.userProperties !== undefined) {
    for (const [k, v] of Object.entries(mp.userProperties)) {
      // AMQP field tables have unique keys: a repeated MQTT user property keeps its first value.
      if (Buffer.byteLength(k) > 255) continue;
      headers[k] = Array.isArray(v) ? v[0]! : v;
      hasHeaders = true;
    }
  }
  if (mp.contentType !== undefined && isShortString(mp.contentType)) props.contentType = mp.contentType;
  if (mp.responseTopic !== undefined) {
    headers["x-reply-to-topic"] = mqttToAmqp(mp.responseTopic);
    hasHeaders = true;
  }
  if (mp.correlationData !== undefined) {
    const text = mp.correlationData.toString("utf8");
    if (Buffer.from(text, "utf8").equals(mp.correlationData) && isShortString(text)) props.correlationId = text;
    else {
      headers["x-correlation-id"] = mp.correlationData;
      hasHeaders = true;
    }
  }
  if (mp.messageExpiryInterval !== undefined) props.expiration = String(mp.messageExpiryInterval * 1000);
  if (mp.payloadFormatIndicator === true) {
    // Forwarded unaltered to MQTT 5 subscribers (§3.3.2.3.2).
    headers[PAYLOAD_FORMAT_HEADER] = 1;
    hasHeaders = true;
  }
  if (hasHeaders) props.headers = headers;
}

function isShortString(s: string): boolean {
  return Buffer.byteLength(s) <= 255;
}

const QOS_HEADER = "x-mqtt-publish-qos";
/** MQTT 5 Payload Format Indicator 1 (UTF-8 payload), kept as a header of Coney's. */
const PAYLOAD_FORMAT_HEADER = "x-mqtt-payload-format-indicator";

/** The QoS a message was published with: persistent messages count as QoS 1 (RabbitMQ's rule), unless marked QoS 2. */
export function messageQos(m: Message): QoS {
  const p = m.properties;
  if (p.deliveryMode !== 2) return 0;
  return p.headers !== undefined && p.headers[QOS_HEADER] === 2 ? 2 : 1;
}

/**
 * The PUBLISH packet that delivers `m` to a subscriber. MQTT 5 properties are filled only for
 * MQTT 5 clients; the message expiry sent is what remains of the TTL (MQTT 5 §3.3.2.3.3).
 */
export function publishFromMessage(m: Message, qos: QoS, messageId: number, dup: boolean, v5: boolean, now: number): IPublishPacket {
  const packet: IPublishPacket = { cmd: "publish", topic: amqpToMqtt(m.routingKey), payload: joinBody(m.body), qos, dup, retain: false };
  if (qos > 0) packet.messageId = messageId;
  if (v5) {
    const properties = propertiesForV5(m, now);
    if (properties !== null) packet.properties = properties;
  }
  return packet;
}

/** True when an MQTT 5 PUBLISH of `m` carries no properties (the cheap test before the fast encoder). */
export function hasNoV5Properties(m: Message): boolean {
  const p = m.properties;
  return p.contentType === undefined && p.correlationId === undefined && p.expiration === undefined && p.headers === undefined;
}

function propertiesForV5(m: Message, now: number): PublishProperties | null {
  const p = m.properties;
  const out: PublishProperties = {};
  let any = false;
  if (p.contentType !== undefined) {
    out.contentType = p.contentType;
    any = true;
  }
  if (p.correlationId !== undefined) {
    out.correlationData = Buffer.from(p.correlationId, "utf8");
    any = true;
  }
  if (p.expiration !== undefined) {
    const ttl = Number(p.expiration);
    if (Number.isFinite(ttl)) {
      out.messageExpiryInterval = Math.max(0, Math.floor((m.publishedAt + ttl - now) / 1000));
      any = true;
    }
  }
  const headers = p.headers;
  if (headers !== undefined) {
    const user: UserProperties = {};
    let anyUser = false;
    for (const [k, v] of Object.entries(headers)) {
      if (k === PAYLOAD_FORMAT_HEADER) {
        out.payloadFormatIndicator = true;
        any = true;
      } else if (k === "x-reply-to-topic" && typeof v === "string") {
        out.responseTopic = amqpToMqtt(v);
        any = true;
      } else if (k === "x-correlation-id" && out.correlationData === undefined && (typeof v === "string" || Buffer.isBuffer(v))) {
        out.correlationData = Buffer.isBuffer(v) ? v : Buffer.from(v, "utf8");
        any = true;
      } else if (typeof v === "string" && !k.startsWith("x-")) {
        // RabbitMQ passes string headers as user properties, except its own x- headers.
        user[k] = v;
        anyUser = true;
      }
    }
    if (anyUser) {
      out.userProperties = user;
      any = true;
    }
  }
  return any ? out : null;
}
