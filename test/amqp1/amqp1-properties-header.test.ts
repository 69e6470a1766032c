// A 1.0 message's to/subject/… ride through the 0-9-1 model in the x-amqp-1.0-properties header
// (src/amqp1/properties-header.ts): a 0-9-1 consumer sees it as RabbitMQ 3.x's AMQP 1.0 plugin
// shows it (the encoded properties section, as bytes), a message without those fields carries no
// such header, and a STOMP consumer gets the message whole — a header holding a NUL is left out,
// since a NUL ends a STOMP frame.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { close, connect, data, openSender, sendAll } from "../helpers/rhea-client.js";
import { StompWire } from "../helpers/stomp-wire.js";
import type { ClientContext } from "../../src/broker/index.js";

describe("AMQP 1.0 properties the 0-9-1 model has no place for", () => {
  let broker: TestBroker;

  before(async () => {
    broker = await startTestBroker({ stompPort: 0 });
    const ctx: ClientContext = { permissions: broker.broker.checkerFor("guest"), owner: null };
    for (const name of ["to-091", "to-stomp"]) broker.broker.declareQueue(ctx, "/", { name, durable: false, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
  });
  after(async () => {
    await broker.close();
  });

  it("a 0-9-1 consumer gets them in the x-amqp-1.0-properties header only when the message has one of them", async () => {
    const c = await connect(broker.amqpPort);
    const outcomes = await sendAll(await openSender(c, "/queues/to-091"), [
      { body: data("with"), subject: "s-1", message_id: "m-1" },
      { body: data("without"), message_id: "m-2" },
    ] as never);
    assert.ok(outcomes.every((o) => o.outcome === "accepted"));
    await close(c);
    const conn = await amqp.connect(broker.amqpUrl);
    conn.on("error", () => undefined);
    try {
      const ch = await conn.createChannel();
      const first = await ch.get("to-091", { noAck: true });
      const second = await ch.get("to-091", { noAck: true });
      assert.ok(first && second);
      assert.equal(first.properties.messageId, "m-1");
      const section = first.properties.headers?.["x-amqp-1.0-properties"] as Buffer;
      assert.ok(Buffer.isBuffer(section), "the section as bytes");
      // A described list (0x00 0x53 0x73 …) holding the subject.
      assert.deepEqual([...section.subarray(0, 3)], [0x00, 0x53, 0x73]);
      assert.ok(section.includes(Buffer.from("s-1")));
      assert.equal(second.properties.messageId, "m-2");
      assert.equal(second.properties.headers?.["x-amqp-1.0-properties"], undefined);
    } finally {
      await conn.close();
    }
  });

  it("a STOMP consumer gets the message whole, without the binary header", async () => {
    const w = await StompWire.login(broker.stompPort!);
    try {
      w.send("SUBSCRIBE", { destination: "/amq/queue/to-stomp", id: "s", ack: "auto" });
      const c = await connect(broker.amqpPort);
      await sendAll(await openSender(c, "/queues/to-stomp"), [
        { body: data("first"), subject: "s-1", application_properties: { k: "v" } },
        { body: data("second"), subject: "s-2" },
      ] as never);
      await close(c);
      const a = await w.next();
      const b = await w.next();
      assert.equal(a.command, "MESSAGE");
      assert.equal(a.body.toString(), "first");
      assert.equal(a.headers["k"], "v");
      assert.equal(a.headers["x-amqp-1.0-properties"], undefined);
      assert.equal(b.command, "MESSAGE");
      assert.equal(b.body.toString(), "second");
    } finally {
      w.close();
    }
  });
});
