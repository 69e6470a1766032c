// Large bodies are referenced, not copied: the pieces taken out must still be the exact frames,
// whatever the mix of small frames, large bodies, buffer growth and back-patched sizes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { EXTERNAL_BODY_MIN, OUTPUT_BLOCK_BYTES, OutputBuffer, type TakenOutput } from "../../../src/amqp/codec/output-buffer.js";

function bodyFrame(channel: number, body: Buffer): Buffer {
  const head = Buffer.alloc(7);
  head[0] = 3;
  head.writeUInt16BE(channel, 1);
  head.writeUInt32BE(body.length, 3);
  return Buffer.concat([head, body, Buffer.from([0xce])]);
}

describe("OutputBuffer", () => {
  it("keeps frames exact around referenced bodies, through growth and back-patching", () => {
    const out = new OutputBuffer(16); // tiny, so growth happens between pieces
    const big = Buffer.alloc(EXTERNAL_BODY_MIN + 10, 7);
    const small = Buffer.from("small body");
    const expected: Buffer[] = [];
    for (let i = 0; i < 3; i++) {
      const f = out.beginFrame(1, i); // a method frame whose size is back-patched after a body went out
      out.writeUInt32(0xdeadbeef + i);
      out.endFrame(f);
      const method = Buffer.alloc(12);
      method[0] = 1;
      method.writeUInt16BE(i, 1);
      method.writeUInt32BE(4, 3);
      method.writeUInt32BE(0xdeadbeef + i, 7);
      method[11] = 0xce;
      expected.push(method);
      out.writeBodyFrame(i, big);
      expected.push(bodyFrame(i, big));
      out.writeBodyFrame(i, small);
      expected.push(bodyFrame(i, small));
    }
    const want = Buffer.concat(expected);
    assert.equal(out.length, want.length);
    const pieces = out.takeOutput().pieces;
    assert.ok(pieces.some((p) => p === big), "the large body is sent as it is");
    assert.deepEqual(Buffer.concat(pieces), want);
    assert.equal(out.length, 0);
    out.writeBodyFrame(9, big);
    assert.deepEqual(out.take(), bodyFrame(9, big), "take() joins the pieces");
  });

  it("never writes over bytes already taken, though it goes on writing in the same buffer", () => {
    const out = new OutputBuffer(16 * 1024); // above Buffer.poolSize: its own backing buffer
    const taken: Array<{ pieces: Buffer[]; copy: Buffer }> = [];
    for (let i = 0; i < 200; i++) {
      const f = out.beginFrame(1, i % 7);
      for (let j = 0; j <= i % 13; j++) out.writeUInt32(i * 1000 + j);
      out.endFrame(f);
      const pieces = out.takeOutput().pieces;
      taken.push({ pieces, copy: Buffer.from(Buffer.concat(pieces)) });
    }
    for (const t of taken) assert.deepEqual(Buffer.concat(t.pieces), t.copy);
    const shared = new Set(taken.map((t) => t.pieces[0]!.buffer));
    assert.ok(shared.size < taken.length / 4, "flushes share backing buffers");
  });

  it("does not grow with the bytes already sent: a long run of flushes stays in blocks of its own size", () => {
    // It once doubled its buffer keeping the offsets of taken bytes: 512 MiB after a 1 GB read.
    const out = new OutputBuffer();
    const body = Buffer.alloc(1000, 5);
    const sizes = new Set<number>();
    for (let round = 0; round < 1000; round++) {
      // 60 frames a round (a flush): 60 KB, so blocks fill up and rounds cross them.
      for (let i = 0; i < 60; i++) {
        const f = out.beginFrame(1, 1);
        out.writeUInt32(i);
        out.endFrame(f);
        out.writeBodyFrame(1, body);
      }
      const taken = out.takeOutput();
      for (const p of taken.pieces) sizes.add(p.buffer.byteLength);
      out.release(taken);
    }
    assert.ok(Math.max(...sizes) <= OUTPUT_BLOCK_BYTES, `blocks of ${[...sizes].join(", ")} bytes`);
  });

  it("reuses released blocks and never writes over bytes still being sent", () => {
    const out = new OutputBuffer();
    const held: Array<{ taken: TakenOutput; copy: Buffer }> = [];
    const memory = new Set<ArrayBufferLike>();
    for (let i = 0; i < 2000; i++) {
      const f = out.beginFrame(1, i % 5);
      for (let j = 0; j < 50 + (i % 200); j++) out.writeUInt32(i * 7919 + j);
      out.endFrame(f);
      out.writeBodyFrame(2, Buffer.alloc(300 + (i % 700), i & 0xff));
      const taken = out.takeOutput();
      for (const p of taken.pieces) memory.add(p.buffer);
      held.push({ taken, copy: Buffer.from(Buffer.concat(taken.pieces)) });
      // Writes complete out of step with new output: a few stay in flight at any time.
      if (held.length > 6) {
        const done = held.splice(i % 3, 1)[0]!;
        assert.deepEqual(Buffer.concat(done.taken.pieces), done.copy, "bytes in flight were not overwritten");
        out.release(done.taken);
      }
    }
    for (const h of held) assert.deepEqual(Buffer.concat(h.taken.pieces), h.copy);
    // About 3 MB went through; without reuse that is about 50 blocks.
    assert.ok(memory.size <= 12, `${memory.size} blocks used`);
  });

  it("moves only an open frame to the next block, complete frames stay where they are", () => {
    const out = new OutputBuffer();
    const before = Buffer.alloc(60_000, 1);
    out.writeBodyFrame(1, before.subarray(0, 4000));
    for (let i = 0; i < 14; i++) out.writeBodyFrame(1, before.subarray(0, 4000));
    // A method frame with a table that does not fit in what is left of the block: its start moves.
    const f = out.beginFrame(1, 2);
    out.writeTable({ big: "x".repeat(10_000) });
    out.endFrame(f);
    const taken = out.takeOutput();
    assert.ok(taken.pieces.length >= 2, "the complete frames are one part, the open frame moved to another");
    const all = Buffer.concat(taken.pieces);
    // 15 body frames of 4000 bytes, then the method frame with its back-patched sizes.
    const m = all.subarray(15 * 4008);
    assert.equal(m[0], 1);
    assert.equal(m.readUInt32BE(3), m.length - 8, "frame size patched in the moved frame");
    assert.equal(m.readUInt32BE(7), m.length - 12, "table size patched in the moved frame");
    assert.equal(m[m.length - 1], 0xce);
    for (const p of taken.pieces) assert.ok(p.buffer.byteLength <= OUTPUT_BLOCK_BYTES);
  });

  it("copies a lent body instead of referencing it, across blocks, frames exact", () => {
    const out = new OutputBuffer();
    const lent = Buffer.alloc(150_000);
    for (let i = 0; i < lent.length; i++) lent[i] = (i * 31) & 0xff;
    const want: Buffer[] = [];
    const f = out.beginFrame(1, 3);
    out.writeUInt32(42);
    out.endFrame(f);
    want.push(Buffer.from([1, 0, 3, 0, 0, 0, 4, 0, 0, 0, 42, 0xce]));
    for (let off = 0; off < lent.length; off += 131_064) {
      const part = lent.subarray(off, Math.min(off + 131_064, lent.length));
      out.writeBodyFrame(3, part, true);
      want.push(bodyFrame(3, Buffer.from(part)));
    }
    const taken = out.takeOutput();
    assert.ok(!taken.pieces.some((p) => p.buffer === lent.buffer), "no piece refers to the lent body");
    lent.fill(0); // the lender reuses its buffer at once
    assert.deepEqual(Buffer.concat(taken.pieces), Buffer.concat(want));
  });
});
