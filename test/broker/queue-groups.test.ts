// Which queue group a new queue joins (src/broker/queue/queue-groups.ts): pure unit tests.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { QueueGroups } from "../../src/broker/queue/queue-groups.js";
import { queueGroupOf } from "../../src/broker/queue/placement.js";

describe("queue groups", () => {
  it("puts a new queue in the least loaded group, ties going to the first at or after the name's hash", () => {
    const g = new QueueGroups(4);
    const first = g.place("/", "q0", false, undefined);
    assert.equal(first, queueGroupOf("/", "q0", 4), "all empty: the hash decides");
    const placed: (number | null)[] = [first];
    for (let i = 1; i < 8; i++) placed.push(g.place("/", `q${i}`, false, undefined));
    assert.deepEqual([...g.queuesPerGroup()], [2, 2, 2, 2]);
    // One group emptied: the next queue goes there whatever its hash.
    const emptied = placed[0]!;
    g.removed(emptied);
    g.removed(emptied);
    assert.equal(g.place("/", "next", false, undefined), emptied);
  });

  it("keeps a recorded group that exists and ignores one that does not", () => {
    const g = new QueueGroups(3);
    assert.equal(g.place("/", "a", false, 2), 2);
    assert.equal(g.place("/", "b", false, 2), 2);
    const other = g.place("/", "c", false, 9);
    assert.notEqual(other, 2, "out of range: placed by load");
    assert.ok(other !== null && other < 3);
  });

  it("puts an exclusive queue in no group, and one group holds everything when G = 1", () => {
    const g = new QueueGroups(1);
    assert.equal(g.place("/", "excl", true, undefined), null);
    assert.equal(g.place("/", "x", false, undefined), 0);
    assert.equal(g.place("/", "y", false, 5), 0);
    g.removed(null);
    assert.deepEqual([...g.queuesPerGroup()], [2]);
  });

  it("refuses a number of groups out of range", () => {
    assert.throws(() => new QueueGroups(0), RangeError);
    assert.throws(() => new QueueGroups(257), RangeError);
    assert.throws(() => new QueueGroups(1.5), RangeError);
  });
});
