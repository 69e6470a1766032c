// The free list that lets stream readers and connection outputs reuse memory: what it hands out
// is exactly the size asked, never shared with another buffer handed out, and what it keeps is bounded.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BufferPool } from "../../src/broker/values/buffer-pool.js";

describe("BufferPool", () => {
  it("hands out buffers of exactly the size asked, over memory of their own", () => {
    const pool = new BufferPool(4, 1 << 20);
    const a = pool.take(5000);
    const b = pool.take(5000);
    assert.equal(a.length, 5000);
    assert.equal(b.length, 5000);
    assert.notEqual(a.buffer, b.buffer, "two buffers out at once never share memory");
    assert.equal(a.byteOffset, 0);
    a.fill(1);
    b.fill(2);
    assert.ok(a.every((x) => x === 1), "writing one does not touch the other");
  });

  it("reuses a buffer given back, for a request that fits in it", () => {
    const pool = new BufferPool(4, 1 << 20);
    const a = pool.take(70_000);
    const memory = a.buffer;
    pool.give(a);
    assert.equal(pool.freeCount, 1);
    const b = pool.take(50_000);
    assert.equal(b.buffer, memory, "the same memory again");
    assert.equal(b.length, 50_000);
    assert.equal(pool.freeCount, 0, "out again: no longer free");
    const c = pool.take(50_000);
    assert.notEqual(c.buffer, memory, "not handed out twice");
  });

  it("rounds allocations up, so a slightly larger chunk later still fits", () => {
    const pool = new BufferPool(1, 1 << 20);
    const a = pool.take(100_000);
    assert.equal(a.buffer.byteLength, 131_072);
    pool.give(a.subarray(10, 20)); // a view into it gives back the whole buffer
    const b = pool.take(130_000);
    assert.equal(b.buffer, a.buffer);
  });

  it("keeps no more than maxFree buffers, none larger than maxBytes", () => {
    const pool = new BufferPool(2, 1 << 20);
    const out = [pool.take(20_000), pool.take(20_000), pool.take(20_000)];
    for (const b of out) pool.give(b);
    assert.equal(pool.freeCount, 2);
    const huge = pool.take(3 << 20);
    assert.equal(huge.buffer.byteLength, 3 << 20, "too large to keep: exactly what was asked");
    pool.clear();
    pool.give(huge);
    assert.equal(pool.freeCount, 0);
  });

  it("a request larger than every free buffer gets new memory and leaves them free", () => {
    const pool = new BufferPool(2, 1 << 20);
    const small = pool.take(20_000);
    pool.give(small);
    const big = pool.take(200_000);
    assert.notEqual(big.buffer, small.buffer);
    assert.equal(pool.freeCount, 1);
    pool.clear();
    assert.equal(pool.freeCount, 0);
  });

  it("takes small buffers from Node's shared slab and never keeps them (their memory is shared)", () => {
    const pool = new BufferPool(4, 1 << 20);
    const a = pool.take(100);
    const b = pool.take(100);
    assert.equal(a.length, 100);
    a.fill(1);
    b.fill(2);
    assert.ok(a.every((x) => x === 1));
    pool.give(a);
    assert.equal(pool.freeCount, 0, "a slab is never handed out again as a buffer of its own");
  });

  it("trim keeps at most the given number of free buffers, none over the given size", () => {
    const pool = new BufferPool(8, 1 << 24);
    const sizes = [20_000, 3 << 20, 40_000, 70_000];
    const out = sizes.map((n) => pool.take(n));
    for (const b of out) pool.give(b);
    pool.trim(2, 1 << 20);
    assert.equal(pool.freeCount, 2);
    const kept = [pool.take(16_384), pool.take(16_384)].map((b) => b.buffer.byteLength);
    assert.equal(pool.freeCount, 0, "both came from the free list");
    assert.ok(kept.every((n) => n <= 1 << 20), "the 4 MiB one went");
  });
});
