// The inter-node link's pure pieces: framing, the connecting node's confirm waits, the leading
// node's ordered STORED reports.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FrameSplitter } from "../../src/node-link/frame-splitter.js";
import { FRAME_HEAD, REFUSED, STORED, frame } from "../../src/node-link/link-frames.js";
import { StoredReports } from "../../src/node-link/stored-reports.js";
import { StoredWaits } from "../../src/node-link/stored-waits.js";
import type { SyncWaiter } from "../../src/broker/index.js";

function recorder(): SyncWaiter & { told: Array<[number, boolean]> } {
  const told: Array<[number, boolean]> = [];
  return { told, synced: (token, ok) => void told.push([token, ok]) };
}

describe("FrameSplitter", () => {
  it("slices whole frames and joins one split over reads", () => {
    const a = frame(STORED, 8);
    a.writeDoubleLE(1, FRAME_HEAD);
    const b = frame(STORED, 8);
    b.writeDoubleLE(2, FRAME_HEAD);
    const stream = Buffer.concat([a, b]);
    const got: number[] = [];
    const s = new FrameSplitter(1024);
    for (let i = 0; i < stream.length; i += 3) s.push(stream.subarray(i, i + 3), (f) => got.push(f.readDoubleLE(FRAME_HEAD)));
    assert.deepEqual(got, [1, 2]);
  });

  it("refuses a frame over its limit", () => {
    const s = new FrameSplitter(16);
    assert.throws(() => s.push(frame(STORED, 64), () => {}), /exceeds/);
  });
});

describe("StoredWaits", () => {
  it("resolves waits in order as STORED arrives, nacking a wait whose positions were refused", () => {
    const w = new StoredWaits();
    const r = recorder();
    for (let i = 0; i < 4; i++) w.next(100);
    w.wait(r, 11, 1, 1);
    w.wait(r, 12, 2, 3);
    w.wait(r, 13, 4, 4);
    assert.equal(w.inFlight, 4);
    assert.equal(w.inFlightBytes, 400);
    w.refuse(3, 3);
    w.stored(3);
    assert.deepEqual(r.told, [[11, true], [12, false]]);
    assert.equal(w.inFlight, 1);
    assert.equal(w.inFlightBytes, 100);
    w.stored(4);
    assert.deepEqual(r.told.at(-1), [13, true]);
  });

  it("nacks every waiting and later confirm once the link is lost", () => {
    const w = new StoredWaits();
    const r = recorder();
    w.next(1);
    w.wait(r, 1, 1, 1);
    w.lose();
    w.wait(r, 2, 1, 1);
    assert.deepEqual(r.told, [[1, false], [2, false]]);
  });
});

describe("StoredReports", () => {
  it("reports runs in order: one waiting for its fsync holds back a later one that needed none", () => {
    const sent: Buffer[] = [];
    const waits: Array<[SyncWaiter, number]> = [];
    const reports = new StoredReports((f) => sent.push(f), (w, t) => void waits.push([w, t]));
    reports.accepted(true);
    reports.accepted(false);
    reports.closeRun();
    reports.accepted(false);
    reports.refused();
    reports.closeRun();
    // Only the refusal so far: the first run waits for the store.
    assert.deepEqual(sent.map((f) => f[4]), [REFUSED]);
    assert.equal(sent[0]!.readDoubleLE(FRAME_HEAD), 4);
    waits[0]![0].synced(waits[0]![1], true);
    assert.equal(sent[1]![4], STORED);
    assert.equal(sent[1]!.readDoubleLE(FRAME_HEAD), 4, "both runs reported at once");
  });

  it("refuses a whole run whose store write failed", () => {
    const sent: Buffer[] = [];
    let wait: [SyncWaiter, number] | null = null;
    const reports = new StoredReports((f) => sent.push(f), (w, t) => void (wait = [w, t]));
    reports.accepted(true);
    reports.accepted(true);
    reports.closeRun();
    wait![0].synced(wait![1], false);
    assert.equal(sent[0]![4], REFUSED);
    assert.deepEqual([sent[0]!.readDoubleLE(FRAME_HEAD), sent[0]!.readDoubleLE(FRAME_HEAD + 8)], [1, 2]);
    assert.equal(sent[1]![4], STORED);
  });
});
