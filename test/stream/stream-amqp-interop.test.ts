// One stream, both protocols: a stream declared over AMQP 0-9-1 (amqplib) and written there is read
// by rabbitmq-stream-js-client with RabbitMQ 3.10's message mapping (plus the header section's
// priority and durable that RabbitMQ 3.13+ writes), and a stream created and
// written natively is read by amqplib with its properties, headers and x-stream-offset; live
// consumers of either protocol get what the other publishes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ConsumeMessage } from "amqplib";
import { Offset } from "rabbitmq-stream-js-client";
import type { Message } from "rabbitmq-stream-js-client/dist/publisher.js";
import { collector, withTimeout } from "../helpers/wait.js";
import { useStreamAndAmqp } from "./stream-helpers.js";

describe("streams across AMQP 0-9-1 and the native protocol", () => {
  const fx = useStreamAndAmqp();
  it("reads natively what amqplib published to a stream it declared", async () => {
    await fx.ch.assertQueue("from-amqp", { durable: true, arguments: { "x-queue-type": "stream" } });
    fx.ch.sendToQueue("from-amqp", Buffer.from("hello native"), {
      contentType: "text/plain",
      messageId: "m-1",
      correlationId: "c-1",
      type: "greeting",
      appId: "test-app",
      priority: 3,
      headers: { region: "eu", attempt: 2 },
    });
    fx.ch.sendToQueue("from-amqp", Buffer.from("second"));
    await fx.ch.waitForConfirms();
    const got = collector<Message>(2);
    await fx.client.declareConsumer({ stream: "from-amqp", offset: Offset.first() }, (m) => got.push(m));
    const [m1, m2] = await withTimeout(got.done, 5000, "2 native deliveries");
    assert.equal(m1!.content.toString(), "hello native");
    assert.equal(m1!.offset, 0n);
    assert.equal(m1!.messageProperties?.contentType, "text/plain");
    assert.equal(m1!.messageProperties?.messageId, "m-1");
    assert.equal(m1!.messageProperties?.correlationId, "c-1");
    assert.equal(m1!.applicationProperties?.["region"], "eu");
    assert.equal(m1!.applicationProperties?.["attempt"], 2);
    assert.equal(m1!.applicationProperties?.["x-basic-type"], "greeting");
    assert.equal(m1!.messageAnnotations?.["x-basic-priority"], 3);
    // The header section too, as RabbitMQ 3.13+ writes it (the client's own suite reads it there).
    assert.equal(m1!.messageHeader?.priority, 3);
    assert.equal(m1!.messageHeader?.durable, false, "not published persistent");
    assert.equal(m2!.content.toString(), "second");
    assert.equal(m2!.messageHeader?.priority, undefined);
    assert.equal(m2!.offset, 1n);
  });

  it("reads with amqplib what a native publisher wrote to a stream it created", async () => {
    await fx.client.createStream({ stream: "from-native" });
    const p = await fx.client.declarePublisher({ stream: "from-native" });
    await p.send(Buffer.from("hello amqp"), {
      messageProperties: { contentType: "application/json", messageId: "n-1", correlationId: "nc-1", replyTo: "answers", creationTime: new Date(1_700_000_000_000) },
      applicationProperties: { tenant: "acme", count: 7 },
    });
    await p.send(Buffer.from("plain"));
    await p.flush();
    const read = await fx.ch.assertQueue("from-native", { durable: true, arguments: { "x-queue-type": "stream" } });
    assert.equal(read.queue, "from-native");
    await fx.ch.prefetch(10);
    const got = collector<ConsumeMessage>(2);
    await fx.ch.consume("from-native", (m) => {
      if (!m) return;
      got.push(m);
      fx.ch.ack(m);
    }, { arguments: { "x-stream-offset": "first" } });
    const [a, c] = await withTimeout(got.done, 5000, "2 AMQP deliveries");
    assert.equal(a!.content.toString(), "hello amqp");
    assert.equal(a!.properties.contentType, "application/json");
    assert.equal(a!.properties.messageId, "n-1");
    assert.equal(a!.properties.correlationId, "nc-1");
    assert.equal(a!.properties.replyTo, "answers");
    assert.equal(a!.properties.timestamp, 1_700_000_000);
    assert.equal(a!.properties.headers!["tenant"], "acme");
    assert.equal(a!.properties.headers!["count"], 7);
    assert.equal(a!.properties.headers!["x-stream-offset"], 0);
    assert.equal(c!.content.toString(), "plain");
    assert.equal(c!.properties.headers!["x-stream-offset"], 1);
  });

  it("delivers live across protocols: native publish to an AMQP consumer, AMQP publish to a native one", async () => {
    await fx.client.createStream({ stream: "live" });
    const native = collector<string>(1);
    await fx.client.declareConsumer({ stream: "live", offset: Offset.next() }, (m) => native.push(m.content.toString()));
    const amqpGot = collector<string>(1);
    const ch2 = await fx.conn.createChannel();
    await ch2.prefetch(5);
    await ch2.consume("live", (m) => {
      if (!m) return;
      amqpGot.push(m.content.toString());
      ch2.ack(m);
    }, { arguments: { "x-stream-offset": "next" } });
    fx.ch.sendToQueue("live", Buffer.from("over amqp"));
    await fx.ch.waitForConfirms();
    assert.deepEqual(await withTimeout(native.done, 5000, "native live delivery"), ["over amqp"]);
    assert.deepEqual(await withTimeout(amqpGot.done, 5000, "AMQP live delivery"), ["over amqp"]);
    const native2 = collector<string>(2);
    await fx.client.declareConsumer({ stream: "live", offset: Offset.first() }, (m) => native2.push(m.content.toString()));
    const amqp2 = collector<string>(1);
    await ch2.consume("live", (m) => {
      if (!m) return;
      if (m.content.toString() === "over stream") amqp2.push("over stream");
      ch2.ack(m);
    }, { arguments: { "x-stream-offset": "next" } });
    const p = await fx.client.declarePublisher({ stream: "live" });
    await p.send(Buffer.from("over stream"));
    await p.flush();
    assert.deepEqual(await withTimeout(native2.done, 5000, "native replay"), ["over amqp", "over stream"]);
    assert.deepEqual(await withTimeout(amqp2.done, 5000, "AMQP live delivery of a native message"), ["over stream"]);
  });
});
