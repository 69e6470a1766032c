// ByteReader's short-string memo and OutputBuffer's ASCII loop: what comes out is always the
// string that was sent, whether it repeats, collides with another in the memo, or is not ASCII.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ByteReader } from "../../../src/amqp/codec/byte-reader.js";
import { OutputBuffer } from "../../../src/amqp/codec/output-buffer.js";

function roundTrip(strings: readonly string[]): string[] {
  const out = new OutputBuffer(16);
  for (const s of strings) out.writeShortString(s);
  const r = new ByteReader(out.take());
  return strings.map(() => r.shortstr());
}

describe("short strings", () => {
  it("repeat, collide in the memo (same length, first and last byte), and stay right", () => {
    const strings = ["amq.topic", "a.b.c.d.e", "a.x.y.z.e", "amq.topic", "", "a.b.c.d.e", "a.x.y.z.e", "", "q"];
    assert.deepEqual(roundTrip(strings), strings);
    // Twice more, so every one is served from the memo at least once.
    assert.deepEqual(roundTrip([...strings, ...strings]), [...strings, ...strings]);
  });

  it("non-ASCII, longer than the memo and the ASCII loop, and 255 bytes", () => {
    const strings = ["clé", "ключ.маршрута", "x".repeat(70), "y".repeat(255), "é".repeat(127), "clé", "ключ.маршрута"];
    assert.deepEqual(roundTrip(strings), strings);
  });

  it("refuses a string over 255 bytes whether or not it is ASCII", () => {
    assert.throws(() => new OutputBuffer().writeShortString("z".repeat(256)), /short string too long/);
    assert.throws(() => new OutputBuffer().writeShortString("é".repeat(128)), /short string too long/);
  });
});
