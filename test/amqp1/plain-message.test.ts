// plain-message.ts: a plain message (header, data sections) read by hand converts exactly as
// fromAmqp1 converts the same bytes; anything else returns null (the full decoder reads it).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Amqp10Value } from "../../src/amqp10/amqp10-value.js";
import { encodeMessage, type Amqp10Message } from "../../src/amqp10/message-sections.js";
import { fromAmqp1 } from "../../src/amqp1/message-conversion.js";
import { readPlainMessage } from "../../src/amqp1/plain-message.js";

const bool = (value: boolean): Amqp10Value => ({ type: "boolean", value });
const NUL: Amqp10Value = { type: "null" };
const bytes = (m: Amqp10Message): Buffer => Buffer.concat(encodeMessage(m));

/** The hand read and fromAmqp1 agree, field by field (the body's bytes, the rest's bytes). */
function same(payload: Buffer, start = 0): void {
  const hand = readPlainMessage(payload, start);
  assert.ok(hand !== null, `read by hand: ${payload.toString("hex")}`);
  const full = fromAmqp1(payload.subarray(start));
  assert.deepEqual(hand.properties, full.properties);
  assert.deepEqual(hand.body, full.body);
  assert.deepEqual(hand.header, full.header);
  assert.deepEqual(hand.rest, full.rest);
  assert.deepEqual([hand.subject, hand.to, [...hand.annotations]], [full.subject, full.to, [...full.annotations]]);
}

describe("AMQP 1.0 plain messages read by hand", () => {
  it("one data section, small and large", () => {
    same(bytes({ data: [Buffer.from("0123456789abcdef")] }));
    same(bytes({ data: [Buffer.alloc(70000, 9)] }));
  });

  it("several data sections stay several pieces", () => same(bytes({ data: [Buffer.from("ab"), Buffer.from("cd"), Buffer.alloc(0)] })));

  it("no section at all", () => same(Buffer.alloc(0)));

  it("a header: durable, priority, ttl, first-acquirer, delivery-count", () => {
    same(bytes({ header: [bool(true)], data: [Buffer.from("x")] }));
    same(bytes({ header: [bool(false)], data: [Buffer.from("x")] }));
    same(bytes({ header: [bool(true), { type: "ubyte", value: 7 }, { type: "uint", value: 60000 }], data: [Buffer.from("x")] }));
    same(bytes({ header: [NUL, NUL, { type: "uint", value: 0 }, bool(true), { type: "uint", value: 3 }], data: [Buffer.from("x")] }));
    same(bytes({ header: [NUL, { type: "ubyte", value: 2 }, { type: "uint", value: 200 }], data: [Buffer.from("x")] }));
  });

  it("a header as list0, and boolean 0x56", () => {
    same(Buffer.from([0x00, 0x53, 0x70, 0x45, 0x00, 0x53, 0x75, 0xa0, 1, 65]));
    same(Buffer.from([0x00, 0x53, 0x70, 0xc0, 3, 1, 0x56, 1, 0x00, 0x53, 0x75, 0xa0, 1, 65]));
  });

  it("from an offset in a frame (the transfer before it)", () => {
    const m = bytes({ header: [bool(true)], data: [Buffer.from("hello")] });
    same(Buffer.concat([Buffer.from([1, 2, 3, 4, 5]), m]), 5);
  });

  it("shares a properties object between header-less messages, and between durable ones", () => {
    const a = readPlainMessage(bytes({ data: [Buffer.from("a")] }))!;
    const b = readPlainMessage(bytes({ data: [Buffer.from("b")] }))!;
    assert.equal(a.properties, b.properties);
    const c = readPlainMessage(bytes({ header: [bool(true)], data: [Buffer.from("c")] }))!;
    const d = readPlainMessage(bytes({ header: [bool(true)], data: [Buffer.from("d")] }))!;
    assert.equal(c.properties, d.properties);
    assert.deepEqual(c.properties, { deliveryMode: 2 });
  });

  it("leaves every other message to the full decoder", () => {
    const data = [Buffer.from("x")];
    const others: Amqp10Message[] = [
      { properties: { subject: { type: "string", value: "s" } }, data },
      { messageAnnotations: [[{ type: "symbol", value: "x-a" }, { type: "string", value: "b" }]], data },
      { applicationProperties: [[{ type: "string", value: "k" }, { type: "int", value: 1 }]], data },
      { header: [bool(true), { type: "int", value: 1 }], data },
      { header: [bool(true), NUL, { type: "ulong", value: 5n }], data },
    ];
    for (const m of others) assert.equal(readPlainMessage(bytes(m)), null, JSON.stringify(m, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v)));
    const value = Buffer.from([0x00, 0x53, 0x77, 0xa1, 2, 104, 105]);
    assert.equal(readPlainMessage(value), null, "amqp-value body");
    const footer = Buffer.concat([bytes({ data }), Buffer.from([0x00, 0x53, 0x78, 0xc1, 1, 0])]);
    assert.equal(readPlainMessage(footer), null, "a footer");
  });

  it("leaves malformed bytes to the full decoder, which refuses them", () => {
    const bad = [
      Buffer.from([0x00, 0x53, 0x75, 0xa0, 9, 1, 2]), // data past the end
      Buffer.from([0x00, 0x53, 0x75]), // a cut section
      Buffer.from([0x00, 0x53, 0x70, 0xc0, 9, 1, 0x41]), // a header past the end
      Buffer.from([0x00, 0x53, 0x99, 0x45]), // an unknown section
    ];
    for (const b of bad) {
      assert.equal(readPlainMessage(b), null, b.toString("hex"));
      assert.throws(() => fromAmqp1(b), b.toString("hex"));
    }
  });
});
