// The served consumer's held deliveries (src/node-link/held-deliveries.ts): ids find their entry
// once, slots are reused with a new generation (a settled or stale id finds nothing), memory stays
// bounded by the most ever held at once, and every id is an exact integer.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HeldDeliveries, MAX_HELD } from "../../src/node-link/held-deliveries.js";

describe("held deliveries", () => {
  it("settles each id once, in any order", () => {
    const h = new HeldDeliveries<string>();
    const ids = ["a", "b", "c", "d"].map((e) => h.add(e));
    assert.equal(new Set(ids).size, 4);
    assert.equal(h.size, 4);
    assert.equal(h.take(ids[2]!), "c");
    assert.equal(h.take(ids[2]!), undefined, "settled twice: nothing the second time");
    assert.equal(h.take(ids[0]!), "a");
    assert.equal(h.take(ids[3]!), "d");
    assert.equal(h.take(ids[1]!), "b");
    assert.equal(h.size, 0);
  });

  it("reuses a settled slot under a new id: the old id no longer settles its successor", () => {
    const h = new HeldDeliveries<string>();
    const first = h.add("x");
    assert.equal(h.take(first), "x");
    const second = h.add("y");
    assert.notEqual(second, first);
    assert.equal(second % MAX_HELD, first % MAX_HELD, "the same slot");
    assert.equal(h.take(first), undefined, "a stale id finds nothing");
    assert.equal(h.take(second), "y");
  });

  it("finds nothing for ids it never gave: out of range, negative, fractional, NaN", () => {
    const h = new HeldDeliveries<string>();
    h.add("x");
    for (const id of [1, 7, MAX_HELD * 3 + 5, -1, 0.5, Number.NaN, 2 ** 60]) assert.equal(h.take(id), undefined, String(id));
    assert.equal(h.size, 1);
  });

  it("keeps memory bounded by the most held at once while one entry stays held for long", () => {
    const h = new HeldDeliveries<number>();
    const stuck = h.add(-1);
    const window: number[] = [];
    for (let i = 0; i < 100_000; i++) {
      window.push(h.add(i));
      if (window.length === 10) {
        // Settled out of order: the newest first.
        while (window.length > 0) assert.equal(typeof h.take(window.pop()!), "number");
      }
    }
    assert.equal(h.size, 1);
    const slots = (h as unknown as { slots: unknown[] }).slots.length;
    assert.ok(slots <= 11, `slots: ${slots}`);
    assert.equal(h.take(stuck), -1);
  });

  it("gives exact integer ids, and takeAll returns everything held once", () => {
    const h = new HeldDeliveries<number>();
    for (let round = 0; round < 1000; round++) assert.equal(h.take(h.add(round)), round);
    const id = h.add(1);
    assert.ok(Number.isSafeInteger(id));
    h.add(2);
    h.add(3);
    assert.deepEqual(h.takeAll().sort(), [1, 2, 3]);
    assert.equal(h.size, 0);
    assert.equal(h.take(id), undefined, "taken by takeAll");
  });
});
