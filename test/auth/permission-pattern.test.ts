import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { compilePattern, patternError } from "../../src/auth/permission-pattern.js";

describe("permission patterns", () => {
  it("match unanchored, like RabbitMQ's re:run", () => {
    assert.ok(compilePattern("foo").matches("xfoo"));
    assert.ok(compilePattern(".*").matches("anything"));
    assert.ok(compilePattern("^orders-.*").matches("orders-eu"));
    assert.ok(!compilePattern("^orders-.*").matches("x-orders-eu"));
    assert.ok(compilePattern("^(a|b)_.*").matches("b_1"));
    assert.ok(!compilePattern("^(a|b)_.*").matches("c_1"));
    assert.ok(compilePattern("^$").matches(""));
    assert.ok(!compilePattern("^$").matches("q"));
    assert.ok(compilePattern("").matches(""));
    assert.ok(!compilePattern("").matches("q"));
  });

  it("refuses invalid and backtracking-only patterns instead of running them", () => {
    assert.match(String(patternError("(unclosed")), /invalid regular expression '\(unclosed'/);
    assert.ok(patternError("(a)\\1"), "backreferences are refused");
    assert.ok(patternError("(?=x)"), "lookahead is refused");
  });

  it("runs in linear time on inputs that make backtracking engines explode", () => {
    const p = compilePattern("^(a+)+$");
    const start = process.hrtime.bigint();
    assert.equal(p.matches("a".repeat(5000) + "b"), false);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    assert.ok(ms < 2000, `took ${ms} ms`);
  });
});
