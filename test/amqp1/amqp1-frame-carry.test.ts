// A frame in progress moves with the reads to the next slab (FrameCarrier: src/listeners/slab-reads.ts,
// src/amqp1/amqp1-frames.ts): a 1.0 transfer that would not fit the rest of its read slab is
// carried to the start of the next one, so it arrives whole in one pooled slab (a view, not a
// join into new memory). Reads are simulated over SlabTails with the real FrameReader; the pool
// poisons the slabs it takes back, so a carried frame read from a released slab would show it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FrameReader, frameHeader } from "../../src/amqp1/amqp1-frames.js";
import { SlabPool } from "../../src/listeners/slab-pool.js";
import { LARGE_SLAB, SlabTails } from "../../src/listeners/slab-reads.js";
import { seededBytes } from "../helpers/seeded-bytes.js";

/** A frame whose body starts as a transfer does (descriptor 0x00 0x53 0x14), then seeded bytes. */
function transfer(bodyLength: number, seed: number): Buffer {
  const b = seededBytes(bodyLength, seed);
  b.set([0x00, 0x53, 0x14], 0);
  return Buffer.concat([frameHeader(bodyLength, 0, 0), b]);
}

interface Cut {
  readonly body: Buffer;
  /** Whether it lay in a pooled slab when cut (else it was joined into memory of its own). */
  readonly inSlab: boolean;
}

/** Feeds `wire` through slab tails in reads of at most `readMax` bytes; returns the frames as cut, each body copied out at once. */
function readThrough(wire: Buffer, readMax: number, carry: boolean, pool: SlabPool): Cut[] {
  const tails = new SlabTails(pool);
  const reader = new FrameReader(1 << 20);
  if (carry) tails.carrier = reader;
  const cuts: Cut[] = [];
  let at = 0;
  while (at < wire.length) {
    const tail = tails.next();
    const n = Math.min(tail.length, readMax, wire.length - at);
    wire.copy(tail, 0, at, at + n);
    at += n;
    for (const f of reader.push(tails.read(n))) cuts.push({ body: Buffer.from(f.body), inSlab: pool.slabOf(f.body) !== undefined });
    // Nothing leases these bodies: once cut, only a frame in progress keeps a slab.
    tails.settle(reader);
  }
  tails.close();
  return cuts;
}

describe("AMQP 1.0 frames carried to the next read slab", () => {
  const sizes = [70_000, 65_600, 1_000, 90_000, 65_600, 65_600, 300_000, 65_600, 65_600, 65_600, 40_000, 65_600];
  const wire = Buffer.concat(sizes.map((s, i) => transfer(s, i)));
  const intact = (cuts: readonly Cut[]): void => {
    assert.equal(cuts.length, sizes.length);
    cuts.forEach((c, i) => {
      const want = transfer(sizes[i]!, i).subarray(8);
      assert.ok(c.body.equals(want), `frame ${i} (${sizes[i]} bytes) intact`);
    });
  };

  it("every frame that fits a slab arrives in one pooled slab; the one larger than a slab is joined; all intact", () => {
    const pool = new SlabPool({ slabBytes: LARGE_SLAB, maxFree: 8, poison: true });
    const cuts = readThrough(wire, 50_000, true, pool);
    intact(cuts);
    // The first frame starts in the socket's first small slab; the 300,000-byte one cannot fit any slab.
    cuts.forEach((c, i) => {
      if (i > 0 && sizes[i]! < LARGE_SLAB) assert.ok(c.inSlab, `frame ${i} lies in a pooled slab`);
    });
    assert.ok(!cuts[6]!.inSlab, "the frame larger than a slab is joined");
    assert.equal(pool.outstanding, 0, "every slab back once the socket closed");
    assert.ok(pool.reused > 0, "slabs were reused meanwhile");
  });

  it("without a carrier, frames that span two slabs are joined (what the carry saves)", () => {
    const pool = new SlabPool({ slabBytes: LARGE_SLAB, maxFree: 8, poison: true });
    const cuts = readThrough(wire, 50_000, false, pool);
    intact(cuts);
    assert.ok(cuts.filter((c, i) => i > 0 && i !== 6 && !c.inSlab).length > 0, "some frame spanned two slabs");
  });

  it("whatever the read sizes, the frames are intact", () => {
    for (const readMax of [1_000, 4_096, 65_536, 65_537, 200_000, LARGE_SLAB]) {
      const pool = new SlabPool({ slabBytes: LARGE_SLAB, maxFree: 8, poison: true });
      intact(readThrough(wire, readMax, true, pool));
      assert.equal(pool.outstanding, 0, `reads of ${readMax}: every slab back`);
    }
  });
});
