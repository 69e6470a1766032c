// RefFifo: order across growth and wrap-around, negative (delivered) refs, drain.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RefFifo } from "../../src/store/ref-fifo.js";

describe("RefFifo", () => {
  it("keeps FIFO order while growing past its capacity with a wrapped head", () => {
    const f = new RefFifo();
    const expected: number[] = [];
    let next = 1;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 1500; i++) {
        const v = next % 3 === 0 ? -next * 2 ** 32 : next * 2 ** 32 + 7;
        f.push(v);
        expected.push(v);
        next++;
      }
      for (let i = 0; i < 700; i++) assert.equal(f.shift(), expected.shift());
    }
    assert.equal(f.length, expected.length);
    assert.equal(f.peek(), expected[0]);
    assert.deepEqual([...f.drain()], expected);
    assert.equal(f.length, 0);
    assert.equal(f.shift(), 0, "empty gives 0, which is never a ref");
  });
});
