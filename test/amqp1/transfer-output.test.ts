// Amqp1Output (amqp1-output.ts): frames written in one turn leave in one socket write, in order;
// a transfer's in-place head decodes (full decoder) to the fields it was given; a message larger
// than the peer's max-frame-size is cut into frames whose payloads join to the message.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { once } from "node:events";
import { Amqp1Output } from "../../src/amqp1/amqp1-output.js";
import { FrameReader } from "../../src/amqp1/amqp1-frames.js";
import { PERFORMATIVE, performativeFrame, readPerformative } from "../../src/amqp1/performatives.js";

/** A socket stand-in that records each write it gets (a real stream). */
function recorder(): { socket: PassThrough; writes: Buffer[] } {
  const socket = new PassThrough();
  const writes: Buffer[] = [];
  socket.on("data", (b: Buffer) => writes.push(b));
  return { socket, writes };
}

const frames = (bytes: Buffer): Array<{ channel: number; body: Buffer }> => new FrameReader(1 << 20).push(bytes).map((f) => ({ channel: f.channel, body: Buffer.from(f.body) }));

describe("AMQP 1.0 output", () => {
  it("writes a turn's frames in one socket write, in order, and the transfer head decodes to its fields", async () => {
    const { socket, writes } = recorder();
    const out = new Amqp1Output(socket);
    out.maxFrameSize = 4096;
    const flow = performativeFrame(0, 3, PERFORMATIVE.flow, [{ type: "uint", value: 1 }, { type: "uint", value: 2 }]);
    out.write(flow);
    const body = [Buffer.from([0x00, 0x53, 0x75, 0xa0, 4]), Buffer.from("abcd")];
    assert.equal(out.transfer(3, 7, 0xfffffff0, false, body), 1);
    assert.equal(out.transfer(3, 7, 0xfffffff1, true, body), 1);
    await once(socket, "data");
    assert.equal(writes.length, 1, "one write");
    assert.equal(out.sendCnt, 1);
    const got = frames(writes[0]!);
    assert.equal(got.length, 3);
    assert.deepEqual(got[0]!.body, flow.subarray(8));
    for (const [i, f] of got.slice(1).entries()) {
      assert.equal(f.channel, 3);
      const p = readPerformative(f.body);
      assert.equal(p.code, PERFORMATIVE.transfer);
      const id = 0xfffffff0 + i;
      const tag = Buffer.alloc(4);
      tag.writeUInt32BE(id);
      assert.deepEqual(p.fields, [
        { type: "uint", value: 7 },
        { type: "uint", value: id },
        { type: "binary", value: tag },
        { type: "uint", value: 0 },
        { type: "boolean", value: i === 1 },
        { type: "boolean", value: false },
      ]);
      assert.deepEqual(f.body.subarray(p.payloadAt), Buffer.concat(body));
    }
  });

  it("cuts a message over max-frame-size into frames with more set, whose payloads join to it", async () => {
    const { socket, writes } = recorder();
    const out = new Amqp1Output(socket);
    out.maxFrameSize = 512;
    const message = [Buffer.from([0x00, 0x53, 0x75, 0xb0, 0, 0, 0x27, 0x10]), Buffer.alloc(10000, 5).fill(6, 5000)];
    const n = out.transfer(0, 1, 42, false, message);
    await once(socket, "data");
    const got = frames(Buffer.concat(writes));
    assert.equal(got.length, n);
    assert.ok(n > 20);
    const payloads: Buffer[] = [];
    for (const [i, f] of got.entries()) {
      assert.ok(f.body.length + 8 <= 512);
      const p = readPerformative(f.body);
      assert.equal(p.fields[5]?.type === "boolean" && p.fields[5].value, i < n - 1, `more on frame ${i}`);
      payloads.push(f.body.subarray(p.payloadAt));
    }
    assert.deepEqual(Buffer.concat(payloads), Buffer.concat(message));
  });

  it("flush() writes at once (before the socket is ended)", () => {
    const socket = new PassThrough(); // not flowing: what is written stays readable
    const out = new Amqp1Output(socket);
    out.write(Buffer.from("AMQP\x00\x01\x00\x00", "latin1"));
    assert.equal(socket.readableLength, 0, "buffered until the end of the turn");
    out.flush();
    assert.equal(out.sendOct, 8);
    assert.equal(socket.readableLength, 8);
    assert.equal((socket.read() as Buffer).toString("latin1"), "AMQP\x00\x01\x00\x00");
  });
});
