// Read slabs that come back (src/listeners/slab-pool.ts): a slab returns only when its reader and
// every lease on a body cut from it let go; a pinned lease never returns its slabs; poisoning
// marks returned bytes; tails hold a slab they moved off while the parser keeps bytes of it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SlabPool, type Slab, type SlabLease } from "../../src/listeners/slab-pool.js";
import { LARGE_SLAB, SlabTails } from "../../src/listeners/slab-reads.js";

function pool(maxFree = 8): SlabPool {
  return new SlabPool({ slabBytes: 1024, maxFree, poison: true });
}

/** A fresh slab, still held by its reader, and a lease on a body cut from it. */
function leaseOnNewSlab(p: SlabPool): { slab: Slab; lease: SlabLease } {
  const slab = p.take();
  const lease = p.lease();
  lease.add(slab.bytes.subarray(0, 10));
  return { slab, lease };
}

describe("slab pool", () => {
  it("takes a slab back once its reader and every lease on it let go, and hands the same memory out again", () => {
    const p = pool();
    const slab = p.take();
    slab.bytes.fill(1);
    const lease = p.lease();
    lease.add(slab.bytes.subarray(0, 100));
    lease.add(slab.bytes.subarray(100, 300)); // the same slab is held once
    assert.equal(p.outstanding, 1);
    slab.release(); // the reader moved on
    assert.equal(p.freeCount, 0, "the lease still holds it");
    assert.equal(p.outstanding, 1, "still out while the lease holds it");
    lease.hold(); // a write in flight
    lease.handOver(0); // routed: the publish's own hold goes
    assert.equal(p.freeCount, 0);
    lease.release(); // the write completed
    assert.equal(p.freeCount, 1);
    assert.equal(p.outstanding, 0);
    assert.ok(slab.bytes.every((b) => b === 0xdb), "a returned slab is poisoned");
    assert.equal(p.take(), slab);
    assert.equal(p.reused, 1);
  });

  it("a lease over two slabs holds both until its last holder lets go", () => {
    const p = pool();
    const a = p.take();
    const b = p.take();
    const lease = p.lease();
    lease.add(a.bytes.subarray(900));
    lease.add(b.bytes.subarray(0, 50));
    lease.handOver(2); // two queue entries
    a.release();
    b.release();
    lease.release();
    assert.equal(p.freeCount, 0);
    lease.release();
    assert.equal(p.freeCount, 2);
  });

  it("never takes back the slabs of a pinned lease", () => {
    const p = pool();
    const { slab, lease } = leaseOnNewSlab(p);
    lease.pin();
    slab.release();
    lease.handOver(0);
    lease.release(); // ignored once pinned, not counted as a release too many
    assert.equal(p.freeCount, 0);
  });

  it("ignores pieces that are not its slabs (a copy, a small slab)", () => {
    const p = pool();
    const lease = p.lease();
    lease.add(Buffer.alloc(10));
    lease.handOver(0);
    assert.equal(p.freeCount, 0);
  });

  it("hands nothing back while the message is still being routed", () => {
    const p = pool();
    const { slab, lease } = leaseOnNewSlab(p);
    slab.release();
    lease.release(); // a no-ack consumer took the first queue's entry during routing
    assert.equal(p.freeCount, 0);
    lease.handOver(2); // two entries in all: one is still held
    assert.equal(p.freeCount, 0);
    lease.release();
    assert.equal(p.freeCount, 1);
  });

  it("throws on a release too many while poisoning", () => {
    const p = pool();
    const slab = p.take();
    slab.release();
    assert.throws(() => slab.release(), /released more often than it was held/);
  });

  it("keeps at most maxFree slabs, and lets them all go when idle", () => {
    const p = pool(2);
    const slabs = [p.take(), p.take(), p.take()];
    for (const s of slabs) s.release();
    assert.equal(p.freeCount, 2);
    p.trimToDemand(); // three slabs were taken since the last trim: both kept
    assert.equal(p.freeCount, 2);
    p.trimToDemand(); // none taken since: let go
    assert.equal(p.freeCount, 0);
  });

  it("trims its free slabs to the number taken since the last trim", () => {
    const p = pool(8);
    const burst = Array.from({ length: 6 }, () => p.take());
    for (const s of burst) s.release();
    p.trimToDemand(); // the burst took six
    assert.equal(p.freeCount, 6);
    const light = [p.take(), p.take()];
    for (const s of light) s.release();
    p.trimToDemand(); // only two were needed since
    assert.equal(p.freeCount, 2);
    const reused = p.reused;
    p.take();
    assert.equal(p.reused, reused + 1, "a kept slab is handed out again");
  });
});

describe("slab tails with a pool", () => {
  const keeps = (memory: ArrayBufferLike | null) => ({ holdsBytesOf: (m: ArrayBufferLike) => m === memory });

  /** Reads until the tails are on large (pooled) slabs; returns the last chunk. */
  function goLarge(t: SlabTails): Buffer {
    let chunk = t.read(t.next().length);
    while (!t.readsLarge) chunk = t.read(t.next().length);
    return chunk;
  }

  it("holds a slab it moved off until the parser keeps no bytes of it", () => {
    const p = new SlabPool({ slabBytes: LARGE_SLAB, maxFree: 8, poison: true });
    const t = new SlabTails(p);
    goLarge(t);
    const first = t.read(t.next().length); // fills the first pooled slab
    assert.equal(first.length, LARGE_SLAB);
    t.next(); // moves to a second slab: the first is retired
    t.settle(keeps(first.buffer));
    assert.equal(p.freeCount, 0, "the parser still holds the start of a frame in it");
    t.settle(keeps(null));
    assert.equal(p.freeCount, 1);
    assert.ok(first.every((b) => b === 0xdb));
  });

  it("gives its slab back when the socket closes", () => {
    const p = new SlabPool({ slabBytes: LARGE_SLAB, maxFree: 8, poison: true });
    const t = new SlabTails(p);
    goLarge(t);
    t.next();
    t.read(100);
    t.close();
    assert.equal(p.freeCount, 1);
  });
});
