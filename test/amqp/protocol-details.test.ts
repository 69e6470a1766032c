// The rest of the protocol's surface: recover, flow, consumer priorities, channel-wide qos,
// AMQPLAIN, truncated frames, methods on a closing channel, loopback-only users.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Duplex } from "node:stream";
import type { ConsumeMessage } from "amqplib";
import { AmqpConnection } from "../../src/amqp/connection/connection.js";
import { FrameReader } from "../../src/amqp/codec/frame-reader.js";
import { OutputBuffer } from "../../src/amqp/codec/output-buffer.js";
import { decodeMethod, encodeConnectionStartOk, MethodId } from "../../src/amqp/codec/generated.js";
import { createLogger } from "../../src/logging/logger.js";
import { useBrokerWithConnection } from "../helpers/broker-fixture.js";
import { eventually } from "../helpers/wait.js";
import { mustGet } from "../helpers/amqplib-get.js";
import { PROTOCOL_HEADER, WireClient } from "../helpers/wire-client.js";

describe("protocol details", () => {
  const f = useBrokerWithConnection();


  it("basic.recover requeues every unacked message, redelivered", async () => {
    const ch = await f.conn.createChannel();
    const { queue } = await ch.assertQueue("", { exclusive: true });
    ch.sendToQueue(queue, Buffer.from("a"));
    ch.sendToQueue(queue, Buffer.from("b"));
    await ch.checkQueue(queue);
    await mustGet(ch, queue);
    await mustGet(ch, queue);
    await ch.recover();
    const again = await mustGet(ch, queue, { noAck: true });
    assert.equal(again.content.toString(), "a");
    assert.equal(again.fields.redelivered, true);
    await ch.close();
  });

  it("channel.flow active=true is confirmed; active=false is 540 NOT_IMPLEMENTED, as in RabbitMQ", async () => {
    const c = await WireClient.connect(f.broker.amqpPort);
    await c.handshake();
    c.send(1, { id: MethodId.ChannelOpen, name: "channel.open", args: { outOfBand: "" } });
    await c.nextMethod();
    c.send(1, { id: MethodId.ChannelFlow, name: "channel.flow", args: { active: true } });
    const ok = await c.nextMethod();
    assert.equal(ok.method.id, MethodId.ChannelFlowOk);
    c.send(1, { id: MethodId.ChannelFlow, name: "channel.flow", args: { active: false } });
    const { method } = await c.nextMethod();
    assert.equal(method.id, MethodId.ConnectionClose);
    if (method.id === MethodId.ConnectionClose) assert.equal(method.args.replyText, "NOT_IMPLEMENTED - active=false");
    c.close();
  });

  it("higher-priority consumers get messages first while they have capacity", async () => {
    const ch = await f.conn.createChannel();
    await ch.prefetch(1);
    const { queue } = await ch.assertQueue("", { exclusive: true });
    const low: ConsumeMessage[] = [];
    const high: ConsumeMessage[] = [];
    await ch.consume(queue, (m) => void low.push(m!), { priority: 1 });
    await ch.consume(queue, (m) => void high.push(m!), { priority: 10 });
    ch.sendToQueue(queue, Buffer.from("1"));
    await eventually(() => high.length === 1, 3000, "first to the high-priority consumer");
    ch.sendToQueue(queue, Buffer.from("2"));
    await eventually(() => low.length === 1, 3000, "second to the low one (high is at prefetch)");
    assert.equal(high.length, 1);
    await ch.close();
  });

  it("global qos limits the whole channel", async () => {
    const ch = await f.conn.createChannel();
    await ch.prefetch(2, true);
    const { queue } = await ch.assertQueue("", { exclusive: true });
    for (let i = 0; i < 6; i++) ch.sendToQueue(queue, Buffer.from(String(i)));
    const got: ConsumeMessage[] = [];
    await ch.consume(queue, (m) => void got.push(m!));
    await ch.consume(queue, (m) => void got.push(m!));
    await eventually(() => got.length === 2, 3000, "2 deliveries");
    await ch.checkQueue(queue);
    assert.equal(got.length, 2, "two consumers share the channel's limit of 2");
    await ch.close();
  });

  it("AMQPLAIN login works", async () => {
    const c = await WireClient.connect(f.broker.amqpPort);
    c.write(PROTOCOL_HEADER);
    await c.nextMethod();
    const t = new OutputBuffer();
    t.writeShortString("LOGIN");
    t.writeValue("guest");
    t.writeShortString("PASSWORD");
    t.writeValue("guest");
    c.send(0, { id: MethodId.ConnectionStartOk, name: "connection.start-ok", args: { clientProperties: {}, mechanism: "AMQPLAIN", response: t.take(), locale: "en_US" } });
    const { method } = await c.nextMethod();
    assert.equal(method.id, MethodId.ConnectionTune);
    c.close();
  });

  it("a truncated frame followed by silence leaves others unaffected; a closing channel ignores methods", async () => {
    const c = await WireClient.connect(f.broker.amqpPort);
    await c.handshake();
    c.write(Buffer.from([1, 0, 1, 0, 0, 0, 50, 0, 20])); // announces 50 bytes, sends 2
    const other = await f.conn.createChannel();
    await other.checkExchange("amq.direct");
    c.close();

    const w = await WireClient.connect(f.broker.amqpPort);
    await w.handshake();
    w.send(1, { id: MethodId.ChannelOpen, name: "channel.open", args: { outOfBand: "" } });
    await w.nextMethod();
    w.send(1, { id: MethodId.QueueDeclare, name: "queue.declare", args: { ticket: 0, queue: "nope", passive: true, durable: false, exclusive: false, autoDelete: false, nowait: false, arguments: {} } });
    const closeMsg = await w.nextMethod();
    assert.equal(closeMsg.method.id, MethodId.ChannelClose);
    // The channel is closing: methods are ignored until close-ok (no second error).
    w.send(1, { id: MethodId.BasicQos, name: "basic.qos", args: { prefetchSize: 0, prefetchCount: 1, global: false } });
    w.send(1, { id: MethodId.ChannelCloseOk, name: "channel.close-ok", args: {} });
    w.send(1, { id: MethodId.ChannelOpen, name: "channel.open", args: { outOfBand: "" } });
    const reopened = await w.nextMethod();
    assert.equal(reopened.method.id, MethodId.ChannelOpenOk, "the channel number is reusable after close-ok");
    w.close();
  });

  it("loopback-only users are refused from other addresses", async () => {
    // An in-memory stream that claims a remote address: no network traffic leaves the machine.
    const replies: Buffer[] = [];
    const fake = new Duplex({
      read() {},
      write(chunk: Buffer, _enc, cb) {
        replies.push(chunk);
        cb();
      },
    });
    Object.assign(fake, { remoteAddress: "192.0.2.10", remotePort: 40000, localAddress: "192.0.2.1", localPort: 5672 });
    new AmqpConnection(fake, f.broker.broker, { ...settings(), loopbackUsers: ["guest"] }, createLogger("silent"));
    fake.push(PROTOCOL_HEADER);
    const startOk = new OutputBuffer();
    encodeConnectionStartOk(startOk, 0, { clientProperties: {}, mechanism: "PLAIN", response: Buffer.from("\0guest\0guest"), locale: "en_US" });
    fake.push(startOk.take());
    await eventually(() => replies.length >= 2, 3000, "a reply to start-ok");
    const r = new FrameReader(1 << 20);
    r.push(Buffer.concat(replies));
    const methods = [];
    while (r.next()) methods.push(decodeMethod(r.payloadBuf, r.payloadStart, r.payloadEnd));
    const close = methods.find((m) => m.id === MethodId.ConnectionClose);
    assert.ok(close && close.id === MethodId.ConnectionClose);
    assert.equal(close.args.replyCode, 403);
  });
});

function settings() {
  return { channelMax: 2047, frameMax: 131072, heartbeat: 0, maxMessageSize: 1 << 27, loopbackUsers: [], handshakeTimeout: 10, clusterName: "test" };
}
