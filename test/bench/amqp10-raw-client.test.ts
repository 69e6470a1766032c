// coney-perf's lean AMQP 1.0 client (`coney-perf amqp10`, --client raw by default): its frame
// scanner alone, the transfer frames it sends read back by the broker's own frame reader and
// message decoder, and whole runs of both clients against a real broker.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Amqp10FrameScanner } from "../../src/bench/amqp10-frame-scanner.js";
import { messageFrames } from "../../src/bench/amqp10-raw-load.js";
import { FrameReader, frameHeader } from "../../src/amqp1/amqp1-frames.js";
import { performativeFrame, PERFORMATIVE, readPerformative } from "../../src/amqp1/performatives.js";
import { encodeAmqp10 } from "../../src/amqp10/amqp10-encoder.js";
import { described } from "../../src/amqp1/performatives.js";
import { decodeMessage } from "../../src/amqp10/message-sections.js";
import { startTestBroker } from "../helpers/broker.js";
import { runPerfCli } from "./perf-cli.js";

const uint = (value: number) => ({ type: "uint", value }) as const;
const bool = (value: boolean) => ({ type: "boolean", value }) as const;

/** A transfer frame as another broker might encode it (the generic encoder: small uints, a tag of 1 byte), with a payload. */
function transferFrame(handle: number, id: number | null, settled: boolean, more: boolean, payload: Buffer): Buffer {
  const perf = encodeAmqp10(described(PERFORMATIVE.transfer, [uint(handle), id === null ? { type: "null" } : uint(id), id === null ? { type: "null" } : { type: "binary", value: Buffer.from([id & 0xff]) }, uint(0), bool(settled), bool(more)]));
  return Buffer.concat([frameHeader(perf.length + payload.length, 0, 0), perf, payload]);
}

/** What the scanner reports, each chunk wiped once pushed (as the reused read buffer is). */
function scanAll(chunks: Buffer[], protocolHeaderFirst: boolean): string[] {
  const seen: string[] = [];
  const scanner = new Amqp10FrameScanner({
    protocolHeader: (b) => seen.push(`header ${b.toString("latin1", 0, 4)}${b[4]}`),
    frame: (type, channel, buf, start, end) => seen.push(`frame ${type}/${channel} 0x${readPerformative(buf.subarray(start, end)).code.toString(16)}`),
    transfer: (channel, i) => seen.push(`transfer ${channel} h${i.handle} id${i.deliveryId} ${i.settled ? "settled" : "unsettled"}${i.more ? " more" : ""}`),
  });
  if (protocolHeaderFirst) scanner.expectProtocolHeader();
  for (const c of chunks) {
    scanner.push(c);
    c.fill(0xee);
  }
  return seen;
}

describe("the lean AMQP 1.0 client's frame scanner", () => {
  // An extended header (data offset 3 words) on the flow frame, an empty (heartbeat) frame, transfers small and large.
  const flow = performativeFrame(0, 0, PERFORMATIVE.flow, [uint(0), uint(100), uint(0), uint(100), uint(0), uint(0), uint(50)]);
  const extended = Buffer.concat([flow.subarray(0, 8), Buffer.alloc(4), flow.subarray(8)]);
  extended.writeUInt32BE(flow.length + 4, 0);
  extended[4] = 3;
  const stream = Buffer.concat([
    Buffer.from("AMQP\x00\x01\x00\x00", "latin1"),
    performativeFrame(0, 0, PERFORMATIVE.open, [{ type: "string", value: "c" }]),
    extended,
    Buffer.from([0, 0, 0, 8, 2, 0, 0, 0]),
    transferFrame(0, 7, false, true, Buffer.alloc(300, 1)),
    transferFrame(0, null, false, false, Buffer.alloc(20, 2)),
    transferFrame(2, 300, true, false, Buffer.alloc(3, 3)),
  ]);
  const expected = ["header AMQP0", "frame 0/0 0x10", "frame 0/0 0x13", "transfer 0 h0 id7 unsettled more", "transfer 0 h0 id-1 unsettled", "transfer 0 h2 id300 settled"];

  it("reports frames and transfers however the bytes are cut, and keeps nothing of a chunk", () => {
    for (let cut = 1; cut <= stream.length; cut += cut < 40 ? 1 : 7) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < stream.length; at += cut) chunks.push(Buffer.from(stream.subarray(at, at + cut)));
      assert.deepEqual(scanAll(chunks, true), expected, `chunks of ${cut}`);
    }
  });

  it("refuses a malformed frame header", () => {
    assert.throws(() => scanAll([Buffer.from([0, 0, 0, 4, 2, 0, 0, 0])], false), /malformed frame/);
  });
});

describe("the lean client's transfer frames", () => {
  it("are transfers the broker's reader takes: one data section of the size, cut at max-frame-size, each frame's delivery id patched", () => {
    const frames = messageFrames(200_000, false, 131072);
    assert.equal(frames.length, 2);
    const wire = Buffer.concat(
      frames.flatMap((t) => {
        const head = Buffer.from(t.head);
        head.writeUInt32BE(42, 20);
        head.writeUInt32BE(42, 26);
        return [head, t.payload];
      }),
    );
    const reader = new FrameReader(131072);
    const read = reader.push(wire).map((f) => ({ ...f, body: Buffer.from(f.body) }));
    assert.equal(read.length, 2);
    const payload: Buffer[] = [];
    read.forEach((f, i) => {
      const p = readPerformative(f.body);
      assert.equal(p.code, PERFORMATIVE.transfer);
      assert.deepEqual(p.fields.slice(0, 6).map((x) => ("value" in x ? (Buffer.isBuffer(x.value) ? x.value.readUInt32BE(0) : x.value) : null)), [0, 42, 42, 0, false, i === 0]);
      payload.push(f.body.subarray(p.payloadAt));
    });
    const message = decodeMessage(Buffer.concat(payload));
    assert.deepEqual((message.data ?? []).map((d) => d.length), [200_000]);
  });

  it("settled or not as the mode says, and a small message in one frame", () => {
    const [only, ...rest] = messageFrames(16, true, 131072);
    assert.equal(rest.length, 0);
    const p = readPerformative(Buffer.concat([only!.head, only!.payload]).subarray(8));
    assert.deepEqual([p.fields[4], p.fields[5]], [bool(true), bool(false)]);
  });
});

describe("coney-perf amqp10", () => {
  const received = (stdout: string): number => Number(/received ([\d,]+) msg\/s/.exec(stdout)?.[1]?.replaceAll(",", ""));

  it("moves messages with the lean client (unsettled and pre-settled, one frame and several) and with rhea, and deletes its queue", async () => {
    const broker = await startTestBroker();
    try {
      for (const args of [
        ["-s", "16"],
        ["-s", "300000", "--mode", "settled"],
        ["-s", "70000", "--client", "rhea"],
      ]) {
        const { stdout } = await runPerfCli(["amqp10", "--url", broker.amqpUrl, "-z", "1", ...args]);
        assert.ok(received(stdout) > 0, stdout);
        assert.match(stdout, /client CPU sender \d+%, receiver \d+% of a core/);
        assert.equal(broker.broker.vhosts.get("/")!.queues.size, 0, "the run deletes its queue");
      }
      await assert.rejects(runPerfCli(["amqp10", "--client", "fast", "--url", broker.amqpUrl]), /unknown client fast: raw or rhea/);
    } finally {
      await broker.close();
    }
  });
});
