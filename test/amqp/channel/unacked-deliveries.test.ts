// A channel's unacked deliveries (src/amqp/channel/unacked-deliveries.ts) behave as the ordered
// Map they replaced, whatever the order of adds, single and multiple settlements: checked against
// a Map model over seeded random operations, plus the cases that grow, compact and re-enter.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { UnackedDeliveries, type DeliveryConsumer } from "../../../src/amqp/channel/unacked-deliveries.js";
import type { Queue, QueueEntry } from "../../../src/broker/index.js";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

// Stand-ins for the values it stores and hands back unchanged (it calls nothing on them).
const queueA = { name: "a" } as unknown as Queue;
const queueB = { name: "b" } as unknown as Queue;
const entryFor = (tag: number): QueueEntry => ({ seq: tag }) as unknown as QueueEntry;

function snapshot(u: UnackedDeliveries): number[] {
  return [...u].map(([tag, d]) => {
    assert.equal((d.entry as unknown as { seq: number }).seq, tag);
    return tag;
  });
}

describe("UnackedDeliveries", () => {
  it("matches an ordered Map under random adds, single and multiple settlements", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const r = rng(seed);
      const u = new UnackedDeliveries();
      const model = new Map<number, number>();
      let nextTag = 1;
      for (let step = 0; step < 3000; step++) {
        const x = r();
        if (x < 0.55) {
          // Tags grow, with gaps (no-ack deliveries take tags too).
          nextTag += r() < 0.2 ? 1 + Math.floor(r() * 5) : 1;
          u.add(nextTag, r() < 0.5 ? queueA : queueB, entryFor(nextTag), null);
          model.set(nextTag, nextTag);
          nextTag++;
        } else if (x < 0.8) {
          const tag = 1 + Math.floor(r() * nextTag);
          const seen: number[] = [];
          const had = model.has(tag);
          assert.equal(u.has(tag), had);
          assert.equal(u.take(tag, (_q, e) => seen.push((e as unknown as { seq: number }).seq)), had);
          assert.deepEqual(seen, had ? [tag] : []);
          model.delete(tag);
        } else {
          const tag = r() < 0.05 ? 0 : 1 + Math.floor(r() * nextTag);
          const expected = [...model.keys()].filter((t) => tag === 0 || t <= tag);
          assert.equal(u.countUpTo(tag), expected.length);
          const seen: number[] = [];
          assert.equal(u.takeUpTo(tag, (_q, e) => seen.push((e as unknown as { seq: number }).seq)), expected.length);
          assert.deepEqual(seen, expected);
          for (const t of expected) model.delete(t);
        }
        assert.equal(u.size, model.size);
      }
      assert.deepEqual(snapshot(u), [...model.keys()]);
    }
  });

  it("keeps memory proportional to what is unacked when an old delivery stays unacked", () => {
    const u = new UnackedDeliveries();
    u.add(1, queueA, entryFor(1), null);
    for (let tag = 2; tag < 100_000; tag++) {
      u.add(tag, queueA, entryFor(tag), null);
      assert.ok(u.take(tag, () => {}));
    }
    assert.equal(u.size, 1);
    assert.deepEqual(snapshot(u), [1]);
    // The ring was compacted: its arrays did not grow with the 100,000 settled deliveries.
    const capacity = (u as unknown as { tags: number[] }).tags.length;
    assert.ok(capacity <= 256, `capacity ${capacity}`);
  });

  it("lets a settlement's visit deliver more (the ring grows mid-settlement)", () => {
    const u = new UnackedDeliveries();
    for (let tag = 1; tag <= 16; tag++) u.add(tag, queueA, entryFor(tag), null);
    let next = 17;
    const visited: number[] = [];
    const n = u.takeUpTo(16, (_q, e) => {
      visited.push((e as unknown as { seq: number }).seq);
      // Each settlement frees prefetch: the queue hands out two more at once.
      u.add(next, queueA, entryFor(next), null);
      next++;
      u.add(next, queueA, entryFor(next), null);
      next++;
    });
    assert.equal(n, 16);
    assert.deepEqual(visited, Array.from({ length: 16 }, (_, i) => i + 1));
    assert.deepEqual(snapshot(u), Array.from({ length: 32 }, (_, i) => i + 17));
  });

  it("counts each consumer's deliveries back down through the visit", () => {
    const u = new UnackedDeliveries();
    const consumer: DeliveryConsumer = { unackedCount: 3 };
    for (let tag = 1; tag <= 3; tag++) u.add(tag, queueA, entryFor(tag), consumer);
    u.takeUpTo(0, (_q, _e, c) => c && c.unackedCount--);
    assert.equal(consumer.unackedCount, 0);
    assert.equal(u.size, 0);
    u.clear();
    assert.deepEqual(snapshot(u), []);
  });
});
