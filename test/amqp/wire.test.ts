// Wire-level behaviour: protocol header checks, bad and oversized frames, methods on closed
// channels, heartbeats — each gets the protocol's answer, and other connections carry on.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { FRAME_HEARTBEAT, MethodId } from "../../src/amqp/codec/generated.js";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { PROTOCOL_HEADER, WireClient } from "../helpers/wire-client.js";

describe("wire protocol", () => {
  let broker: TestBroker;

  before(async () => {
    broker = await startTestBroker({ frameMax: 131072 });
  });
  after(async () => {
    await broker.close();
  });

  it("answers a wrong protocol header with AMQP 0-9-1's and closes", async () => {
    const c = await WireClient.connect(broker.amqpPort);
    c.write(Buffer.from("AMQP\x00\x00\x09\x02", "latin1"));
    await c.waitClosed();
    assert.deepEqual(Buffer.concat(c.raw), PROTOCOL_HEADER);
  });

  it("answers an HTTP request on the AMQP port with the protocol header", async () => {
    const c = await WireClient.connect(broker.amqpPort);
    c.write(Buffer.from("GET / HTTP/1.1\r\n\r\n"));
    await c.waitClosed();
    assert.deepEqual(Buffer.concat(c.raw), PROTOCOL_HEADER);
  });

  it("refuses bad credentials with 403 ACCESS_REFUSED on connection.close", async () => {
    const c = await WireClient.connect(broker.amqpPort);
    c.write(PROTOCOL_HEADER);
    await c.nextMethod();
    c.send(0, {
      id: MethodId.ConnectionStartOk,
      name: "connection.start-ok",
      args: { clientProperties: {}, mechanism: "PLAIN", response: Buffer.from("\0guest\0wrong"), locale: "en_US" },
    });
    const { method } = await c.nextMethod();
    assert.equal(method.id, MethodId.ConnectionClose);
    if (method.id !== MethodId.ConnectionClose) return;
    assert.equal(method.args.replyCode, 403);
    assert.match(method.args.replyText, /^ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN/);
    await c.waitClosed();
  });

  it("closes with 501 FRAME_ERROR on a frame larger than frame_max", async () => {
    const c = await WireClient.connect(broker.amqpPort);
    await c.handshake();
    const big = Buffer.alloc(7 + 200_000 + 1);
    big.writeUInt8(1, 0);
    big.writeUInt16BE(1, 1);
    big.writeUInt32BE(200_000, 3);
    big.writeUInt8(0xce, big.length - 1);
    c.write(big);
    const { method } = await c.nextMethod();
    assert.equal(method.id, MethodId.ConnectionClose);
    if (method.id === MethodId.ConnectionClose) assert.equal(method.args.replyCode, 501);
  });

  it("closes with an error on garbage after the handshake, without disturbing others", async () => {
    const good = await amqp.connect(broker.amqpUrl);
    const ch = await good.createChannel();
    const { queue } = await ch.assertQueue("", { exclusive: true });
    const c = await WireClient.connect(broker.amqpPort);
    await c.handshake();
    c.write(Buffer.from([1, 0, 1, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0x00])); // bad frame end
    const { method } = await c.nextMethod();
    assert.equal(method.id, MethodId.ConnectionClose);
    if (method.id === MethodId.ConnectionClose) assert.equal(method.args.replyCode, 501);
    for (const junk of [Buffer.from("garbage!"), Buffer.alloc(100, 0xaa)]) {
      const g = await WireClient.connect(broker.amqpPort);
      g.write(junk);
      await g.waitClosed();
    }
    ch.sendToQueue(queue, Buffer.from("still fine"));
    const m = await ch.get(queue, { noAck: true });
    assert.ok(m && m.content.toString() === "still fine");
    await good.close();
  });

  it("an unknown method id is a connection error, not a crash", async () => {
    const c = await WireClient.connect(broker.amqpPort);
    await c.handshake();
    const payload = Buffer.from([0, 60, 0x12, 0x34]); // basic class, no such method
    const frame = Buffer.alloc(7 + payload.length + 1);
    frame.writeUInt8(1, 0);
    frame.writeUInt16BE(1, 1);
    frame.writeUInt32BE(payload.length, 3);
    payload.copy(frame, 7);
    frame.writeUInt8(0xce, frame.length - 1);
    c.write(frame);
    const { method } = await c.nextMethod();
    assert.equal(method.id, MethodId.ConnectionClose);
  });

  it("a method on a channel that was never opened gets 504 CHANNEL_ERROR", async () => {
    const c = await WireClient.connect(broker.amqpPort);
    await c.handshake();
    c.send(5, { id: MethodId.BasicQos, name: "basic.qos", args: { prefetchSize: 0, prefetchCount: 1, global: false } });
    const { method } = await c.nextMethod();
    assert.equal(method.id, MethodId.ConnectionClose);
    if (method.id === MethodId.ConnectionClose) {
      assert.equal(method.args.replyCode, 504);
      assert.equal(method.args.replyText, "CHANNEL_ERROR - expected 'channel.open'");
    }
  });

  it("sends heartbeats and closes a silent peer", async () => {
    const c = await WireClient.connect(broker.amqpPort);
    await c.handshake(1); // 1 s heartbeat: we send every 0.5 s, the peer is silent
    await c.waitClosed(5000);
    assert.ok(c.count(FRAME_HEARTBEAT) >= 2, `saw ${c.count(FRAME_HEARTBEAT)} heartbeats`);
  });

  it("a client that answers heartbeats stays connected", async () => {
    const c = await WireClient.connect(broker.amqpPort);
    await c.handshake(1);
    const hb = Buffer.from([8, 0, 0, 0, 0, 0, 0, 0xce]);
    const t = setInterval(() => c.write(hb), 400);
    await new Promise((r) => setTimeout(r, 2500));
    clearInterval(t);
    assert.equal(c.closed, false);
    c.close();
  });
});
