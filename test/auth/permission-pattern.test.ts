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

  it("refuses invalid patterns and the PCRE constructs JavaScript cannot express, naming them", () => {
    assert.match(String(patternError("(unclosed")), /invalid regular expression '\(unclosed'/);
    assert.match(String(patternError("(?>a+)b")), /atomic groups .* not supported/);
    assert.match(String(patternError("a*+b")), /possessive quantifiers .* not supported/);
    assert.match(String(patternError("(?R)")), /recursion .* not supported/);
    assert.match(String(patternError("(?=a)(?i)b")), /inline options past the start .* not supported/);
  });

  it("accepts RabbitMQ's look-ahead, look-behind and backreference patterns, with PCRE's meaning", () => {
    const notReserved = compilePattern("^(?!amq\\.).*");
    assert.ok(notReserved.matches("orders"));
    assert.ok(!notReserved.matches("amq.direct"));
    assert.ok(notReserved.matches("amqx"));
    const allBut = compilePattern("^(?!test\\.nosubscribe$).*");
    assert.ok(allBut.matches("test/x") && allBut.matches("test.nosubscribe.more"));
    assert.ok(!allBut.matches("test.nosubscribe"));
    assert.ok(compilePattern("(?<=eu-)orders").matches("eu-orders"));
    assert.ok(!compilePattern("(?<=eu-)orders").matches("us-orders"));
    assert.ok(compilePattern("^(\\w+)-\\1$").matches("ab-ab"));
    assert.ok(!compilePattern("^(\\w+)-\\1$").matches("ab-cd"));
    assert.ok(compilePattern("(?i)^(?!AMQ\\.)").matches("orders"));
    assert.ok(!compilePattern("(?i)^(?!AMQ\\.)").matches("amq.topic"));
    assert.ok(compilePattern("^(?!x)[[:alpha:]]+$").matches("abc"));
    assert.ok(!compilePattern("^(?!x)[[:alpha:]]+$").matches("ab1"));
    assert.ok(compilePattern("^(?!\\Qa.b\\E$)").matches("axb"));
    assert.ok(!compilePattern("^(?!\\Qa.b\\E$)").matches("a.b"));
    assert.equal(patternError("^(?!amq\\.).*"), null);
  });

  it("bounds a backtracking pattern's time: a runaway match counts as no match (PCRE's match limit)", () => {
    const p = compilePattern("^(?!z)(a+)+$");
    const start = process.hrtime.bigint();
    assert.equal(p.matches("a".repeat(40) + "b"), false);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    assert.ok(ms < 2000, `took ${ms} ms`);
    assert.equal(p.matches("aaaa"), true, "the same pattern still matches where it can decide");
  });

  it("runs in linear time on inputs that make backtracking engines explode", () => {
    const p = compilePattern("^(a+)+$");
    const start = process.hrtime.bigint();
    assert.equal(p.matches("a".repeat(5000) + "b"), false);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    assert.ok(ms < 2000, `took ${ms} ms`);
  });
});
