// The chart history (src/http/sample-history.ts), a pure piece driven with explicit times:
// retention levels, aligned points every incr back to age, idle objects kept at no cost.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SampleHistory, DEFAULT_RETENTION } from "../../src/http/sample-history.js";
import { RateSampler } from "../../src/http/rate-sampler.js";

const T0 = 1_800_000_000_000; // a multiple of every interval used here

describe("SampleHistory", () => {
  it("serves a point every incr seconds back to age, newest first, from the live value", () => {
    const h = new SampleHistory();
    for (let i = 0; i <= 120; i++) h.record("q", { messages: i }, T0 + i * 5000, "basic");
    const now = T0 + 600_000 + 1234;
    const points = h.samples("q", "messages", 999, now, 60, 10);
    assert.deepEqual(points[0], { sample: 999, timestamp: now });
    assert.deepEqual(points.slice(1).map((p) => p.timestamp), [0, 10, 20, 30, 40, 50, 60].map((s) => T0 + 600_000 - s * 1000));
    assert.deepEqual(points.slice(1).map((p) => p.sample), [120, 118, 116, 114, 112, 110, 108]);
  });

  it("keeps 10 minutes of 5 s points and an hour of 1 min points for a queue (RabbitMQ's basic policy)", () => {
    const h = new SampleHistory();
    // Two hours of samples every 5 s.
    for (let t = 0; t <= 7_200_000; t += 5000) h.record("q", { messages: t / 1000 }, T0 + t, "basic");
    const now = T0 + 7_200_000;
    const tenMinutes = h.samples("q", "messages", 7200, now, 600, 5);
    assert.equal(tenMinutes.length, 1 + 121 - 1, "the live point and 120 five-second points (the one at now is the live one)");
    const hour = h.samples("q", "messages", 7200, now, 3600, 60);
    assert.equal(hour.length, 1 + 60, "an hour of minute points");
    assert.equal(hour[hour.length - 1]!.sample, 3600, "the oldest is an hour back");
    const day = h.samples("q", "messages", 7200, now, 86400, 1800);
    assert.ok(day[day.length - 1]!.timestamp >= now - 3_600_000, "a queue's history ends after an hour");
  });

  it("keeps a day of points for the overview (the global policy)", () => {
    const h = new SampleHistory();
    for (let t = 0; t <= 86_400_000; t += 5000) h.record("overview-stats", { publish: 1 + t / 1000 }, T0 + t, "global");
    const now = T0 + 86_400_000;
    const day = h.samples("overview-stats", "publish", 86401, now, 86400, 1800);
    assert.equal(day.length, 1 + 48, "the live value, then 48 half-hour points back to a day ago (the point at now is the live one)");
    assert.equal(day[day.length - 1]!.sample, 1, "a day back");
    assert.equal(day[1]!.sample, 1 + 86400 - 1800);
  });

  it("stores nothing for objects whose counters were always zero, and reads them as zero", () => {
    const h = new SampleHistory();
    for (let i = 0; i < 10_000; i++) h.record(`queue-${i}`, { messages: 0, messages_ready: 0 }, T0, "basic");
    assert.equal(h.size, 0);
    const points = h.samples("queue-1", "messages", 0, T0 + 60_000, 60, 30);
    assert.deepEqual(points.map((p) => p.sample), [0, 0, 0]);
  });

  it("forgets objects that are gone", () => {
    const h = new SampleHistory();
    h.record("a", { messages: 1 }, T0, "basic");
    h.record("b", { messages: 1 }, T0, "basic");
    h.retain(new Set(["b"]));
    assert.equal(h.size, 1);
  });

  it("caps a range at 1,000 points whatever is asked", () => {
    const h = new SampleHistory({ global: [{ ageSeconds: 86400, intervalSeconds: 1 }], basic: DEFAULT_RETENTION.basic });
    for (let t = 0; t <= 20_000_000; t += 1000) h.record("o", { x: 1 }, T0 + t, "global");
    assert.ok(h.samples("o", "x", 1, T0 + 20_000_000, 86400, 1).length <= 1001);
  });
});

describe("RateSampler with history", () => {
  it("adds the history to _details when a range is asked, and only a rate otherwise", () => {
    let now = T0;
    let count = 0;
    const sampler = new RateSampler((visit) => visit("queue\u0000/\u0000q", { messages: count }), () => now, () => "basic");
    for (let i = 0; i < 30; i++) {
      count = i;
      sampler.tick();
      now += 5000;
    }
    const plain = sampler.withRates("queue\u0000/\u0000q", { messages: 30 });
    assert.deepEqual(Object.keys(plain["messages_details"] as object), ["rate"]);
    const charted = sampler.withSamples({ lengths: { age: 60, incr: 5 } }).withRates("queue\u0000/\u0000q", { messages: 30 });
    const d = charted["messages_details"] as unknown as { samples: Array<{ sample: number; timestamp: number }>; avg: number; avg_rate: number };
    assert.equal(d.samples.length, 1 + 12, "the live value and 12 points a minute back, on first request");
    assert.equal(d.samples[0]!.sample, 30);
    assert.equal(d.samples[1]!.sample, 29);
    assert.ok(d.avg_rate > 0);
  });
});
