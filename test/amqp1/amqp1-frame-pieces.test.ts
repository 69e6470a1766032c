// FrameReader (src/amqp1/amqp1-frames.ts) on reads that are not adjacent in memory (a frame larger
// than a read slab, or TLS reads): a transfer keeps its payload as the reads' slices (Frame.more),
// as AMQP 0-9-1's FrameReader keeps a body frame that spans reads; only its performative is made
// contiguous, copied alone when it straddles two reads. Any other frame, or a transfer in an
// unusual encoding, is joined as before. Whatever the cut, the bytes are the frame's.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FRAME_AMQP, FrameReader, type Frame } from "../../src/amqp1/amqp1-frames.js";
import { PERFORMATIVE, performativeFrame } from "../../src/amqp1/performatives.js";
import type { Amqp10Value } from "../../src/amqp10/amqp10-value.js";
import { seededBytes } from "../helpers/seeded-bytes.js";

const u = (value: number): Amqp10Value => ({ type: "uint", value });

/** A transfer frame (handle 0, delivery 7, a tag, format 0) carrying `payload`. */
function transfer(payload: Buffer, channel = 0): { wire: Buffer; performative: number } {
  const head = performativeFrame(FRAME_AMQP, channel, PERFORMATIVE.transfer, [u(0), u(7), { type: "binary", value: Buffer.from("tag") }, u(0)]);
  const wire = Buffer.concat([head, payload]);
  wire.writeUInt32BE(wire.length, 0);
  return { wire, performative: head.length - 8 };
}

/** `wire` read in pieces of their own memory, cut at `cuts`; the frames the reader gives. */
function readCut(wire: Buffer, cuts: readonly number[]): { frames: Frame[]; reads: Buffer[] } {
  const r = new FrameReader(1 << 20);
  const frames: Frame[] = [];
  const reads: Buffer[] = [];
  let from = 0;
  for (const at of [...cuts, wire.length]) {
    const read = Buffer.from(wire.subarray(from, at));
    reads.push(read);
    frames.push(...r.push(read));
    from = at;
  }
  return { frames, reads };
}

const bodyBytes = (f: Frame): Buffer => Buffer.concat([f.body, ...(f.more ?? [])]);

describe("AMQP 1.0 transfers over reads that are not adjacent", () => {
  const payload = seededBytes(70_000, 44);
  const { wire, performative } = transfer(payload, 3);

  it("keep their payload as slices of the reads, the performative in the first read's slice", () => {
    const { frames, reads } = readCut(wire, [16_384, 32_768, 49_152, 65_536]);
    assert.equal(frames.length, 1);
    const f = frames[0]!;
    assert.equal(f.channel, 3);
    assert.deepEqual(bodyBytes(f), wire.subarray(8));
    assert.equal(f.body.buffer, reads[0]!.buffer, "the body is the first read's slice");
    assert.equal(f.more!.length, 4);
    f.more!.forEach((m, i) => assert.equal(m.buffer, reads[i + 1]!.buffer, `piece ${i} is read ${i + 1}'s own bytes`));
  });

  it("copy only the performative when it straddles two reads", () => {
    for (const at of [3, 8, 9, 12, 8 + performative - 1]) {
      const { frames, reads } = readCut(wire, [at, 40_000]);
      const f = frames[0]!;
      assert.deepEqual(bodyBytes(f), wire.subarray(8), `cut at ${at}`);
      assert.equal(f.body.length, performative, `cut at ${at}: the body is the performative alone`);
      assert.ok(f.more!.every((m) => reads.some((r) => r.buffer === m.buffer)), `cut at ${at}: the payload is the reads' bytes`);
    }
  });

  it("give the frame's bytes at every cut", () => {
    const small = transfer(seededBytes(700, 7)).wire;
    for (let at = 1; at < small.length; at++) {
      const { frames } = readCut(small, [at]);
      assert.equal(frames.length, 1);
      assert.deepEqual(bodyBytes(frames[0]!), small.subarray(8), `cut at ${at}`);
    }
  });

  it("join any other frame, and a transfer the reader cannot measure", () => {
    const attach = performativeFrame(FRAME_AMQP, 0, PERFORMATIVE.attach, [{ type: "string", value: "x".repeat(600) }, u(0)]);
    const odd = Buffer.concat([Buffer.from([0, 0, 0, 0, 2, 0, 0, 0, 0x00, 0x53, 0x14, 0x99]), Buffer.alloc(500, 1)]);
    odd.writeUInt32BE(odd.length, 0);
    for (const w of [attach, odd]) {
      const [f] = readCut(w, [100, 300]).frames;
      assert.equal(f!.more, null);
      assert.deepEqual(f!.body, w.subarray(8));
    }
  });
});
