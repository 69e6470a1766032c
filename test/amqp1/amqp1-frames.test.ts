// FrameReader (src/amqp1/amqp1-frames.ts): frames cut from reads however the reads split them;
// transfers of 256 bytes or more are slices of the read (no copy), smaller ones and every other
// performative copies; a frame that spans reads is a view when the reads are adjacent in one
// memory, else joined from just the bytes it lacks, and its bytes are held (holdsBytesOf) until
// it is whole; oversize and malformed frames throw.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FrameReader, FrameTooLarge, frameHeader, MalformedFrame } from "../../src/amqp1/amqp1-frames.js";

const frame = (bodyLength: number, fill: number, channel = 0): Buffer => Buffer.concat([frameHeader(bodyLength, 0, channel), Buffer.alloc(bodyLength, fill)]);
/** A frame whose body starts as a transfer performative does (descriptor 0x00 0x53 0x14), then `fill`. */
const transfer = (bodyLength: number, fill: number): Buffer => {
  const f = frame(bodyLength, fill);
  f.set([0x00, 0x53, 0x14], 8);
  return f;
};

/** Whether `piece` lies in `read`'s memory (small Buffers share Node's pool, so .buffer alone says nothing). */
const within = (piece: Buffer, read: Buffer): boolean => piece.buffer === read.buffer && piece.byteOffset >= read.byteOffset && piece.byteOffset < read.byteOffset + read.length;

describe("AMQP 1.0 FrameReader", () => {
  it("yields the same frames whatever the reads' boundaries", () => {
    const wire = Buffer.concat([frame(10, 1), frame(600, 2, 3), frame(0, 0), frame(300, 4)]);
    for (let cut = 1; cut < wire.length; cut += 7) {
      const r = new FrameReader(4096);
      const got = [...r.push(wire.subarray(0, cut))].map((f) => ({ ch: f.channel, body: Buffer.from(f.body) }));
      got.push(...r.push(wire.subarray(cut)).map((f) => ({ ch: f.channel, body: Buffer.from(f.body) })));
      assert.deepEqual(
        got.map((f) => [f.ch, f.body.length, f.body[0]]),
        [
          [0, 10, 1],
          [3, 600, 2],
          [0, 0, undefined],
          [0, 300, 4],
        ],
        `cut at ${cut}`,
      );
    }
  });

  it("slices transfers of 256 bytes or more out of the read and copies smaller ones and other performatives", () => {
    const read = Buffer.concat([transfer(300, 7), transfer(20, 8), frame(300, 9)]);
    const [big, small, attach] = new FrameReader(4096).push(read);
    assert.ok(within(big!.body, read), "a slice of the read");
    assert.ok(!within(small!.body, read), "a copy");
    assert.ok(!within(attach!.body, read), "not a transfer: a copy (its decoded values are kept)");
    assert.deepEqual(attach!.body, Buffer.alloc(300, 9));
  });

  it("holds the memory of a frame still arriving until it is whole, and no other", () => {
    const a = transfer(1000, 1);
    const first = Buffer.concat([transfer(300, 2), a.subarray(0, 500)]);
    const other = Buffer.alloc(10);
    const r = new FrameReader(4096);
    assert.equal(r.push(first).length, 1);
    assert.ok(r.holdsBytesOf(first.buffer), "the start of the frame still arriving");
    assert.ok(!r.holdsBytesOf(other.buffer));
    const [whole] = r.push(a.subarray(500));
    assert.equal(whole!.body.length, 1000);
    assert.ok(!r.holdsBytesOf(first.buffer), "nothing once the frame is whole");
  });

  it("completes a frame spanning reads with only the bytes it lacks; the next frames stay slices", () => {
    const a = transfer(1000, 1);
    const b = transfer(1000, 2);
    const r = new FrameReader(4096);
    assert.equal(r.push(a.subarray(0, 3)).length, 0);
    const second = Buffer.concat([a.subarray(3), b]);
    const frames = r.push(second);
    assert.equal(frames.length, 2);
    assert.equal(frames[0]!.body.length, 1000);
    assert.ok(!within(frames[0]!.body, second), "the joined frame");
    assert.ok(within(frames[1]!.body, second), "sliced, not copied with the join");
  });

  it("takes a frame spanning adjacent reads of one memory (reads into one slab) as a view across them, not a copy", () => {
    const slab = Buffer.concat([transfer(5000, 1), frame(20, 2)]);
    const r = new FrameReader(8192);
    for (const [from, to] of [
      [0, 3],
      [3, 2000],
      [2000, 4000],
    ] as const) assert.equal(r.push(slab.subarray(from, to)).length, 0);
    const [big, small] = r.push(slab.subarray(4000));
    assert.equal(big!.body.buffer, slab.buffer, "a view of the slab");
    assert.equal(big!.body.byteOffset, slab.byteOffset + 8);
    assert.deepEqual(big!.body.subarray(3), Buffer.alloc(4997, 1));
    assert.deepEqual(small!.body, Buffer.alloc(20, 2));
  });

  it("stops at the limit and hands back the rest unread (a protocol header after SASL)", () => {
    const header = Buffer.from("AMQP\x00\x01\x00\x00", "latin1");
    const r = new FrameReader(512);
    assert.equal(r.push(Buffer.concat([frame(10, 1), header]), 1).length, 1);
    assert.deepEqual(r.takeRest(), header);
  });

  it("throws on a frame over max-frame-size and on a malformed header", () => {
    assert.throws(() => new FrameReader(512).push(frame(600, 1)), FrameTooLarge);
    const bad = frame(10, 1);
    bad[4] = 1;
    assert.throws(() => new FrameReader(512).push(bad), MalformedFrame);
    // Also when the header arrives over two reads.
    const r = new FrameReader(512);
    r.push(frame(600, 1).subarray(0, 5));
    assert.throws(() => r.push(frame(600, 1).subarray(5)), FrameTooLarge);
  });
});
