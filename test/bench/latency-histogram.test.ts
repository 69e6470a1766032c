// Percentiles from log buckets: within a bucket's 2% of the true value, mergeable across processes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LatencyHistogram } from "../../src/bench/latency-histogram.js";

describe("LatencyHistogram", () => {
  it("gives percentiles within 2.5% and merges", () => {
    const a = new LatencyHistogram();
    const b = new LatencyHistogram();
    for (let i = 1; i <= 1000; i++) (i % 2 ? a : b).record(i / 10); // 0.1 .. 100 ms
    a.merge(new LatencyHistogram(b.counts));
    assert.equal(a.total, 1000);
    const p50 = a.percentile(0.5);
    const p99 = a.percentile(0.99);
    assert.ok(Math.abs(p50 - 50) / 50 < 0.025, `p50 ${p50}`);
    assert.ok(Math.abs(p99 - 99) / 99 < 0.025, `p99 ${p99}`);
    assert.ok(Number.isNaN(new LatencyHistogram().percentile(0.5)));
  });
});
