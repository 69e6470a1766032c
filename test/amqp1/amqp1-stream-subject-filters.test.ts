// RabbitMQ 4.1's property filter expressions on the properties the 0-9-1 model has no place for
// (to, subject, group-sequence, reply-to-group-id, absolute-expiry-time), on a stream read over
// AMQP 1.0: the stream keeps them (the x-amqp-1.0-properties header, src/amqp1/properties-header.ts),
// in memory and on disk (checked again after a restart, when every message is read back from the
// stream's files). A 0-9-1 message has none of them, as RabbitMQ 4 converts it, unless its
// publisher sets the x-amqp-1.0-properties header, which RabbitMQ 4 reads as the properties.
// RabbitMQ 4.2's SQL filter expressions select on the same fields.
// Each read ends with a sentinel message that every filter here matches, so a wrongly delivered
// message shows up as a different list (no waiting for an absence).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import rhea from "rhea";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { bodyOf, close, connect, data, openSender, receive, sendAll, type Received } from "../helpers/rhea-client.js";

const STREAM = "subjects";
const t = rhea.types;
const first = { "rabbitmq:stream-offset-spec": t.wrap_described("first", "rabbitmq:stream-offset-spec") };
const props = (m: Record<string, unknown>): unknown => t.wrap_described(t.wrap_map(m, t.wrap_symbol), "amqp:properties-filter");
const EXPIRY = new Date(Date.UTC(2030, 0, 1));

/** A properties section written by hand (descriptor 0x73, list8 of message-id, user-id, to = null, subject): what a 0-9-1 publisher puts in the header. */
function propertiesSection(subject: string): Buffer {
  const s = Buffer.from(subject);
  const items = Buffer.concat([Buffer.from([0x40, 0x40, 0x40, 0xa1, s.length]), s]);
  return Buffer.concat([Buffer.from([0x00, 0x53, 0x73, 0xc0, items.length + 1, 4]), items]);
}

describe("AMQP 1.0 stream filters on to, subject and the other 1.0-only properties", () => {
  let dataDir: string;
  let broker: TestBroker;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "coney-amqp1-subjects-"));
    broker = await startTestBroker({ dataDir });
    const ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    broker.broker.declareQueue(ctx, "/", { name: STREAM, durable: true, autoDelete: false, exclusiveOwner: null, arguments: { "x-queue-type": "stream" } }, false);
    const c = await connect(broker.amqpPort);
    const sender = await openSender(c, `/queues/${STREAM}`);
    const sent = await sendAll(sender, [
      { body: data("s0"), subject: "order.created", to: `/queues/${STREAM}`, group_id: "g", group_sequence: 1, reply_to_group_id: "rg-a" },
      { body: data("s1"), subject: "order.shipped", group_sequence: 2, absolute_expiry_time: EXPIRY },
    ] as never);
    assert.ok(sent.every((o) => o.outcome === "accepted"));
    const conn = await amqp.connect(broker.amqpUrl);
    conn.on("error", () => undefined);
    const ch = await conn.createConfirmChannel();
    ch.sendToQueue(STREAM, Buffer.from("p2"), { messageId: "p2" });
    ch.sendToQueue(STREAM, Buffer.from("p3"), { headers: { "x-amqp-1.0-properties": propertiesSection("order.created") } });
    await ch.waitForConfirms();
    await conn.close();
    const end = await sendAll(sender, [
      { body: data("end"), subject: "order.created.shipped", to: `/queues/${STREAM}`, group_sequence: 2, reply_to_group_id: "rg-end", absolute_expiry_time: EXPIRY },
    ] as never);
    assert.equal(end[0]!.outcome, "accepted");
    await close(c);
  });
  after(async () => {
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function read(filter: Record<string, unknown>, n: number): Promise<Received[]> {
    const c = await connect(broker.amqpPort);
    try {
      const { messages } = receive(c, `/queues/${STREAM}`, n, { source: { address: `/queues/${STREAM}`, filter: { ...first, ...filter } }, credit_window: 1, autoaccept: true } as never);
      return await messages;
    } finally {
      await close(c);
    }
  }
  const bodies = async (filter: Record<string, unknown>, n: number): Promise<string[]> => (await read(filter, n)).map((r) => bodyOf(r.message).toString());

  async function checkFilters(): Promise<void> {
    assert.deepEqual(await bodies({ p: props({ subject: "&p:order.created" }) }, 3), ["s0", "p3", "end"]);
    assert.deepEqual(await bodies({ p: props({ subject: "&s:.shipped" }) }, 2), ["s1", "end"]);
    assert.deepEqual(await bodies({ p: props({ to: `/queues/${STREAM}` }) }, 2), ["s0", "end"]);
    assert.deepEqual(await bodies({ p: props({ "group-sequence": t.wrap_uint(2) }) }, 2), ["s1", "end"]);
    assert.deepEqual(await bodies({ p: props({ "reply-to-group-id": "&p:rg-" }) }, 2), ["s0", "end"]);
    assert.deepEqual(await bodies({ p: props({ "absolute-expiry-time": t.wrap_timestamp(EXPIRY.getTime()) }) }, 2), ["s1", "end"]);
    // Two fields of one filter must both match.
    assert.deepEqual(await bodies({ p: props({ subject: "&p:order.", "group-sequence": t.wrap_uint(1) }) }, 1), ["s0"]);
    // The 1.0 consumer gets the properties as published (the stream kept them), and the 0-9-1
    // message with the header has them as RabbitMQ 4 reads it; the header itself is not an annotation.
    const [s0, p3] = await read({ p: props({ subject: "&p:order.created" }) }, 2);
    assert.equal(s0!.message.subject, "order.created");
    assert.equal(s0!.message.to, `/queues/${STREAM}`);
    assert.equal(s0!.message.group_id, "g");
    assert.equal(s0!.message.group_sequence, 1);
    assert.equal(s0!.message.reply_to_group_id, "rg-a");
    assert.equal(p3!.message.subject, "order.created");
    assert.equal(p3!.message.message_annotations?.["x-amqp-1.0-properties"], undefined);
    assert.equal(p3!.message.application_properties?.["x-amqp-1.0-properties"], undefined);
  }

  it("matches to, subject, group-sequence, reply-to-group-id and absolute-expiry-time, with prefixes and suffixes", async () => {
    await checkFilters();
  });

  it("a 0-9-1 message without the header has no subject (RabbitMQ 4 converts none): even an empty prefix does not match it", async () => {
    assert.deepEqual(await bodies({ p: props({ subject: "&p:" }) }, 4), ["s0", "s1", "p3", "end"]);
  });

  it("RabbitMQ 4.2's SQL filter expression (sql-filter) selects on the same fields, with three-valued logic", async () => {
    const sql = (expression: string): Record<string, unknown> => ({ "sql-filter": t.wrap_described(expression, "amqp:sql-filter") });
    assert.deepEqual(await bodies(sql("p.subject LIKE 'order.%' AND p.group_sequence = 2"), 2), ["s1", "end"]);
    assert.deepEqual(await bodies(sql("p.subject LIKE '%created%' OR p.message_id = 'p2'"), 4), ["s0", "p2", "p3", "end"]);
    assert.deepEqual(await bodies(sql("p.reply_to_group_id IN ('rg-a', 'rg-end') AND NOT (p.to IS NULL)"), 2), ["s0", "end"]);
    // A 0-9-1 message has no subject: p.subject = … is unknown for it, so NOT of it does not pass either.
    assert.deepEqual(await bodies(sql("NOT (p.subject = 'order.created') AND p.absolute_expiry_time IS NOT NULL"), 2), ["s1", "end"]);
  });

  it("SQL and property filters exclude each other (the later one is taken); an SQL filter that does not parse is left out", async () => {
    const c = await connect(broker.amqpPort);
    try {
      const filter = { ...first, p: props({ subject: "&p:order.created" }), "sql-filter": t.wrap_described("p.group_sequence = 2", "amqp:sql-filter") };
      const { receiver, messages } = receive(c, `/queues/${STREAM}`, 2, { source: { address: `/queues/${STREAM}`, filter }, autoaccept: true } as never);
      assert.deepEqual((await messages).map((r) => bodyOf(r.message).toString()), ["s1", "end"]);
      const echoed = (receiver as unknown as { remote: { attach: { source: { filter: Record<string, unknown> } } } }).remote.attach.source.filter;
      assert.deepEqual(Object.keys(echoed).sort(), ["rabbitmq:stream-offset-spec", "sql-filter"]);
      const bad = { ...first, "sql-filter": t.wrap_described("p.subject LIKE", "amqp:sql-filter") };
      const second = receive(c, `/queues/${STREAM}`, 5, { name: "second", source: { address: `/queues/${STREAM}`, filter: bad }, autoaccept: true } as never);
      assert.deepEqual((await second.messages).map((r) => bodyOf(r.message).toString()), ["s0", "s1", "p2", "p3", "end"]);
      const echoed2 = (second.receiver as unknown as { remote: { attach: { source: { filter: Record<string, unknown> } } } }).remote.attach.source.filter;
      assert.deepEqual(Object.keys(echoed2), ["rabbitmq:stream-offset-spec"]);
    } finally {
      await close(c);
    }
  });

  it("still matches after a restart, reading every message back from the stream's files", async () => {
    await broker.close();
    broker = await startTestBroker({ dataDir });
    await checkFilters();
  });
});
