// The group table of `coney --workers N` (src/workers/group-table.ts, docs/CLUSTERING.md "One machine"):
// spreading G groups evenly, a dead worker's groups to the live ones under new epochs, and back at a rebalance.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { assign, groupsOf, initialTable, planQueueRebalance, planRebalance, restartedTable, revoke, spread, withoutWorker, type GroupTable } from "../../src/workers/group-table.js";

const counts = (t: GroupTable, workers: number[]): number[] => workers.map((w) => groupsOf(t, w).length);
const epochs = (t: GroupTable): number[] => t.groups.map((s) => s.epoch);

describe("group table", () => {
  it("spreads G groups evenly over the workers, each at epoch 1", () => {
    const t = initialTable(16, [0, 1]);
    assert.deepEqual(counts(t, [0, 1]), [8, 8]);
    assert.deepEqual(epochs(t), Array(16).fill(1));
    assert.equal(t.version, 1);
    const uneven = initialTable(7, [0, 1, 2]);
    assert.deepEqual(counts(uneven, [0, 1, 2]), [3, 2, 2]);
    assert.throws(() => initialTable(0, [0]), /not a positive integer/);
  });

  it("gives a dead worker's groups to the live ones with a new epoch, and leaves the others alone", () => {
    const t = initialTable(16, [0, 1, 2, 3]);
    const lost = groupsOf(t, 1);
    const after = withoutWorker(t, 1, [0, 1, 2, 3]);
    assert.equal(after.version, t.version + 1);
    assert.deepEqual(groupsOf(after, 1), []);
    for (const g of lost) {
      assert.notEqual(after.groups[g]!.worker, null);
      assert.equal(after.groups[g]!.epoch, t.groups[g]!.epoch + 1, `g${g} gets a new epoch`);
    }
    for (let g = 0; g < 16; g++) if (!lost.includes(g)) assert.deepEqual(after.groups[g], t.groups[g], `g${g} untouched`);
    const c = counts(after, [0, 2, 3]);
    assert.ok(Math.max(...c) - Math.min(...c) <= 1, `even over the live workers: ${c.join(",")}`);
  });

  it("leaves groups without a leader while no worker lives, and assigns them when one is back", () => {
    const t = withoutWorker(initialTable(4, [0]), 0, [0]);
    assert.deepEqual(t.groups.map((s) => s.worker), [null, null, null, null]);
    assert.deepEqual(epochs(t), [1, 1, 1, 1]);
    const back = spread(t, [0]);
    assert.deepEqual(groupsOf(back, 0), [0, 1, 2, 3]);
    assert.deepEqual(epochs(back), [2, 2, 2, 2]);
  });

  it("rebalances a restarted worker's share back: revoke first, then assign under a new epoch", () => {
    const t = withoutWorker(initialTable(16, [0, 1]), 1, [0, 1]);
    assert.deepEqual(counts(t, [0, 1]), [16, 0]);
    const moves = planRebalance(t, [0, 1]);
    assert.equal(moves.length, 8);
    assert.ok(moves.every((m) => m.from === 0 && m.to === 1));
    const revoked = revoke(t, moves);
    for (const m of moves) assert.deepEqual(revoked.groups[m.group], { worker: null, epoch: t.groups[m.group]!.epoch });
    const assigned = assign(revoked, moves);
    assert.deepEqual(counts(assigned, [0, 1]), [8, 8]);
    for (const m of moves) assert.equal(assigned.groups[m.group]!.epoch, t.groups[m.group]!.epoch + 1);
    assert.equal(assigned.version, t.version + 2);
    assert.deepEqual(planRebalance(assigned, [0, 1]), [], "nothing more to move");
    assert.throws(() => assign(t, moves), /revoke it first/);
    assert.throws(() => revoke(assigned, moves), /is led by 1, not 0/);
  });

  it("moves nothing when the spread differs by one at most", () => {
    assert.deepEqual(planRebalance(initialTable(7, [0, 1, 2]), [0, 1, 2]), []);
  });

  it("a restarted primary raises every epoch and spreads over the workers it starts now", () => {
    const saved = withoutWorker(initialTable(6, [0, 1, 2]), 2, [0, 1, 2]);
    const t = restartedTable(saved, [0, 1]);
    assert.deepEqual(counts(t, [0, 1]), [3, 3]);
    t.groups.forEach((s, g) => assert.equal(s.epoch, saved.groups[g]!.epoch + 1, `g${g}`));
    assert.ok(t.version > saved.version);
  });

  it("evens out queue leaders (not groups) at an operator's rebalance, each move narrowing the spread", () => {
    const t = initialTable(8, [0, 1]); // w0: g0 g2 g4 g6, w1: g1 g3 g5 g7
    const perGroup = [5, 0, 3, 1, 2, 0, 1, 0]; // w0 leads 11 queues, w1 leads 0
    const moves = planQueueRebalance(t, [0, 1], perGroup);
    const after = assign(revoke(t, moves), moves);
    const load = (w: number): number => groupsOf(after, w).reduce((n, g) => n + perGroup[g]!, 0);
    assert.ok(moves.every((m) => m.from === 0 && m.to === 1));
    assert.ok(Math.abs(load(0) - load(1)) <= 1, `queues 11/0 evened out: ${load(0)}/${load(1)}`);
    // Empty groups never move; nothing moves when no move would narrow the spread.
    assert.ok(moves.every((m) => perGroup[m.group]! > 0));
    assert.deepEqual(planQueueRebalance(after, [0, 1], perGroup), []);
    // A single group of 9 queues cannot be split: it stays.
    assert.deepEqual(planQueueRebalance(t, [0, 1], [9, 0, 0, 0, 0, 0, 0, 0]), []);
  });

  it("gives a restarted worker back its own groups first (their home in the first table)", () => {
    const t = initialTable(16, [0, 1]);
    const alone = withoutWorker(t, 0, [0, 1]); // w1 leads all 16
    const moves = planRebalance(alone, [0, 1], (g) => g % 2);
    assert.equal(moves.length, 8);
    assert.deepEqual(moves.map((m) => m.group).sort((a, b) => a - b), [0, 2, 4, 6, 8, 10, 12, 14], "w0's own groups come back, w1 keeps its own");
  });
});
