// coney-perf's lean client (`--client raw`): its frame scanner and confirm window alone, the
// publish template against the broker's own frame reader, and whole runs against a real broker.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FrameScanner } from "../../src/bench/frame-scanner.js";
import { ConfirmWindow, publishTemplate } from "../../src/bench/raw-load.js";
import { FrameReader } from "../../src/amqp/codec/frame-reader.js";
import { decodeMethod } from "../../src/amqp/codec/generated.js";
import { startTestBroker } from "../helpers/broker.js";
import { printedRate, runPerfCli } from "./perf-cli.js";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { AmqpRawConnection } from "../../src/bench/amqp-raw-client.js";
import { apiClient } from "../helpers/http-client.js";


/** The frames the scanner reports (body frames as their bytes, joined), each chunk wiped once pushed. */
function scanAll(chunks: Buffer[]): { frames: string[]; body: string } {
  const frames: string[] = [];
  let body = "";
  const scanner = new FrameScanner({
    frame: (type, channel, buf, start, end) => frames.push(`${type}/${channel}/${buf.toString("latin1", start, end)}`),
    body: (_channel, buf, start, end) => (body += buf.toString("latin1", start, end)),
  });
  for (const c of chunks) {
    scanner.push(c);
    c.fill(0); // as a reused read buffer would be
  }
  return { frames, body };
}

function frame(type: number, channel: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(7);
  h[0] = type;
  h.writeUInt16BE(channel, 1);
  h.writeUInt32BE(payload.length, 3);
  return Buffer.concat([h, payload, Buffer.from([0xce])]);
}

describe("the raw client's frame scanner", () => {
  const stream = Buffer.concat([frame(1, 1, Buffer.from("method-payload")), frame(2, 1, Buffer.from("header")), frame(3, 1, Buffer.from("0123456789abcdef")), frame(1, 0, Buffer.alloc(0))]);

  it("reports each frame whole however the bytes are cut, and keeps nothing of a chunk", () => {
    for (let cut = 1; cut <= stream.length; cut++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < stream.length; at += cut) chunks.push(Buffer.from(stream.subarray(at, at + cut)));
      // Each chunk is overwritten once pushed, as a reused read buffer would be.
      const seen = scanAll(chunks);
      assert.deepEqual(seen.frames, ["1/1/method-payload", "2/1/header", "1/0/"], `chunks of ${cut}`);
      assert.equal(seen.body, "0123456789abcdef", `chunks of ${cut}`);
    }
  });

  it("refuses a frame without its end octet", () => {
    const bad = Buffer.from(frame(1, 1, Buffer.from("x")));
    bad[bad.length - 1] = 0;
    assert.throws(() => scanAll([bad]), /frame end expected/);
  });
});

describe("the raw client's confirm window", () => {
  it("counts single and multiple confirms once each", () => {
    const w = new ConfirmWindow();
    w.published = 10;
    w.settle(3, false);
    w.settle(5, false);
    assert.equal(w.outstanding, 8);
    w.settle(4, true); // 1–4, tag 3 among them
    assert.equal(w.outstanding, 5);
    w.settle(2, true); // already settled
    w.settle(5, false);
    assert.equal(w.outstanding, 5);
    w.settle(10, true);
    assert.equal(w.outstanding, 0);
  });
});

describe("the raw client's publish template", () => {
  it("is a basic.publish, a content header and body frames of frame_max, the send time first in the body", () => {
    const t = publishTemplate("", "q", 10_000, true, 4096);
    const whole = Buffer.concat([t.head, t.tail]);
    whole.writeDoubleLE(1234.5, t.timeAt);
    const reader = new FrameReader(4096);
    reader.push(whole);
    const frames: Array<{ type: number; payload: Buffer }> = [];
    while (reader.next()) frames.push({ type: reader.type, payload: reader.payload() });
    assert.equal(decodeMethod(frames[0]!.payload).name, "basic.publish");
    assert.equal(frames[1]!.type, 2);
    assert.equal(Number(frames[1]!.payload.readBigUInt64BE(4)), 10_000);
    const bodies = frames.slice(2);
    assert.deepEqual(bodies.map((f) => f.payload.length), [4088, 4088, 1824]);
    assert.equal(bodies[0]!.payload.readDoubleLE(0), 1234.5);
  });
});

describe("coney-perf --client raw", () => {
  it("publishes with confirms and consumes bodies of many frames, with sensible latencies", async () => {
    const broker = await startTestBroker();
    try {
      const { stdout } = await runPerfCli(["--client", "raw", "--uri", broker.amqpUrl, "-z", "1", "-s", "70000", "--confirm", "50", "--persistent"]);
      const rate = (label: string): number => printedRate(stdout, label);
      assert.ok(rate("published") > 0, stdout);
      assert.ok(rate("consumed") > 0, stdout);
      // The send time is read back from each body: a mis-read one shows as a latency of years.
      const [, p50, p99] = /latency:\s+p50 ([\d.]+) ms, p99 ([\d.]+) ms/.exec(stdout) ?? [];
      assert.ok(Number(p50) >= 0 && Number(p99) < 5000, stdout);
      assert.equal(broker.broker.vhosts.get("/")!.queues.size, 0, "the run deletes what it declared");
    } finally {
      await broker.close();
    }
  });

  it("asks for the same frame_max as @cloudamqp/amqp-client, so brokers handle the same frames", async () => {
    const broker = await startTestBroker();
    const client = await new AMQPClient(broker.amqpUrl).connect();
    const raw = await AmqpRawConnection.open(broker.amqpUrl);
    try {
      // As the broker records them (the management API's connection records).
      const conns = (await apiClient(() => broker.httpUrl)("GET", "/api/connections?columns=name,frame_max")).json as Array<{ name: string; frame_max: number }>;
      assert.equal(conns.length, 2, JSON.stringify(conns));
      assert.equal(conns[0]!.frame_max, conns[1]!.frame_max, JSON.stringify(conns));
      assert.equal(raw.frameMax, client.frameMax);
      assert.ok(raw.frameMax > 4096, `amqp-client's own default, not the protocol's minimum: ${raw.frameMax}`);
    } finally {
      raw.close();
      await client.close();
      await broker.close();
    }
  });

  it("runs the size sweep too, and refuses an unknown client", async () => {
    const broker = await startTestBroker();
    try {
      const { stdout } = await runPerfCli(["sizes", "--client", "raw", "--uri", broker.amqpUrl, "--name", "coney", "--sizes", "16,300000", "-z", "1", "--confirm", "20"]);
      const lines = stdout.trim().split("\n");
      assert.equal(lines.length, 2 + 4, stdout);
      for (const line of lines.slice(2)) assert.doesNotMatch(line, /\| 0\/s \|/, "every run moved messages");
      await assert.rejects(runPerfCli(["--client", "fast", "--uri", broker.amqpUrl]), /unknown client fast: amqp-client or raw/);
    } finally {
      await broker.close();
    }
  });
});
