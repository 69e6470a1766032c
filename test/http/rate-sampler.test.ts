// The rate sampler's arithmetic with a fake clock: rates are live (counted up to the request)
// against a baseline one to two sampling intervals old.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RateSampler } from "../../src/http/rate-sampler.js";

describe("RateSampler", () => {
  it("computes live rates against the older sample and forgets objects that are gone", () => {
    let now = 0;
    const counters = new Map<string, number>([["q", 0]]);
    const sampler = new RateSampler((visit) => {
      for (const [k, v] of counters) visit(k, { publish: v });
    }, () => now);
    sampler.tick(); // t=0: publish 0
    now = 5000;
    counters.set("q", 50);
    assert.deepEqual(sampler.withRates("q", { publish: 50 }), { publish: 50, publish_details: { rate: 10 } }, "50 in 5 s against the only sample");
    sampler.tick(); // t=5000: publish 50; t=0 becomes the baseline
    now = 7500;
    assert.deepEqual(sampler.withRates("q", { publish: 75 }), { publish: 75, publish_details: { rate: 10 } }, "75 in 7.5 s against t=0");
    sampler.tick(); // t=7500; baseline t=5000 (50)
    now = 10000;
    assert.deepEqual(sampler.withRates("q", { publish: 50 }), { publish: 50, publish_details: { rate: 0 } }, "no change over 5 s");
    counters.delete("q");
    sampler.tick();
    sampler.tick();
    now = 12000;
    // An object the sampler never saw counts from zero since the last sample.
    assert.deepEqual(sampler.withRates("q", { publish: 4 }), { publish: 4, publish_details: { rate: 2 } });
  });

  it("gives rate 0 before any sample and for a zero-length window", () => {
    const sampler = new RateSampler(() => {}, () => 1000);
    assert.deepEqual(sampler.withRates("x", { messages: 3 }), { messages: 3, messages_details: { rate: 0 } });
  });
});
