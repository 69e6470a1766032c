// A body in parts is re-cut to the receiver's frame_max without being joined: whatever the
// parts and the frame_max, the frames carry exactly the body's bytes, none over frame_max.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeBody } from "../../../src/amqp/codec/body-frames.js";
import { FrameReader, nextFrame } from "../../../src/amqp/codec/frame-reader.js";
import { OutputBuffer } from "../../../src/amqp/codec/output-buffer.js";

/** A small seeded generator, so a failure repeats. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function framesOf(out: OutputBuffer, frameMax: number): Buffer[] {
  const reader = new FrameReader(frameMax);
  reader.push(out.take());
  const payloads: Buffer[] = [];
  for (let f = nextFrame(reader); f; f = nextFrame(reader)) {
    assert.equal(f.type, 3);
    assert.equal(f.channel, 5);
    payloads.push(Buffer.from(f.payload));
  }
  return payloads;
}

describe("writeBody", () => {
  it("frames a body in parts exactly, for any cut of parts and any frame_max", () => {
    const next = rng(42);
    for (let round = 0; round < 200; round++) {
      const frameMax = 4096 + Math.floor(next() * 12_000);
      const parts: Buffer[] = [];
      const count = 2 + Math.floor(next() * 6);
      for (let i = 0; i < count; i++) {
        const len = 1 + Math.floor(next() * 20_000);
        parts.push(Buffer.from(Array.from({ length: len }, () => Math.floor(next() * 256))));
      }
      const out = new OutputBuffer();
      writeBody(out, 5, parts, frameMax);
      const payloads = framesOf(out, frameMax);
      const total = parts.reduce((n, p) => n + p.length, 0);
      assert.equal(payloads.length, Math.ceil(total / (frameMax - 8)), "as few frames as frame_max allows");
      for (const p of payloads.slice(0, -1)) assert.equal(p.length, frameMax - 8);
      assert.deepEqual(Buffer.concat(payloads), Buffer.concat(parts));
    }
  });

  it("sends parts as they are when they already fit the receiver's frames", () => {
    const parts = [Buffer.alloc(8184, 1), Buffer.alloc(8184, 2), Buffer.alloc(100, 3)];
    const out = new OutputBuffer();
    writeBody(out, 5, parts, 8192);
    const pieces = out.takeOutput().pieces;
    for (const p of parts.slice(0, 2)) assert.ok(pieces.includes(p), "a full-frame part is referenced, not copied");
  });
});
