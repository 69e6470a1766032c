import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ConfirmTracker } from "../../src/amqp/channel/confirm-tracker.js";

function drain(t: ConfirmTracker): Array<[number, boolean, boolean]> {
  const out: Array<[number, boolean, boolean]> = [];
  t.drain((tag, multiple, ack) => out.push([tag, multiple, ack]));
  return out;
}

describe("confirm tracker", () => {
  it("coalesces a run of acks into one multiple ack", () => {
    const t = new ConfirmTracker();
    for (let i = 0; i < 5; i++) t.settle(t.take(), true);
    assert.deepEqual(drain(t), [[5, true, true]]);
    assert.equal(t.unconfirmed, 0);
  });

  it("a single ack is not multiple", () => {
    const t = new ConfirmTracker();
    t.settle(t.take(), true);
    assert.deepEqual(drain(t), [[1, false, true]]);
  });

  it("waits for gaps and sends nacks alone, in order", () => {
    const t = new ConfirmTracker();
    const [a, b, c, d] = [t.take(), t.take(), t.take(), t.take()];
    t.settle(b, true);
    assert.deepEqual(drain(t), [], "1 is still pending");
    t.settle(a, true);
    t.settle(c, false);
    t.settle(d, true);
    assert.deepEqual(drain(t), [[2, true, true], [3, false, false], [4, false, true]]);
  });
});
