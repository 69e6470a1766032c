// The stream record layouts (src/amqp10/stored-original.ts): a record kept whole (annotations led by
// x-routing-key, x-exchange) reads back as RabbitMQ 4's conversion with its parts as slices of the
// record; the model form (led by x-exchange, what amqp10FromDomain writes and older builds wrote
// for every message) and anything else read as before. withAnnotation adds one annotation to a
// message's parts, growing map8 into map32 when it must.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { encodeAmqp10 } from "../../src/amqp10/amqp10-encoder.js";
import { str, sym, type Amqp10Value } from "../../src/amqp10/amqp10-value.js";
import { amqp10FromDomain } from "../../src/amqp10/message-mapping.js";
import { decodeMessage } from "../../src/amqp10/message-sections.js";
import { readStreamRecord, withAnnotation } from "../../src/amqp10/stored-original.js";

const section = (code: number, value: Amqp10Value): Buffer => encodeAmqp10({ type: "described", descriptor: { type: "ulong", value: BigInt(code) }, value });
const annotations = (entries: Array<readonly [Amqp10Value, Amqp10Value]>): Buffer => section(0x72, { type: "map", value: entries });
const header = section(0x70, { type: "list", value: [{ type: "boolean", value: true }] });
const rest = Buffer.concat([section(0x73, { type: "list", value: [str("id-1"), { type: "null" }, str("/queues/x"), str("subj")] }), section(0x74, { type: "map", value: [[str("u"), { type: "ubyte", value: 7 }]] }), section(0x75, { type: "binary", value: Buffer.from("a") }), section(0x75, { type: "binary", value: Buffer.from("b") })]);

describe("stream records kept whole", () => {
  it("reads a record kept whole as RabbitMQ 4 converts it, its parts slices of the record", () => {
    const ann = annotations([
      [sym("x-routing-key"), str("rk")],
      [sym("x-exchange"), str("ex")],
      [sym("x-opt-a"), str("v")],
    ]);
    const record = Buffer.concat([header, ann, rest]);
    const r = readStreamRecord(record);
    assert.deepEqual(r.address, { exchange: "ex", routingKey: "rk" });
    assert.deepEqual(r.original, [header, ann, rest]);
    assert.equal(r.original![2]!.buffer, record.buffer, "not copied");
    assert.equal(r.properties.deliveryMode, 2);
    assert.equal(r.properties.messageId, "id-1");
    assert.equal(r.properties.headers?.["u"], 7);
    assert.equal(r.properties.headers?.["x-opt-a"], "v");
    assert.ok(Buffer.isBuffer(r.properties.headers?.["x-amqp-1.0-properties"]), "to and subject kept in the header");
    assert.deepEqual(r.body, [Buffer.from("a"), Buffer.from("b")]);
  });

  it("reads the model form (and a record of neither layout) as before, with no parts", () => {
    const model = Buffer.concat(amqp10FromDomain({ messageId: "m", type: "t", deliveryMode: 2 }, [Buffer.from("body")], { exchange: "ex", routingKey: "rk" }));
    const r = readStreamRecord(model);
    assert.equal(r.original, undefined);
    assert.deepEqual(r.address, { exchange: "ex", routingKey: "rk" });
    assert.equal(r.properties.type, "t");
    assert.equal(r.properties.deliveryMode, 2);
    const plain = readStreamRecord(Buffer.concat([annotations([[sym("x-opt-a"), str("v")]]), rest]));
    assert.equal(plain.original, undefined);
    // Something between the annotations and the bare message (delivery-annotations): not taken as kept whole.
    const between = Buffer.concat([annotations([[sym("x-routing-key"), str("rk")], [sym("x-exchange"), str("ex")]]), section(0x71, { type: "map", value: [] }), rest]);
    assert.equal(readStreamRecord(between).original, undefined);
  });

  it("withAnnotation appends an annotation, in map8 while it fits and map32 beyond", () => {
    const offset: Amqp10Value = { type: "long", value: 42n };
    const small = withAnnotation([header, annotations([[sym("x-exchange"), str("ex")]]), rest], sym("x-stream-offset"), offset);
    assert.equal(small[0], header);
    assert.equal(small[2], rest);
    assert.equal(small[1]![3], 0xc1);
    assert.deepEqual(decodeMessage(Buffer.concat(small)).messageAnnotations, [
      [sym("x-exchange"), str("ex")],
      [sym("x-stream-offset"), offset],
    ]);
    const long = str("x".repeat(240));
    const big = withAnnotation([annotations([[sym("x-exchange"), long]]), rest], sym("x-stream-offset"), offset);
    assert.equal(big[0]![3], 0xd1);
    assert.deepEqual(decodeMessage(Buffer.concat(big)).messageAnnotations, [
      [sym("x-exchange"), long],
      [sym("x-stream-offset"), offset],
    ]);
    const already32 = withAnnotation(big, sym("x-more"), str("m"));
    assert.equal(decodeMessage(Buffer.concat(already32)).messageAnnotations!.length, 3);
    // No annotations part: one is put after the header.
    const none = withAnnotation([header, rest], sym("x-stream-offset"), offset);
    assert.equal(none.length, 3);
    assert.deepEqual(decodeMessage(Buffer.concat(none)).messageAnnotations, [[sym("x-stream-offset"), offset]]);
  });
});
