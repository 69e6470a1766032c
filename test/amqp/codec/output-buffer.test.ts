// Large bodies are referenced, not copied: the pieces taken out must still be the exact frames,
// whatever the mix of small frames, large bodies, buffer growth and back-patched sizes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { EXTERNAL_BODY_MIN, OutputBuffer } from "../../../src/amqp/codec/output-buffer.js";

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
});
