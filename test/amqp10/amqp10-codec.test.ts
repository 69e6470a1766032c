// The AMQP 1.0 value codec and message sections (src/amqp10), pure pieces: the spec's byte
// layouts, round trips of every type, malformed input refused.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { encodeAmqp10 } from "../../src/amqp10/amqp10-encoder.js";
import { Amqp10DecodeError, Amqp10Reader } from "../../src/amqp10/amqp10-decoder.js";
import type { Amqp10Value } from "../../src/amqp10/amqp10-value.js";
import { decodeMessage, encodeMessage } from "../../src/amqp10/message-sections.js";

const hex = (v: Amqp10Value): string => encodeAmqp10(v).toString("hex");
const roundTrip = (v: Amqp10Value): Amqp10Value => new Amqp10Reader(encodeAmqp10(v)).read();

describe("AMQP 1.0 values", () => {
  it("uses the spec's encodings, the shortest for each value", () => {
    assert.equal(hex({ type: "null" }), "40");
    assert.equal(hex({ type: "boolean", value: true }), "41");
    assert.equal(hex({ type: "uint", value: 0 }), "43");
    assert.equal(hex({ type: "uint", value: 7 }), "5207");
    assert.equal(hex({ type: "uint", value: 70000 }), "7000011170");
    assert.equal(hex({ type: "ulong", value: 0x75n }), "5375");
    assert.equal(hex({ type: "int", value: -1 }), "54ff");
    assert.equal(hex({ type: "long", value: 1n << 40n }), "810000010000000000");
    assert.equal(hex({ type: "string", value: "abc" }), "a103616263");
    assert.equal(hex({ type: "symbol", value: "x" }), "a30178");
    assert.equal(hex({ type: "list", value: [] }), "45");
    assert.equal(hex({ type: "list", value: [{ type: "null" }, { type: "boolean", value: false }] }), "c0030240" + "42");
    assert.equal(hex({ type: "described", descriptor: { type: "ulong", value: 0x75n }, value: { type: "binary", value: Buffer.from([1, 2]) } }), "005375a0020102");
  });

  it("round-trips every type, long forms included", () => {
    const long = "é".repeat(300);
    const values: Amqp10Value[] = [
      { type: "null" },
      { type: "boolean", value: false },
      { type: "ubyte", value: 255 },
      { type: "byte", value: -128 },
      { type: "ushort", value: 65535 },
      { type: "short", value: -32768 },
      { type: "uint", value: 4294967295 },
      { type: "int", value: -2147483648 },
      { type: "ulong", value: 18446744073709551615n },
      { type: "long", value: -9223372036854775808n },
      { type: "float", value: 1.5 },
      { type: "double", value: Math.PI },
      { type: "timestamp", value: 1_700_000_000_123 },
      { type: "uuid", value: Buffer.from("00112233445566778899aabbccddeeff", "hex") },
      { type: "binary", value: Buffer.alloc(1000, 7) },
      { type: "string", value: long },
      { type: "symbol", value: "amqp:properties:list" },
      { type: "list", value: Array.from({ length: 300 }, (_, i) => ({ type: "int" as const, value: i })) },
      { type: "map", value: [[{ type: "symbol", value: "k" }, { type: "string", value: "v" }]] },
      { type: "array", value: [{ type: "string", value: "a" }, { type: "string", value: "bb" }] },
      { type: "array", value: [{ type: "boolean", value: true }, { type: "boolean", value: false }] },
      { type: "described", descriptor: { type: "symbol", value: "d" }, value: { type: "int", value: 1 } },
    ];
    for (const v of values) assert.deepEqual(roundTrip(v), v, v.type);
  });

  it("refuses unknown constructors, truncated data and compounds whose size lies", () => {
    assert.throws(() => new Amqp10Reader(Buffer.from([0x99])).read(), Amqp10DecodeError);
    assert.throws(() => new Amqp10Reader(Buffer.from([0xa1, 0x05, 0x61])).read(), /past the end/);
    assert.throws(() => new Amqp10Reader(Buffer.from([0xc0, 0x02, 0x02, 0x40, 0x40])).read(), /end at byte/);
    assert.throws(() => new Amqp10Reader(Buffer.from([])).read(), /unexpected end/);
  });
});

describe("AMQP 1.0 message sections", () => {
  it("writes the body's Buffers as given, and reads data sections back as slices", () => {
    const body = Buffer.alloc(70_000, 3);
    const pieces = encodeMessage({ properties: { messageId: { type: "string", value: "m1" } }, data: [body] });
    assert.ok(pieces.includes(body), "the body is one of the pieces, not copied");
    const m = decodeMessage(Buffer.concat(pieces));
    assert.deepEqual(m.properties, { messageId: { type: "string", value: "m1" } });
    assert.equal(m.data!.length, 1);
    assert.ok(m.data![0]!.equals(body));
  });

  it("refuses what is not a message", () => {
    assert.throws(() => decodeMessage(Buffer.from([0x40])), /not a message section/);
    assert.throws(() => decodeMessage(Buffer.from([0x00, 0x53, 0x79, 0x40])), /unknown section/);
  });
});

describe("AMQP 1.0 arrays of compound values", () => {
  it("writes maps in an array in one (32-bit) form, so maps of any size share the constructor", () => {
    const small: Amqp10Value = { type: "map", value: [[{ type: "symbol", value: "k" }, { type: "string", value: "v" }]] };
    const large: Amqp10Value = { type: "map", value: [[{ type: "symbol", value: "k" }, { type: "string", value: "x".repeat(300) }]] };
    const array: Amqp10Value = { type: "array", value: [small, large, { type: "map", value: [] }] };
    assert.deepEqual(roundTrip(array), array);
    const lists: Amqp10Value = { type: "array", value: [{ type: "list", value: [] }, { type: "list", value: [{ type: "uint", value: 1 }] }] };
    assert.deepEqual(roundTrip(lists), lists);
  });
});
