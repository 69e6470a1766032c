// A stream keeps a message published over AMQP 1.0 whole, as RabbitMQ 4 does (src/amqp10/
// stored-original.ts): an AMQP 1.0 reader of the stream gets the sender's header, properties,
// application-properties of every 1.0 type (ubyte, symbol, timestamp, uuid …), every body section
// (several data sections, an amqp-value) and the footer byte for byte, the sender's
// message-annotations beside x-routing-key / x-exchange / x-stream-offset, no delivery-annotations —
// from the stream's newest chunk in memory and, after a restart, from its files. A native client
// gets the stored 1.0 message; amqplib gets RabbitMQ 4's conversion, the same from memory and disk.
// A record written the previous way (the 0-9-1 model of the message, what older builds stored)
// still reads and filters. Property and SQL filters match the records kept whole.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp, { type ConsumeMessage } from "amqplib";
import rhea from "rhea";
import { Offset } from "rabbitmq-stream-js-client";
import type { Message as NativeMessage } from "rabbitmq-stream-js-client/dist/publisher.js";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { close, connect, openSender, receive } from "../helpers/rhea-client.js";
import { collector, withTimeout } from "../helpers/wait.js";
import { receivedPayloads } from "../helpers/rhea-raw.js";
import { streamClient } from "../stream/stream-helpers.js";
import { encodeAmqp10 } from "../../src/amqp10/amqp10-encoder.js";
import { decodeMessage } from "../../src/amqp10/message-sections.js";
import { str, sym, textOf, type Amqp10Value } from "../../src/amqp10/amqp10-value.js";
import { fromAmqp1 } from "../../src/amqp1/message-conversion.js";
import { createMessage, type Queue, type StreamLog } from "../../src/broker/index.js";

const STREAM = "kept-whole";
const OLD = "kept-the-old-way";
const NATIVE = "kept-for-native";
const t = rhea.types;
const first = { "rabbitmq:stream-offset-spec": t.wrap_described("first", "rabbitmq:stream-offset-spec") };

const section = (code: number, value: Amqp10Value): Buffer => encodeAmqp10({ type: "described", descriptor: { type: "ulong", value: BigInt(code) }, value });
const map = (entries: Array<readonly [Amqp10Value, Amqp10Value]>): Amqp10Value => ({ type: "map", value: entries });
const NULL: Amqp10Value = { type: "null" };
const UUID = Buffer.from("0123456789abcdef0123456789abcdef", "hex");
const CREATED = 1_700_000_000_123;

/** A message with every section, written by hand so its bytes are known. */
function fullMessage(): { payload: Buffer; header: Buffer; rest: Buffer } {
  const header = section(0x70, { type: "list", value: [{ type: "boolean", value: true }, { type: "ubyte", value: 5 }] });
  const deliveryAnnotations = section(0x71, map([[sym("x-opt-hop"), str("one")]]));
  const annotations = section(0x72, map([[sym("x-opt-origin"), str("sensor-4")], [sym("x-opt-n"), { type: "ubyte", value: 3 }]]));
  const properties = section(0x73, {
    type: "list",
    value: [{ type: "uuid", value: UUID }, NULL, str("/queues/elsewhere"), str("reading"), NULL, NULL, sym("text/plain"), NULL, NULL, { type: "timestamp", value: CREATED }, str("g1"), { type: "uint", value: 7 }, str("rg")],
  });
  const applicationProperties = section(
    0x74,
    map([
      [str("u"), { type: "ubyte", value: 7 }],
      [str("s"), sym("sym")],
      [str("ts"), { type: "timestamp", value: CREATED }],
      [str("id"), { type: "uuid", value: UUID }],
      [str("big"), { type: "ulong", value: 1n << 40n }],
      [str("b"), { type: "byte", value: -3 }],
    ]),
  );
  const data1 = section(0x75, { type: "binary", value: Buffer.from("part-1|") });
  const data2 = section(0x75, { type: "binary", value: Buffer.from("part-2") });
  const footer = section(0x78, map([[sym("x-opt-digest"), str("f00")]]));
  const rest = Buffer.concat([properties, applicationProperties, data1, data2, footer]);
  return { payload: Buffer.concat([header, deliveryAnnotations, annotations, rest]), header, rest };
}

/** No header, no annotations: properties, application-properties, an amqp-value body and a footer. */
function valueMessage(subject: string): Buffer {
  return Buffer.concat([
    section(0x73, { type: "list", value: [NULL, NULL, NULL, str(subject)] }),
    section(0x74, map([[str("k"), sym("v")]])),
    section(0x77, map([[str("nested"), { type: "list", value: [str("value"), { type: "int", value: 1 }] }]])),
    section(0x78, map([[sym("x-opt-digest"), str("f01")]])),
  ]);
}

/**
 * A message of the types rabbitmq-stream-js-client decodes (it reads no footer, uuid, timestamp or
 * byte): header, annotations, properties, application-properties, one data section.
 */
function nativeReadable(): Buffer {
  return Buffer.concat([
    section(0x70, { type: "list", value: [{ type: "boolean", value: true }, { type: "ubyte", value: 5 }] }),
    section(0x72, map([[sym("x-opt-origin"), str("sensor-4")], [sym("x-opt-n"), { type: "ubyte", value: 3 }]])),
    section(0x73, { type: "list", value: [str("n-1"), NULL, str("/queues/elsewhere"), str("reading")] }),
    section(0x74, map([[str("u"), { type: "ubyte", value: 7 }], [str("s"), sym("sym")], [str("n"), { type: "uint", value: 70_000 }]])),
    section(0x75, { type: "binary", value: Buffer.from("for the native client") }),
  ]);
}

/** Publishes pre-encoded payloads (message format 0, sent as they are) and waits for each to be accepted. */
async function publishRaw(port: number, address: string, payloads: readonly Buffer[]): Promise<void> {
  const c = await connect(port);
  const s = await openSender(c, address);
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      let accepted = 0;
      s.on("accepted", () => ++accepted === payloads.length && resolve());
      s.on("rejected", () => reject(new Error("rejected")));
      s.on("released", () => reject(new Error("released")));
      for (const p of payloads) s.send(p as never, undefined, 0);
    }),
    5000,
    "the raw publishes' outcomes",
  );
  await close(c);
}

/** Reads `n` deliveries from a stream over AMQP 1.0 and returns their payloads as received (rhea's decoder sees them first). */
async function readRaw(port: number, stream: string, n: number, filter: Record<string, unknown> = {}): Promise<Buffer[]> {
  return receivedPayloads(async () => {
    const c = await connect(port);
    const { messages } = receive(c, `/queues/${stream}`, n, { source: { address: `/queues/${stream}`, filter: { ...first, ...filter } }, autoaccept: true } as never);
    await messages;
    await close(c);
  });
}

const annotationsOf = (raw: Buffer): Array<[string, Amqp10Value]> => (decodeMessage(raw).messageAnnotations ?? []).map(([k, v]) => [textOf(k)!, v]);

function checkKeptWhole(raws: Buffer[], full: { header: Buffer; rest: Buffer }, value: Buffer): void {
  const [a, b] = raws.map((r) => decodeMessage(r));
  // The sender's header and everything from its properties on, byte for byte.
  assert.deepEqual(a!.raw!.header, full.header);
  assert.deepEqual(a!.raw!.rest, full.rest);
  assert.deepEqual(b!.raw!.header, null);
  assert.deepEqual(b!.raw!.rest, value);
  // The sender's annotations, typed as sent, after RabbitMQ 4's x-routing-key and x-exchange; the offset last.
  assert.deepEqual(annotationsOf(raws[0]!), [
    ["x-routing-key", str(STREAM)],
    ["x-exchange", str("")],
    ["x-opt-origin", str("sensor-4")],
    ["x-opt-n", { type: "ubyte", value: 3 }],
    ["x-stream-offset", { type: "long", value: 0n }],
  ]);
  assert.deepEqual(annotationsOf(raws[1]!), [
    ["x-routing-key", str(STREAM)],
    ["x-exchange", str("")],
    ["x-stream-offset", { type: "long", value: 1n }],
  ]);
  // Delivery-annotations are for one hop: not kept.
  assert.ok(!raws[0]!.includes(Buffer.from("x-opt-hop")));
}


/** Property and SQL filters on a stream of [full, amqp-value, full]: each passes offsets 0 and 2 only. */
async function checkFilters(port: number, stream: string): Promise<void> {
  const props = { p: t.wrap_described(t.wrap_map({ subject: "&p:read" }, t.wrap_symbol), "amqp:properties-filter") };
  const app = { a: t.wrap_described(t.wrap_map({ u: 7, s: "sym" }), "amqp:application-properties-filter") };
  const sql = { "sql-filter": t.wrap_described("a.u = 7 AND p.subject = 'reading' AND p.group_sequence = 7", "amqp:sql-filter") };
  for (const filter of [props, app, sql]) {
    const raws = await readRaw(port, stream, 2, filter);
    assert.deepEqual(
      raws.map((r) => annotationsOf(r).find(([k]) => k === "x-stream-offset")![1]),
      [
        { type: "long", value: 0n },
        { type: "long", value: 2n },
      ],
    );
  }
}

/** Checks what a native client reads of nativeReadable() published to `stream`. */
async function checkNative(b: TestBroker, stream: string): Promise<void> {
  const client = await streamClient(b as TestBroker & { streamPort: number });
  try {
    const got = collector<NativeMessage>(1);
    await client.declareConsumer({ stream, offset: Offset.first() }, (m) => got.push(m));
    const [a] = await withTimeout(got.done, 5000, "a native delivery");
    assert.equal(a!.content.toString(), "for the native client");
    assert.equal(a!.messageHeader?.durable, true);
    assert.equal(a!.messageHeader?.priority, 5);
    assert.equal(a!.messageAnnotations?.["x-routing-key"], stream);
    assert.equal(a!.messageAnnotations?.["x-exchange"], "");
    assert.equal(a!.messageAnnotations?.["x-opt-origin"], "sensor-4");
    assert.equal(a!.messageAnnotations?.["x-opt-n"], 3);
    assert.equal(a!.messageProperties?.messageId, "n-1");
    assert.equal(a!.messageProperties?.to, "/queues/elsewhere");
    assert.equal(a!.messageProperties?.subject, "reading");
    assert.deepEqual(a!.applicationProperties, { u: 7, s: "sym", n: 70_000 });
  } finally {
    await client.close();
  }
}

/** Reads `n` messages of a stream with amqplib from its first offset. */
async function readAmqp091(url: string, stream: string, n: number): Promise<ConsumeMessage[]> {
  const conn = await amqp.connect(url);
  conn.on("error", () => undefined);
  try {
    const ch = await conn.createChannel();
    await ch.prefetch(10);
    const got = collector<ConsumeMessage>(n);
    await ch.consume(stream, (m) => m && (got.push(m), ch.ack(m)), { arguments: { "x-stream-offset": "first" } });
    return await withTimeout(got.done, 5000, `${n} 0-9-1 deliveries from ${stream}`);
  } finally {
    await conn.close();
  }
}

describe("a stream keeps an AMQP 1.0 message whole, as RabbitMQ 4", () => {
  let broker: TestBroker;
  let dataDir: string;
  const full = fullMessage();
  const value = valueMessage("value");
  const sentinel = fullMessage().payload;
  /** What amqplib read before the restart. */
  let fromMemory: ConsumeMessage[] = [];

  const start = async (): Promise<void> => {
    broker = await startTestBroker({ dataDir, streamPort: 0 });
  };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "coney-amqp1-stream-original-"));
    await start();
    const ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    for (const name of [STREAM, OLD, NATIVE]) broker.broker.declareQueue(ctx, "/", { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: { "x-queue-type": "stream" } }, false);
    await publishRaw(broker.amqpPort, `/queues/${STREAM}`, [full.payload, value, sentinel]);
    await publishRaw(broker.amqpPort, `/queues/${NATIVE}`, [nativeReadable()]);
    // A record as the previous build wrote a 1.0 message: its 0-9-1 model (to and subject in the
    // x-amqp-1.0-properties header), without the message kept whole.
    const old = fromAmqp1(full.payload);
    const q = broker.broker.vhosts.get("/")!.queues.get(OLD) as Queue;
    q.enqueue(createMessage("", OLD, old.properties, null, old.body, Date.now()));
    await withTimeout(
      (async () => {
        while (q.messageCount < 1) await new Promise((r) => setImmediate(r));
      })(),
      5000,
      "the old-layout record committed",
    );
  });
  after(async () => {
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("an AMQP 1.0 reader gets every section as sent", async () => {
    checkKeptWhole(await readRaw(broker.amqpPort, STREAM, 2), full, value);
  });

  it("amqplib gets RabbitMQ 4's conversion: application-properties and x- annotations as headers, properties as basic properties", async () => {
    fromMemory = await readAmqp091(broker.amqpUrl, STREAM, 2);
    const [a, b] = fromMemory;
    assert.equal(a!.content.toString(), "part-1|part-2");
    const p = a!.properties;
    assert.equal(p.deliveryMode, 2);
    assert.equal(p.priority, 5);
    assert.equal(p.messageId, "urn:uuid:01234567-89ab-cdef-0123-456789abcdef");
    assert.equal(p.contentType, "text/plain");
    assert.equal(p.appId, "g1");
    assert.equal(p.timestamp, Math.floor(CREATED / 1000));
    const h = p.headers!;
    assert.equal(h["u"], 7);
    assert.equal(h["s"], "sym");
    assert.deepEqual(h["id"], UUID);
    assert.equal(h["b"], -3);
    assert.equal(h["x-opt-origin"], "sensor-4");
    assert.equal(h["x-opt-n"], 3);
    assert.equal(h["x-stream-offset"], 0);
    // to and subject have no place in the model: the properties section rides in this header (as from a queue).
    assert.ok(Buffer.isBuffer(h["x-amqp-1.0-properties"]));
    assert.equal(h["x-exchange"], undefined, "RabbitMQ's own annotations are not headers");
    assert.equal(b!.properties.type, "amqp-1.0");
    // The amqp-value body and the footer, encoded (RabbitMQ 4's amqp_encoded_body_and_footer).
    assert.deepEqual(b!.content, value.subarray(value.indexOf(Buffer.from([0x00, 0x53, 0x77]))));
  });

  it("a native stream client gets the stored 1.0 message", async () => {
    await checkNative(broker, NATIVE);
  });

  it("filters match the kept sections: property filters and SQL", async () => {
    await checkFilters(broker.amqpPort, STREAM);
  });

  it("the stream's files hold the sender's bare message and footer as sent", () => {
    const dir = join(dataDir, "streams");
    const segments = readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith(".segment"));
    const bytes = Buffer.concat(segments.map((f) => readFileSync(join(dir, String(f)))));
    assert.ok(bytes.includes(Buffer.concat([full.header])), "the header");
    assert.ok(bytes.includes(full.rest), "properties to footer");
    assert.ok(bytes.includes(value), "the amqp-value message");
  });

  it("after a restart (read from the files): the same sections for 1.0 readers and native clients, the same filtering, the same conversion for amqplib", async () => {
    await broker.close();
    await start();
    checkKeptWhole(await readRaw(broker.amqpPort, STREAM, 2), full, value);
    await checkFilters(broker.amqpPort, STREAM);
    await checkNative(broker, NATIVE);
    const fromDisk = await readAmqp091(broker.amqpUrl, STREAM, 2);
    assert.deepEqual(
      fromDisk.map((m) => [m.content, m.properties]),
      fromMemory.map((m) => [m.content, m.properties]),
    );
  });

  it("a record of the previous layout (the 0-9-1 model) still reads and filters, after the restart", async () => {
    const filter = { p: t.wrap_described(t.wrap_map({ subject: "reading", to: "/queues/elsewhere" }, t.wrap_symbol), "amqp:properties-filter") };
    const [raw] = await readRaw(broker.amqpPort, OLD, 1, filter);
    const m = decodeMessage(raw!);
    assert.equal(textOf(m.properties?.subject), "reading");
    assert.equal(textOf(m.properties?.to), "/queues/elsewhere");
    // Converted from the model, as before: application-properties in the model's types, the data sections joined.
    assert.equal(annotationsOf(raw!)[0]![0], "x-exchange");
    assert.deepEqual(m.data, [Buffer.from("part-1|part-2")]);
    const [o] = await readAmqp091(broker.amqpUrl, OLD, 1);
    assert.equal(o!.content.toString(), "part-1|part-2");
    assert.equal(o!.properties.headers?.["u"], 7);
    assert.ok(Buffer.isBuffer(o!.properties.headers?.["x-amqp-1.0-properties"]));
  });
});

describe("a stream kept in memory (no store) keeps an AMQP 1.0 message whole too", () => {
  let broker: TestBroker;
  const full = fullMessage();
  const value = valueMessage("value");

  before(async () => {
    broker = await startTestBroker({ inMemory: true, streamPort: 0 });
    const ctx = { permissions: broker.broker.checkerFor("guest"), owner: null };
    for (const name of [STREAM, NATIVE]) broker.broker.declareQueue(ctx, "/", { name, durable: true, autoDelete: false, exclusiveOwner: null, arguments: { "x-queue-type": "stream" } }, false);
    await publishRaw(broker.amqpPort, `/queues/${STREAM}`, [full.payload, value, fullMessage().payload]);
    await publishRaw(broker.amqpPort, `/queues/${NATIVE}`, [nativeReadable()]);
  });
  after(async () => {
    await broker.close();
  });

  it("1.0 readers get every section as sent, filters match them, native clients get the 1.0 message", async () => {
    const q = broker.broker.vhosts.get("/")!.queues.get(STREAM) as Queue & { stream: StreamLog };
    assert.equal(q.stream.chunkCursor(0), null, "a log that keeps no chunks (in memory)");
    checkKeptWhole(await readRaw(broker.amqpPort, STREAM, 2), full, value);
    await checkFilters(broker.amqpPort, STREAM);
    await checkNative(broker, NATIVE);
  });
});
