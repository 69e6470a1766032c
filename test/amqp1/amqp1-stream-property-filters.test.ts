// RabbitMQ 4.1's AMQP property filter expressions on stream reads over AMQP 1.0: a receiver's
// source carries amqp:properties-filter and/or amqp:application-properties-filter; only matching
// messages are sent (skipped ones take no credit, the x-stream-offset of the next one shows the
// reader moved past them); "&p:" / "&s:" match prefixes / suffixes; messages published over
// AMQP 0-9-1 are matched by their converted properties and headers; the attach echoes only the
// filters taken. Each read ends with a sentinel message that every filter here matches, so a
// wrongly delivered message shows up as a different list (no waiting for an absence).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import rhea from "rhea";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { bodyOf, close, connect, data, openSender, receive, sendAll } from "../helpers/rhea-client.js";
import type { ClientContext } from "../../src/broker/index.js";

const STREAM = "filtered";
const t = rhea.types;
const first = { "rabbitmq:stream-offset-spec": t.wrap_described("first", "rabbitmq:stream-offset-spec") };
/** A properties filter: symbol keys (the draft's field names). */
const props = (m: Record<string, unknown>): unknown => t.wrap_described(t.wrap_map(m, t.wrap_symbol), "amqp:properties-filter");
/** An application-properties filter: string keys; described by its numeric code to test that form. */
const appProps = (m: Record<string, unknown>): unknown => t.wrap_described(t.wrap_map(m), 0x174);

describe("AMQP 1.0 stream property filter expressions", () => {
  let broker: TestBroker;

  before(async () => {
    broker = await startTestBroker();
    const ctx: ClientContext = { permissions: broker.broker.checkerFor("guest"), owner: null };
    broker.broker.declareQueue(ctx, "/", { name: STREAM, durable: true, autoDelete: false, exclusiveOwner: null, arguments: { "x-queue-type": "stream" } }, false);
    const c = await connect(broker.amqpPort);
    const sender = await openSender(c, `/queues/${STREAM}`);
    const first3 = await sendAll(sender, [
      { body: data("m0"), message_id: "id-0.created", application_properties: { region: "eu", n: 1 } },
      { body: data("m1"), message_id: "id-1.shipped", application_properties: { region: "us", n: 2 } },
      { body: data("m2"), message_id: "x-2.created", application_properties: { region: "eu-west" } },
    ] as never);
    assert.ok(first3.every((o) => o.outcome === "accepted"));
    // m3 over AMQP 0-9-1: properties and headers, converted as RabbitMQ 4 converts them.
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createConfirmChannel();
    ch.sendToQueue(STREAM, Buffer.from("m3"), { correlationId: "c-3", messageId: "id-3", headers: { region: "eu" } });
    await ch.waitForConfirms();
    await conn.close();
    const last = await sendAll(sender, [
      { body: data("end"), message_id: "id-end.created", correlation_id: "c-end", application_properties: { region: "eu", n: 1 } },
    ] as never);
    assert.equal(last[0]!.outcome, "accepted");
    await close(c);
  });
  after(async () => {
    await broker.close();
  });

  async function read(filter: Record<string, unknown>, n: number): Promise<{ bodies: string[]; offsets: number[] }> {
    const c = await connect(broker.amqpPort);
    try {
      const { messages } = receive(c, `/queues/${STREAM}`, n, { source: { address: `/queues/${STREAM}`, filter: { ...first, ...filter } }, credit_window: 1, autoaccept: true } as never);
      const got = await messages;
      return { bodies: got.map((r) => bodyOf(r.message).toString()), offsets: got.map((r) => Number(r.message.message_annotations?.["x-stream-offset"])) };
    } finally {
      await close(c);
    }
  }

  it("an application-properties filter sends only matching messages (1.0 and 0-9-1 published), skipping the rest without credit", async () => {
    const got = await read({ "app-filter": appProps({ region: "eu" }) }, 3);
    assert.deepEqual(got.bodies, ["m0", "m3", "end"]);
    // Skipped messages still advance the reader: the offsets jump over them.
    assert.deepEqual(got.offsets, [0, 3, 4]);
  });

  it("a properties filter matches a message-id prefix (&p:) and suffix (&s:)", async () => {
    assert.deepEqual((await read({ "props-filter": props({ "message-id": "&p:id-" }) }, 4)).bodies, ["m0", "m1", "m3", "end"]);
    assert.deepEqual((await read({ "props-filter": props({ "message-id": "&s:.created" }) }, 3)).bodies, ["m0", "m2", "end"]);
  });

  it("both filters must match; numbers match across AMQP types; an application-properties string prefix works", async () => {
    const got = await read({ p: props({ "message-id": "&p:id-" }), a: appProps({ region: "&p:eu", n: t.wrap_ulong(1) }) }, 2);
    assert.deepEqual(got.bodies, ["m0", "end"]);
  });

  it("matches a 0-9-1 message's converted correlation-id and message-id", async () => {
    assert.deepEqual((await read({ p: props({ "correlation-id": "&p:c-" }) }, 2)).bodies, ["m3", "end"]);
    assert.deepEqual((await read({ p: props({ "message-id": "id-3" }) }, 1)).bodies, ["m3"]);
  });

  it("a null reference value matches any value; a missing application property never matches", async () => {
    assert.deepEqual((await read({ a: appProps({ n: null }) }, 3)).bodies, ["m0", "m1", "end"]);
  });

  it("skips a long non-matching backlog across turns of the event loop and delivers what follows", async () => {
    const ctx: ClientContext = { permissions: broker.broker.checkerFor("guest"), owner: null };
    broker.broker.declareQueue(ctx, "/", { name: "backlog", durable: true, autoDelete: false, exclusiveOwner: null, arguments: { "x-queue-type": "stream" } }, false);
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createConfirmChannel();
    for (let i = 0; i < 1000; i++) ch.sendToQueue("backlog", Buffer.from(`n${i}`), { headers: { kind: "noise" } });
    ch.sendToQueue("backlog", Buffer.from("wanted"), { headers: { kind: "signal" } });
    await ch.waitForConfirms();
    await conn.close();
    const c = await connect(broker.amqpPort);
    try {
      const { messages } = receive(c, "/queues/backlog", 1, { source: { address: "/queues/backlog", filter: { ...first, a: appProps({ kind: "signal" }) } }, autoaccept: true } as never);
      const [got] = await messages;
      assert.equal(bodyOf(got!.message).toString(), "wanted");
      assert.equal(Number(got!.message.message_annotations?.["x-stream-offset"]), 1000);
    } finally {
      await close(c);
    }
  });

  it("the attach echoes only the filters it took: invalid or unknown ones are left out and not applied", async () => {
    const c = await connect(broker.amqpPort);
    try {
      const filter = {
        ...first,
        good: props({ "message-id": "&s:.created" }),
        // group-sequence must be a uint (RabbitMQ 4.1): not taken, so the client can tell.
        sequence: props({ "group-sequence": t.wrap_ulong(1) }),
        // "&x:" is no modifier: not accepted (RabbitMQ 4.1 leaves it out rather than refusing the link).
        bad: appProps({ region: "&x:eu" }),
        "jms-selector": t.wrap_described("region = 'eu'", "apache.org:selector-filter:string"),
      };
      const { receiver, messages } = receive(c, `/queues/${STREAM}`, 3, { source: { address: `/queues/${STREAM}`, filter }, autoaccept: true } as never);
      assert.deepEqual(
        (await messages).map((r) => bodyOf(r.message).toString()),
        ["m0", "m2", "end"],
      );
      const echoed = (receiver as unknown as { remote: { attach: { source: { filter: Record<string, unknown> } } } }).remote.attach.source.filter;
      assert.deepEqual(Object.keys(echoed).sort(), ["good", "rabbitmq:stream-offset-spec"]);
    } finally {
      await close(c);
    }
  });
});
