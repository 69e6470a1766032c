// The link's native stream read frames (src/node-link/stream-read-frames.ts, 70–75): what the
// connecting node writes is what the leader reads (every start kind, credit, the subscription's
// properties), and a link whose leader did not offer FEATURE_STREAM_READ (an earlier node) serves
// no such read: the stream protocol keeps its answer stream_not_available there.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { StreamStart } from "../../src/broker/index.js";
import { FRAME_HEAD } from "../../src/node-link/link-frames.js";
import { FEATURE_STREAM_READ, OUR_FEATURES } from "../../src/node-link/link-handshake.js";
import { LeaderLink } from "../../src/node-link/leader-link.js";
import { FrameSplitter } from "../../src/node-link/frame-splitter.js";
import { READ_CREDIT, READ_SUBSCRIBE, endOf, endedFrame, idFrame, readSubscribe, subscribeFrame } from "../../src/node-link/stream-read-frames.js";
import { socketPair } from "./socket-pair.js";

describe("the link's stream read frames", () => {
  const starts: StreamStart[] = [{ kind: "first" }, { kind: "last" }, { kind: "next" }, { kind: "offset", offset: 2 ** 40 + 3 }, { kind: "timestamp", ms: 1_790_000_000_123 }];
  for (const start of starts) {
    it(`READ_SUBSCRIBE carries a ${start.kind} start, the credit and the properties`, () => {
      const properties = new Map([["filter.1", "eu"], ["match-unfiltered", "true"], ["name", "été"]]);
      const f = subscribeFrame(7, 3, { start, credit: 65_535, properties });
      assert.equal(f[4], READ_SUBSCRIBE);
      assert.equal(f.readUInt32LE(0), f.length - 4);
      const r = readSubscribe(f);
      assert.equal(r.readId, 7);
      assert.equal(r.queueId, 3);
      assert.deepEqual(r.terms, { start, credit: 65_535, properties });
    });
  }

  it("an unknown start kind reads as no terms (the leader answers READ_ENDED)", () => {
    const f = subscribeFrame(1, 1, { start: { kind: "first" }, credit: 1, properties: new Map() });
    f[FRAME_HEAD + 12] = 9;
    assert.equal(readSubscribe(f).terms, null);
  });

  it("READ_CREDIT and READ_ENDED", () => {
    const c = idFrame(READ_CREDIT, 5, 12);
    assert.deepEqual([c[4], c.readUInt32LE(FRAME_HEAD), c.readUInt32LE(FRAME_HEAD + 4)], [READ_CREDIT, 5, 12]);
    assert.equal(endOf(endedFrame(5, "notFound")), "notFound");
    assert.equal(endOf(endedFrame(5, "unavailable")), "unavailable");
  });

  it("is offered by this version; a leader that did not offer it serves no read", async () => {
    assert.equal(OUR_FEATURES & FEATURE_STREAM_READ, FEATURE_STREAM_READ);
    const pair = await socketPair();
    try {
      const queue = { vhost: "/", name: "s", durable: true, autoDelete: false, exclusiveOwner: null, arguments: { "x-queue-type": "stream" } };
      const sink = { started: () => assert.fail("no read"), chunk: () => assert.fail("no read"), ended: () => assert.fail("no read"), update: () => assert.fail("no read") };
      const older = new LeaderLink(pair.out, { node: "older", creditMessages: 100, creditBytes: 1e6, features: OUR_FEATURES & ~FEATURE_STREAM_READ }, new FrameSplitter(1 << 20));
      assert.equal(older.readStream(queue as never, { start: { kind: "first" }, credit: 1, properties: new Map() }, sink), null);
      const ours = new LeaderLink(pair.inn, { node: "ours", creditMessages: 100, creditBytes: 1e6, features: OUR_FEATURES }, new FrameSplitter(1 << 20));
      const ended: string[] = [];
      assert.notEqual(ours.readStream(queue as never, { start: { kind: "first" }, credit: 1, properties: new Map() }, { ...sink, ended: (why) => ended.push(why) }), null);
      ours.close();
      assert.deepEqual(ended, ["unavailable"], "the link's loss ends the read");
    } finally {
      pair.close();
    }
  });
});
