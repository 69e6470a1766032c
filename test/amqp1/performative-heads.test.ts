// performative-heads.ts: transfers and dispositions read by hand give the same facts as the full
// decoder on the same bytes (and take the hand path for the common encodings, so the comparison
// is not vacuous); anything the hand reader does not take falls back to the full decoder.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { encodeAmqp10 } from "../../src/amqp10/amqp10-encoder.js";
import type { Amqp10Value } from "../../src/amqp10/amqp10-value.js";
import { dispositionFacts, HandRead, readFramePerformative, transferFacts } from "../../src/amqp1/performative-heads.js";
import { described, PERFORMATIVE, readPerformative } from "../../src/amqp1/performatives.js";

const uint = (value: number): Amqp10Value => ({ type: "uint", value });
const bool = (value: boolean): Amqp10Value => ({ type: "boolean", value });
const NUL: Amqp10Value = { type: "null" };
const bin = (n: number): Amqp10Value => ({ type: "binary", value: Buffer.alloc(n, 7) });
const body = (code: number, fields: Amqp10Value[], payload = Buffer.alloc(0)): Buffer => Buffer.concat([encodeAmqp10(described(code, fields)), payload]);

/** The same facts from the hand path and from the full decoder (the fallback's). */
function compareTransfer(b: Buffer, handPath: boolean): void {
  const hand = readFramePerformative(b);
  assert.equal(hand instanceof HandRead, handPath, `hand path for ${b.toString("hex")}`);
  const full = readPerformative(b);
  const { handle, deliveryId, settled, more, aborted, payloadAt } = transferFacts(hand);
  assert.deepEqual({ handle, deliveryId, settled, more, aborted, payloadAt }, transferFacts(full));
  // The fields on demand are the full decoder's.
  assert.deepEqual(hand.fields, full.fields);
}

describe("AMQP 1.0 transfers read by hand", () => {
  const payload = Buffer.from([0x00, 0x53, 0x75, 0xa0, 3, 1, 2, 3]);
  const cases: Array<[string, Amqp10Value[]]> = [
    ["handle 0, id 0, a tag, format 0", [uint(0), uint(0), bin(4), uint(0), bool(false), bool(false)]],
    ["a small handle and id", [uint(3), uint(200), bin(4), uint(0), bool(true)]],
    ["large ids", [uint(0x10000), uint(0xfffffffe), bin(8), uint(0), NUL, bool(true)]],
    ["a continuation without id", [uint(1), NUL, NUL, NUL, NUL, bool(true)]],
    ["aborted", [uint(1), NUL, NUL, NUL, bool(true), bool(false), NUL, NUL, bool(false), bool(true), bool(false)]],
    ["rcv-settle-mode and batchable", [uint(2), uint(9), bin(1), uint(0), bool(false), bool(false), { type: "ubyte", value: 1 }, NUL, NUL, NUL, bool(true)]],
    ["only the handle", [uint(5)]],
    ["a long tag (binary32)", [uint(0), uint(1), bin(300), uint(0)]],
  ];
  for (const [name, fields] of cases) it(name, () => compareTransfer(body(PERFORMATIVE.transfer, fields, payload), true));

  it("reads boolean 0x56, uint 0x70 for small values and a list32", () => {
    // transfer(handle 0x70 00000004, delivery-id 0x52 07, tag null, format 0x43, settled 0x56 01, more 0x56 00) as a list32.
    const items = Buffer.from([0x70, 0, 0, 0, 4, 0x52, 7, 0x40, 0x43, 0x56, 1, 0x56, 0]);
    const head = Buffer.alloc(12);
    head.set([0x00, 0x53, 0x14, 0xd0]);
    head.writeUInt32BE(4 + items.length, 4);
    head.writeUInt32BE(6, 8);
    const b = Buffer.concat([head, items, payload]);
    compareTransfer(b, true);
    const t = transferFacts(readFramePerformative(b));
    assert.equal(t.handle, 4);
    assert.equal(t.deliveryId, 7);
    assert.equal(t.settled, true);
    assert.equal(t.more, false);
  });

  it("leaves other encodings and a delivery state to the full decoder, with the same facts", () => {
    compareTransfer(body(PERFORMATIVE.transfer, [{ type: "ushort", value: 1 }, uint(1)], payload), false);
    compareTransfer(body(PERFORMATIVE.transfer, [uint(0), uint(1), bin(4), uint(0), bool(false), bool(false), NUL, described(PERFORMATIVE.accepted, [])], payload), false);
    compareTransfer(body(PERFORMATIVE.transfer, [uint(0), { type: "ulong", value: 1n }], payload), false);
  });

  it("refuses a wrong field type as the full decoder does (amqp:decode-error)", () => {
    const b = body(PERFORMATIVE.transfer, [uint(0), uint(1), bin(4), uint(0), { type: "string", value: "yes" }], payload);
    const p = readFramePerformative(b);
    assert.ok(!(p instanceof HandRead));
    assert.throws(() => transferFacts(p), /field settled: unexpected type string/);
  });

  it("does not read past the frame: a truncated list goes to the full decoder, which refuses it", () => {
    const b = body(PERFORMATIVE.transfer, [uint(0x12345678), uint(0x12345678), bin(4)]);
    const cut = b.subarray(0, b.length - 3);
    // A hand read would return facts; the full decoder throws.
    assert.throws(() => readFramePerformative(cut), /runs past the end/);
  });
});

describe("AMQP 1.0 dispositions read by hand", () => {
  const accepted = described(PERFORMATIVE.accepted, []);
  const compare = (fields: Amqp10Value[], handPath: boolean): void => {
    const b = body(PERFORMATIVE.disposition, fields);
    const hand = readFramePerformative(b);
    assert.equal(hand instanceof HandRead, handPath);
    const { role, first, last, outcome } = dispositionFacts(hand);
    assert.deepEqual({ role, first, last, outcome }, dispositionFacts(readPerformative(b)));
  };

  it("a ranged accepted disposition", () => compare([bool(true), uint(10), uint(2000), bool(true), accepted], true));
  it("one delivery, last absent", () => compare([bool(true), uint(7), NUL, bool(true), accepted], true));
  it("no state (accepted)", () => compare([bool(true), uint(0), uint(3), bool(true)], true));
  it("role sender (refused later, as the full path)", () => compare([bool(false), uint(1), NUL, bool(true), accepted], true));
  it("accepted as a list8 of no fields", () => {
    const b = Buffer.from([0x00, 0x53, 0x15, 0xc0, 13, 5, 0x41, 0x52, 1, 0x52, 4, 0x41, 0x00, 0x53, 0x24, 0xc0, 1, 0]);
    const hand = readFramePerformative(b);
    assert.ok(hand instanceof HandRead);
    assert.deepEqual(dispositionFacts(hand).outcome, dispositionFacts(readPerformative(b)).outcome);
    assert.equal(dispositionFacts(hand).last, 4);
  });
  it("other outcomes go to the full decoder", () => {
    compare([bool(true), uint(1), NUL, bool(true), described(PERFORMATIVE.released, [])], false);
    compare([bool(true), uint(1), NUL, bool(true), described(PERFORMATIVE.rejected, [])], false);
    compare([bool(true), uint(1), NUL, bool(true), described(PERFORMATIVE.modified, [bool(true)])], false);
    compare([bool(true), uint(1), NUL, bool(false), described(0x23, [uint(0), { type: "ulong", value: 0n }])], false);
  });
});
