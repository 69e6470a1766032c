// Messages and chunks as RabbitMQ's stream clients write and read them: rabbitmq-stream-js-client
// (npm) encodes a message Coney decodes, and decodes a Deliver frame carrying a chunk Coney's
// chunk log wrote from AMQP 0-9-1 properties (src/amqp10/message-mapping.ts, RabbitMQ 3.10's rules).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BufferDataWriter } from "rabbitmq-stream-js-client/dist/requests/buffer_data_writer.js";
import { amqpEncode } from "rabbitmq-stream-js-client/dist/amqp10/encoder.js";
import { ResponseDecoder } from "rabbitmq-stream-js-client/dist/response_decoder.js";
import type { Message } from "rabbitmq-stream-js-client/dist/publisher.js";
import { decodeMessage } from "../../src/amqp10/message-sections.js";
import { amqp10FromDomain, domainFromAmqp10 } from "../../src/amqp10/message-mapping.js";
import { encodeChunk } from "../../src/store/stream/chunk-format.js";
import type { MessageProperties } from "../../src/broker/values/message-properties.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** The messages rabbitmq-stream-js-client decodes from a Deliver frame carrying `chunk`. */
function clientDecodes(chunk: Buffer): Message[] {
  const body = Buffer.concat([Buffer.from([0x00, 0x08, 0x00, 0x01, 0x07]), chunk]);
  const frame = Buffer.alloc(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, 4);
  const decoder = new ResponseDecoder(() => undefined, silent);
  let got: Message[] = [];
  decoder.on("deliverV1", (r) => (got = r.messages));
  decoder.add(frame, () => { throw new Error("no compression expected"); });
  return got;
}

describe("stream messages with rabbitmq-stream-js-client", () => {
  it("decodes what the client encodes: properties, application properties, annotations, body", () => {
    const w = new BufferDataWriter(Buffer.alloc(4096), 0);
    amqpEncode(w, {
      content: Buffer.from("from a stream client"),
      messageProperties: { messageId: "id-1", correlationId: "c-1", contentType: "text/plain", replyTo: "back", creationTime: new Date(1_700_000_000_000) },
      applicationProperties: { region: "eu", attempt: 3 },
      messageAnnotations: { "x-basic-priority": 4 },
    });
    // amqpEncode writes the entry's uint32 size first, as a chunk entry has it.
    const bytes = (w as unknown as { buffer: Buffer }).buffer.subarray(4, w.offset);
    const { properties, body } = domainFromAmqp10(decodeMessage(bytes));
    assert.equal(body.toString(), "from a stream client");
    assert.equal(properties.messageId, "id-1");
    assert.equal(properties.correlationId, "c-1");
    assert.equal(properties.contentType, "text/plain");
    assert.equal(properties.replyTo, "back");
    assert.equal(properties.timestamp, 1_700_000_000);
    assert.deepEqual(properties.headers, { region: "eu", attempt: 3 });
  });

  it("reads a chunk of AMQP 0-9-1 messages as RabbitMQ 3.10 would have stored them", () => {
    const props: MessageProperties = {
      contentType: "application/json",
      contentEncoding: "gzip",
      messageId: "m-9",
      correlationId: "corr",
      replyTo: "amq.rabbitmq.reply-to",
      timestamp: 1_700_000_001,
      type: "order.created",
      appId: "shop",
      userId: "guest",
      deliveryMode: 2,
      priority: 5,
      expiration: "60000",
      // Types this client decodes in application properties (it reads no long, double or timestamp there).
      headers: { tenant: "t1", count: 7, small: -3, flag: true },
    };
    const body = Buffer.from('{"id":9}');
    const chunk = encodeChunk([amqp10FromDomain(props, [body]), amqp10FromDomain({}, [Buffer.from("plain")])], 100, 1_700_000_002_000);
    const [first, second] = clientDecodes(Buffer.concat(chunk.pieces));
    assert.ok(first && second);
    assert.equal(first.content.toString(), '{"id":9}');
    assert.equal(first.offset, 100n);
    assert.equal(second.offset, 101n);
    assert.equal(second.content.toString(), "plain");
    assert.equal(first.messageProperties?.messageId, "m-9");
    assert.equal(first.messageProperties?.correlationId, "corr");
    assert.equal(first.messageProperties?.contentType, "application/json");
    assert.equal(first.messageProperties?.contentEncoding, "gzip");
    assert.equal(first.messageProperties?.replyTo, "amq.rabbitmq.reply-to");
    assert.equal(first.messageProperties?.creationTime?.getTime(), 1_700_000_001_000);
    assert.deepEqual(first.applicationProperties, { tenant: "t1", count: 7, small: -3, flag: true, "x-basic-type": "order.created", "x-basic-app-id": "shop" });
    assert.equal(first.messageAnnotations?.["x-basic-priority"], 5);
    assert.equal(first.messageAnnotations?.["x-basic-delivery-mode"], 2);
    assert.equal(first.messageAnnotations?.["x-basic-expiration"], "60000");
  });

  it("maps AMQP 0-9-1 properties to 1.0 and back unchanged", () => {
    const props: MessageProperties = { contentType: "text/plain", messageId: "a", correlationId: "b", replyTo: "c", timestamp: 12345, type: "t", appId: "app", userId: "u", deliveryMode: 1, priority: 9, expiration: "1000", headers: { s: "x", n: -5, d: new Date(5000), b: Buffer.from([1]), nil: null } };
    const back = domainFromAmqp10(decodeMessage(Buffer.concat(amqp10FromDomain(props, [Buffer.from("b1"), Buffer.from("b2")]))));
    assert.deepEqual(back.properties, props);
    assert.equal(back.body.toString(), "b1b2");
  });
});
