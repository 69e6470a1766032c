// Failed-login throttling as a pure piece with a fake clock.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LoginThrottle } from "../../src/auth/login-throttle.js";

describe("login throttle", () => {
  it("lets a few failures pass, then backs off doubling, and forgets on success", () => {
    let now = 0;
    const t = new LoginThrottle({ freeFailures: 3, windowMs: 60_000, maxBackoffMs: 8000, maxAddresses: 2 }, () => now);
    for (let i = 0; i < 3; i++) t.failed("a");
    assert.equal(t.waitFor("a"), 0);
    t.failed("a");
    assert.equal(t.waitFor("a"), 1000);
    t.failed("a");
    assert.equal(t.waitFor("a"), 2000);
    for (let i = 0; i < 10; i++) t.failed("a");
    assert.equal(t.waitFor("a"), 8000, "capped");
    assert.equal(t.waitFor("b"), 0, "per address");
    now += 8000;
    assert.equal(t.waitFor("a"), 0);
    t.succeeded("a");
    t.failed("a");
    assert.equal(t.waitFor("a"), 0);
  });

  it("tracks a bounded number of addresses", () => {
    const t = new LoginThrottle({ freeFailures: 0, windowMs: 60_000, maxBackoffMs: 1000, maxAddresses: 2 }, () => 0);
    t.failed("a");
    t.failed("b");
    t.failed("c");
    assert.equal(t.waitFor("a"), 0, "the oldest was dropped");
    assert.ok(t.waitFor("c") > 0);
  });
});
