// The link's stream frames as pure pieces: a stream query crosses whole (every kind, its reference
// and offset), a REPLY's numbers are read back however many it carries, and a consume's arguments
// keep their field-table types (a timestamp offset stays a Date, a table's arrays and booleans theirs).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeArguments, encodeArguments, STREAM_QUERY } from "../../src/node-link/link-frames.js";
import { replyError, replyNumbers } from "../../src/node-link/link-rpc.js";
import { readStreamQuery, replyValues, streamQueryFrame } from "../../src/node-link/stream-query-frames.js";
import { BrokerError } from "../../src/errors/broker-error.js";
import type { StreamQuery } from "../../src/broker/index.js";

describe("STREAM_QUERY frames", () => {
  const queries: StreamQuery[] = [
    { kind: "publisherSequence", reference: "pub-1" },
    { kind: "queryOffset", reference: "consumer-ref" },
    { kind: "storeOffset", reference: "consumer-ref", offset: 123_456_789 },
    { kind: "figures" },
  ];
  for (const q of queries) {
    it(`carries ${q.kind} with its ids`, () => {
      const f = streamQueryFrame(7, 42, q);
      assert.equal(f[4], STREAM_QUERY);
      assert.equal(f.readUInt32LE(0), f.length - 4, "the frame's length counts all after it");
      assert.deepEqual(readStreamQuery(f), { rpcId: 7, queueId: 42, query: q });
    });
  }

  it("reads an unknown kind as no query (answered with an error, not misread)", () => {
    const f = streamQueryFrame(1, 2, { kind: "figures" });
    f[5 + 8] = 99;
    assert.equal(readStreamQuery(f).query, null);
  });

  it("reads every number of an ok REPLY, and none of an error", () => {
    assert.deepEqual(replyValues(replyNumbers(3, [0, 10, 12, 9, 1])), [0, 10, 12, 9, 1]);
    assert.deepEqual(replyValues(replyNumbers(3, [])), []);
    assert.deepEqual(replyValues(replyError(3, new BrokerError("notFound", "gone"))), []);
  });
});

describe("a consume's arguments on the link", () => {
  it("keeps each field-table type", () => {
    const at = new Date(1_700_000_000_000);
    const args = { "x-stream-offset": at, "x-stream-filter": ["a", "b"], "x-stream-match-unfiltered": true, "x-long": 5_000_000_000n };
    const back = decodeArguments(encodeArguments(args));
    assert.ok(back["x-stream-offset"] instanceof Date);
    assert.equal((back["x-stream-offset"] as Date).getTime(), at.getTime());
    assert.deepEqual(back["x-stream-filter"], ["a", "b"]);
    assert.equal(back["x-stream-match-unfiltered"], true);
    // A long comes back as the codec reads one from a client (a number while it is safe): the same value a local consume sees.
    assert.equal(Number(back["x-long"]), 5_000_000_000);
  });
});
