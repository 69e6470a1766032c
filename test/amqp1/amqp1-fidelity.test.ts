// AMQP 1.0 → AMQP 1.0 keeps what the 0-9-1 model cannot hold, as RabbitMQ 4 does: to, subject,
// group-sequence, reply-to-group-id, absolute-expiry-time, application-properties of 1.0-only
// types, an amqp-value body, the footer and the sender's message-annotations; delivery-
// annotations are for one hop and are dropped; x-exchange and x-routing-key are set. A message
// whose headers the broker changed (dead-lettering) is converted from the model instead.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { bodyOf, close, connect, data, openSender, receive, sendAll } from "../helpers/rhea-client.js";
import type { ClientContext } from "../../src/broker/index.js";

describe("AMQP 1.0 → 1.0: the message as it was sent", () => {
  let broker: TestBroker;
  let ctx: ClientContext;

  before(async () => {
    broker = await startTestBroker();
    ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    for (const name of ["kept-q", "kept-dlq"]) broker.broker.declareQueue(ctx, "/", { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
    broker.broker.declareQueue(ctx, "/", { name: "kept-dl", durable: true, autoDelete: false, exclusiveOwner: null, arguments: { "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "kept-dlq" } }, false);
    broker.broker.bindQueue(ctx, "/", "kept-q", "amq.direct", "kept", {});
  });
  after(async () => {
    await broker.close();
  });

  it("keeps properties, application-properties, body sections, footer and message-annotations; drops delivery-annotations", async () => {
    const c = await connect(broker.amqpPort);
    const s = await openSender(c, "/exchanges/amq.direct/kept");
    const expiry = new Date(Date.now() + 3_600_000);
    const outcomes = await sendAll(s, [
      {
        to: "/queues/elsewhere",
        subject: "greeting",
        group_id: "g1",
        group_sequence: 7,
        reply_to_group_id: "rg",
        absolute_expiry_time: expiry,
        message_id: "m-1",
        application_properties: { count: 3, ratio: 0.5, flag: true },
        message_annotations: { "x-opt-origin": "sensor-4" },
        delivery_annotations: { "x-opt-hop": "one" },
        footer: { checksum: "abc" },
        body: { nested: ["value", 1] },
      },
      { subject: "data", body: data("raw bytes") },
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.outcome),
      ["accepted", "accepted"],
    );
    const { messages } = receive(c, "/queues/kept-q", 2, { autoaccept: true });
    const [first, second] = await messages;
    const m = first!.message;
    assert.equal(m.to, "/queues/elsewhere");
    assert.equal(m.subject, "greeting");
    assert.equal(m.group_id, "g1");
    assert.equal(m.group_sequence, 7);
    assert.equal(m.reply_to_group_id, "rg");
    assert.equal((m.absolute_expiry_time as Date).getTime(), expiry.getTime());
    assert.equal(m.message_id, "m-1");
    assert.deepEqual(m.application_properties, { count: 3, ratio: 0.5, flag: true });
    assert.deepEqual(m.body, { nested: ["value", 1] });
    assert.deepEqual(m.footer, { checksum: "abc" });
    assert.equal(m.message_annotations?.["x-opt-origin"], "sensor-4");
    assert.equal(m.message_annotations?.["x-exchange"], "amq.direct");
    assert.equal(m.message_annotations?.["x-routing-key"], "kept");
    assert.equal(m.delivery_annotations, undefined);
    assert.equal(second!.message.subject, "data");
    assert.equal(bodyOf(second!.message).toString(), "raw bytes");
    await close(c);
  });

  it("a dead-lettered message (its headers rewritten by the broker) is converted from the model, with RabbitMQ 4's x-opt-deaths", async () => {
    const c = await connect(broker.amqpPort);
    await sendAll(await openSender(c, "/queues/kept-dl"), [{ subject: "dies", application_properties: { k: "v" }, body: data("dl") }]);
    const { messages } = receive(c, "/queues/kept-dl", 1);
    (await messages)[0]!.delivery.reject();
    const { messages: dead } = receive(c, "/queues/kept-dlq", 1, { autoaccept: true });
    const m = (await dead)[0]!.message;
    assert.equal(bodyOf(m).toString(), "dl");
    assert.equal(m.application_properties?.["k"], "v");
    // The subject survives the rewrite: the model carries the properties section (x-amqp-1.0-properties).
    assert.equal(m.subject, "dies");
    assert.equal(m.application_properties?.["x-amqp-1.0-properties"], undefined);
    // RabbitMQ 4's x-opt-deaths (mc_amqp), not 0-9-1's x-death.
    assert.equal(m.message_annotations?.["x-death"], undefined);
    const deaths = m.message_annotations?.["x-opt-deaths"] as Array<Record<string, unknown>>;
    assert.ok(Array.isArray(deaths), "x-opt-deaths as RabbitMQ 4 annotates a dead-lettered message");
    assert.equal(deaths.length, 1);
    const d = deaths[0]!;
    assert.equal(d["queue"], "kept-dl");
    assert.equal(d["reason"], "rejected");
    assert.equal(Number(d["count"]), 1);
    assert.equal(d["exchange"], "");
    assert.deepEqual(d["routing-keys"], ["kept-dl"]);
    assert.ok(d["first-time"] instanceof Date && d["last-time"] instanceof Date);
    assert.equal(m.message_annotations?.["x-first-death-queue"], "kept-dl");
    assert.equal(m.message_annotations?.["x-first-death-reason"], "rejected");
    await close(c);
  });
});
