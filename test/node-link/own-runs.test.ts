// DELIVER_OWN_RUN (src/node-link/own-runs.ts): the leader's DELIVER_OWNs of consecutive positions
// to one consumer in one frame. Written by the leader's side and read back by the connecting
// node's over a real loopback socket, every delivery arrives with its consumer, entry id, flags
// and position, in order — runs cut by a change of consumer or flags, a gap in positions, another
// frame written between two deliveries, the run's byte limit and the turn's end; a node that does
// not read runs gets plain DELIVER_OWN frames. (Between two brokers: publish-runs.test.ts.)
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FrameSplitter, readFrames } from "../../src/node-link/frame-splitter.js";
import { DELIVER_OWN, DELIVER_OWN_RUN, FRAME_HEAD, STORED, frame } from "../../src/node-link/link-frames.js";
import { LinkWriter } from "../../src/node-link/link-writer.js";
import { OwnRuns, readOwn } from "../../src/node-link/own-runs.js";
import { withTimeout } from "../helpers/wait.js";
import { socketPair } from "./socket-pair.js";

type Delivery = [consumerId: number, entryId: number, redelivered: boolean, deliveryCount: number, position: number];

/** Delivery i: mostly consecutive positions to consumer 1; now and then another consumer, a redelivery, or a gap. */
function deliveryOf(i: number): Delivery {
  const consumer = i % 37 === 0 ? 2 : 1;
  const redelivered = i % 53 === 0;
  return [consumer, i * 1_000_003 + 0.5 * (i % 2), redelivered, redelivered ? 3 : 0, i + Math.floor(i / 101) * 5];
}

async function roundTrip(runs: boolean, count: number): Promise<{ got: Delivery[]; types: Map<number, number>; largest: number; opened: number }> {
  const pair = await socketPair();
  try {
    const got: Delivery[] = [];
    const types = new Map<number, number>();
    let largest = 0;
    const done = new Promise<void>((resolve, reject) => {
      readFrames(
        pair.inn,
        new FrameSplitter(1 << 20),
        (f) => {
          types.set(f[4]!, (types.get(f[4]!) ?? 0) + 1);
          if (f[4] === STORED) return;
          largest = Math.max(largest, f.length);
          readOwn(f, (...d) => got.push(d));
          if (got.length === count) resolve();
        },
        undefined,
        reject,
      );
    });
    const w = new LinkWriter(pair.out, () => own.seal());
    const own = new OwnRuns(runs);
    const stored = frame(STORED, 8);
    stored.writeDoubleLE(1, FRAME_HEAD);
    for (let i = 0; i < count; i++) {
      own.write(w, ...deliveryOf(i));
      if (i % 71 === 0) w.write(stored);
      if (i % 400 === 0) await new Promise((r) => setImmediate(r));
    }
    await withTimeout(done, 15_000, "every delivery read back");
    return { got, types, largest, opened: own.opened };
  } finally {
    pair.close();
  }
}

describe("DELIVER_OWN_RUN frames", () => {
  it("carry every delivery in order, runs cut by consumer, flags, gaps, other frames, the byte limit and turns", async () => {
    const count = 5000;
    const { got, types, largest, opened } = await roundTrip(true, count);
    assert.deepEqual(got, Array.from({ length: count }, (_, i) => deliveryOf(i)));
    assert.equal(types.get(DELIVER_OWN) ?? 0, 0);
    assert.equal(types.get(DELIVER_OWN_RUN), opened);
    assert.ok(opened > 100 && opened < count / 5, `deliveries shared runs (${opened} runs)`);
    assert.ok(largest <= 4096, `a run stays within 4 KiB (${largest})`);
  });

  it("are plain DELIVER_OWN frames to a node that does not read runs", async () => {
    const { got, types, opened } = await roundTrip(false, 600);
    assert.deepEqual(got, Array.from({ length: 600 }, (_, i) => deliveryOf(i)));
    assert.equal(types.get(DELIVER_OWN), 600);
    assert.equal(opened, 0);
  });

  it("a run whose entry ids do not fill it is refused", () => {
    const f = Buffer.alloc(FRAME_HEAD + 17 + 8 + 3);
    f.writeUInt32LE(f.length - 4, 0);
    f[4] = DELIVER_OWN_RUN;
    assert.throws(() => readOwn(f, () => assert.fail("nothing is delivered from a malformed run")), /do not fill it/);
  });
});
