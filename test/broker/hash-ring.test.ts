// The consistent-hash ring and the delayed exchange's due-time heap, as pure pieces.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { HashRing, hashString, POINTS_PER_WEIGHT } from "../../src/broker/exchange/hash-ring.js";
import { DueHeap } from "../../src/broker/delayed/due-heap.js";

describe("HashRing", () => {
  it("gives a key to the member owning the first point at or after its hash, wrapping around", () => {
    const ring = new HashRing<string>();
    assert.equal(ring.lookup(123), undefined, "an empty ring owns nothing");
    ring.add("a", "A", 1);
    assert.equal(ring.pointCount, POINTS_PER_WEIGHT);
    assert.equal(ring.lookup(0), "A");
    assert.equal(ring.lookup(0xffffffff), "A", "past the last point wraps to the first");
  });

  it("shares are proportional to weights, and removing a member moves only its keys", () => {
    const ring = new HashRing<string>();
    ring.add("a", "A", 1);
    ring.add("b", "B", 3);
    ring.add("c", "C", 2);
    const keys = Array.from({ length: 60_000 }, (_, i) => hashString(`k${i}`));
    const before = keys.map((h) => ring.lookup(h)!);
    const share = (who: string): number => before.filter((x) => x === who).length / keys.length;
    for (const [who, expected] of [["A", 1 / 6], ["B", 3 / 6], ["C", 2 / 6]] as const) {
      assert.ok(Math.abs(share(who) - expected) / expected < 0.1, `${who}: ${share(who)} vs ${expected}`);
    }
    ring.remove("b");
    keys.forEach((h, i) => {
      const now = ring.lookup(h)!;
      if (before[i] !== "B") assert.equal(now, before[i]);
      else assert.notEqual(now, "B");
    });
  });

  it("does not depend on the order members were added in", () => {
    const one = new HashRing<string>();
    const two = new HashRing<string>();
    for (const id of ["x", "y", "z"]) one.add(id, id, 2);
    for (const id of ["z", "x", "y"]) two.add(id, id, 2);
    for (let i = 0; i < 5000; i++) assert.equal(one.lookup(hashString(`k${i}`)), two.lookup(hashString(`k${i}`)));
  });
});

describe("DueHeap", () => {
  it("pops items in due order, ties in insertion order, and only once due", () => {
    const heap = new DueHeap<string>();
    const dues = [50, 10, 30, 10, 70, 20, 60, 40];
    dues.forEach((d, i) => heap.push(d, `${d}#${i}`));
    assert.equal(heap.nextDue, 10);
    assert.equal(heap.popDue(5), undefined, "nothing is due before its time");
    const out: string[] = [];
    for (let x = heap.popDue(45); x !== undefined; x = heap.popDue(45)) out.push(x);
    assert.deepEqual(out, ["10#1", "10#3", "20#5", "30#2", "40#7"]);
    assert.equal(heap.size, 3);
    assert.equal(heap.nextDue, 50);
    assert.deepEqual(heap.drain().sort(), ["50#0", "60#6", "70#4"]);
    assert.equal(heap.nextDue, Infinity);
  });
});
