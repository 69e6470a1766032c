// A persistent AMQP 1.0 message in a durable queue survives a restart in its original form, as
// RabbitMQ 4 stores a message in its original format: after the broker restarts, an AMQP 1.0
// consumer gets the same sections (to, subject, application-properties, an amqp-value body, the
// footer), and a 0-9-1 consumer still gets the model (body and headers).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { close, connect, data, openSender, receive, sendAll } from "../helpers/rhea-client.js";

describe("AMQP 1.0 messages across a restart", () => {
  let dataDir: string;
  let broker: TestBroker | null = null;

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), "coney-amqp1-restart-"));
  });
  after(async () => {
    await broker?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps the sections of a durable 1.0 message for 1.0 consumers, and its model for 0-9-1 ones", async () => {
    broker = await startTestBroker({ dataDir });
    const ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    for (const name of ["kept-1-0", "kept-0-9-1"]) broker.broker.declareQueue(ctx, "/", { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: {} }, false);
    const c = await connect(broker.amqpPort);
    const sections = {
      durable: true,
      to: "/queues/somewhere",
      subject: "kept",
      group_sequence: 3,
      application_properties: { n: 7, flag: true },
      footer: { digest: "f00" },
      body: { nested: ["value", 1] },
    };
    assert.equal((await sendAll(await openSender(c, "/queues/kept-1-0"), [sections]))[0]!.outcome, "accepted");
    const toAmqp091 = { durable: true, subject: "s", application_properties: { h: "v" }, body: data("for 0-9-1") };
    assert.equal((await sendAll(await openSender(c, "/queues/kept-0-9-1"), [toAmqp091]))[0]!.outcome, "accepted");
    await close(c);
    await broker.close();

    broker = await startTestBroker({ dataDir });
    const c2 = await connect(broker.amqpPort);
    const { messages } = receive(c2, "/queues/kept-1-0", 1, { autoaccept: true });
    const m = (await messages)[0]!.message;
    assert.equal(m.durable, true);
    assert.equal(m.to, "/queues/somewhere");
    assert.equal(m.subject, "kept");
    assert.equal(m.group_sequence, 3);
    assert.deepEqual(m.application_properties, { n: 7, flag: true });
    assert.deepEqual(m.footer, { digest: "f00" });
    assert.deepEqual(m.body, { nested: ["value", 1] });
    assert.equal(m.message_annotations?.["x-routing-key"], "kept-1-0");
    await close(c2);

    const ac = await amqp.connect(broker.amqpUrl);
    const ch = await ac.createChannel();
    const got = await ch.get("kept-0-9-1", { noAck: true });
    assert.ok(got);
    assert.equal(got.content.toString(), "for 0-9-1");
    assert.equal(got.properties.headers?.["h"], "v");
    assert.equal(got.properties.deliveryMode, 2);
    await ac.close();
  });
});
