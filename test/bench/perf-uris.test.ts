// Where a perf worker connects (perf-options.ts uriOf): the broker's one address by default; with a
// spread cluster's addresses, producer and consumer i round-robin over their own lists.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_PERF_OPTIONS, uriOf } from "../../src/bench/perf-options.js";

describe("perf workers' addresses", () => {
  it("use uri when no list is given, or an empty one", () => {
    assert.equal(uriOf(DEFAULT_PERF_OPTIONS, "producer", 3), DEFAULT_PERF_OPTIONS.uri);
    assert.equal(uriOf({ ...DEFAULT_PERF_OPTIONS, consumerUris: [] }, "consumer", 0), DEFAULT_PERF_OPTIONS.uri);
  });

  it("take producer i and consumer i round-robin from their own lists", () => {
    const o = { ...DEFAULT_PERF_OPTIONS, producerUris: ["a", "b", "c"], consumerUris: ["b", "c", "a"] };
    assert.deepEqual([0, 1, 2, 3, 4].map((i) => uriOf(o, "producer", i)), ["a", "b", "c", "a", "b"]);
    assert.deepEqual([0, 1, 2, 3, 4].map((i) => uriOf(o, "consumer", i)), ["b", "c", "a", "b", "c"]);
  });
});
