// The pure pieces of "Falling behind" (src/cluster/follower-pace.ts): when a follower counts for
// confirms again, and which in-sync set etcd is told next (removals alone and first).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BatchClock, LAG_LIMIT_MS, mayRequire, nextInSync, paceVerdict, spareFor, type InSyncCandidate, type PacedFollower } from "../../src/cluster/follower-pace.js";
import { loadConfig } from "../../src/config/load-config.js";

describe("follower pace", () => {
  it("knows how long ago a recent batch went out, and calls older or unsent ones late", () => {
    const c = new BatchClock();
    c.sent(1, 100);
    c.sent(2, 250);
    assert.equal(c.ageOf(1, 300), 200);
    assert.equal(c.ageOf(2, 300), 50);
    assert.equal(c.ageOf(3, 300), Infinity, "not sent yet");
    assert.equal(c.ageOf(-1, 300), Infinity);
    for (let b = 3; b <= 2000; b++) c.sent(b, 1000 + b);
    assert.equal(c.ageOf(2, 5000), Infinity, "out of the window: its slot holds a later batch's time");
    assert.equal(c.ageOf(2000, 3100), 100);
  });

  it("requires a follower again only once it is close behind, holds everything sent, or is needed", () => {
    // Before its snapshot is on its disk it never counts.
    assert.equal(mayRequire(4, 5, 9, 10, 400, true), false);
    // Close behind: the batch it acknowledged went out less than half the bound ago.
    assert.equal(mayRequire(7, 5, 9, 150, 400, false), true);
    // As slow as the bound (it was demoted for that): not yet, or it would pause confirms again at once.
    assert.equal(mayRequire(7, 5, 9, 350, 400, false), false);
    // ... unless too few are in sync for any confirm to go out without it.
    assert.equal(mayRequire(7, 5, 9, 350, 400, true), true);
    // An idle store: everything sent is acknowledged, however long ago it went out.
    assert.equal(mayRequire(9, 5, 9, Infinity, 400, false), true);
  });

  it("demotes a required follower that keeps a confirm waiting past the bound when others can stand in, and disconnects only a silent one", () => {
    const clock = new BatchClock();
    for (let b = 1; b <= 10; b++) clock.sent(b, b * 100);
    const f = (over: Partial<PacedFollower>): PacedFollower => ({ required: true, state: "live", acked: 5, snapBatch: 1, lastAckAt: 500, ...over });
    const waiting = { batch: 6, since: 600 };
    assert.equal(paceVerdict(f({}), waiting, true, 10, clock, 900, 400), "keep", "waited 300 ms: within the bound");
    assert.equal(paceVerdict(f({}), waiting, true, 10, clock, 1100, 400), "demote", "waited 500 ms");
    assert.equal(paceVerdict(f({}), waiting, false, 10, clock, 1100, 400), "keep", "no other follower can stand in: confirms wait for it anyway");
    assert.equal(paceVerdict(f({ acked: 6 }), waiting, true, 10, clock, 1100, 400), "keep", "it holds the batch the confirm waits for");
    assert.equal(paceVerdict(f({}), undefined, true, 10, clock, 1100, 400), "keep", "no confirm waits");
    // Silent for LAG_LIMIT_MS with batches outstanding: disconnected, demoted or not.
    assert.equal(paceVerdict(f({ required: false }), waiting, true, 10, clock, 500 + LAG_LIMIT_MS - 1, 400), "keep");
    assert.equal(paceVerdict(f({ required: false }), waiting, true, 10, clock, 600 + LAG_LIMIT_MS + 1, 400), "drop");
    assert.equal(paceVerdict(f({}), waiting, false, 10, clock, 600 + LAG_LIMIT_MS + 1, 400), "drop");
    assert.equal(paceVerdict(f({ required: false, acked: 10 }), undefined, true, 10, clock, 99_999, 400), "keep", "it holds everything sent");
    assert.equal(paceVerdict(f({ required: false, snapBatch: 8 }), waiting, true, 10, clock, 99_999, 400), "keep", "still writing its snapshot");
    assert.equal(paceVerdict(f({ required: false, state: "snapshot" }), waiting, true, 10, clock, 99_999, 400), "keep");
  });

  it("counts whether enough listed followers hold a batch for confirms to go on without the others", () => {
    const l = (required: boolean, acked: number): InSyncCandidate => ({ required, acked, joinTarget: 0 });
    const links = new Map([["a", l(true, 9)], ["b", l(true, 4)], ["c", l(false, 9)]]);
    assert.equal(spareFor(6, new Set(["a", "b"]), links, 1), true);
    assert.equal(spareFor(6, new Set(["a", "b"]), links, 2), false);
    assert.equal(spareFor(6, new Set(["b", "c"]), links, 1), false, "c is not required, b lacks the batch");
    assert.equal(spareFor(6, new Set(), links, 0), true);
  });

  it("tells etcd removals first and alone, then additions of caught-up required followers", () => {
    const l = (required: boolean, acked: number, joinTarget = Infinity): InSyncCandidate => ({ required, acked, joinTarget });
    // b was demoted and c caught up meanwhile: b goes first, on its own.
    const links = new Map([["a", l(true, 9)], ["b", l(false, 3)], ["c", l(true, 9, 8)]]);
    assert.deepEqual(nextInSync(new Set(["a", "b"]), links), ["a"]);
    // Then c joins.
    assert.deepEqual(nextInSync(new Set(["a"]), links), ["a", "c"]);
    assert.equal(nextInSync(new Set(["a", "c"]), links), null, "nothing to change");
    // A required follower short of its join target (what was sent when confirms began waiting for it) waits.
    assert.equal(nextInSync(new Set(["a"]), new Map([["a", l(true, 9)], ["c", l(true, 7, 8)]])), null);
    // A listed follower whose link is gone is removed.
    assert.deepEqual(nextInSync(new Set(["a", "gone"]), links), ["a"]);
  });

  it("takes --replica-ack-timeout (and its environment variable), refusing a bound a follower's fsync cannot meet", () => {
    assert.equal(loadConfig([], {}).replicaAckTimeout, 400);
    assert.equal(loadConfig(["--replica-ack-timeout", "250"], {}).replicaAckTimeout, 250);
    assert.equal(loadConfig([], { CONEY_REPLICA_ACK_TIMEOUT: "600" }).replicaAckTimeout, 600);
    assert.throws(() => loadConfig(["--replica-ack-timeout", "10"], {}), /--replica-ack-timeout: '10' is below the 50 ms a follower's fsync needs/);
  });
});
