import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { InvalidPcreError, pcreToJs, UnsupportedPcreError } from "../../src/auth/pcre-translation.js";

describe("PCRE to JavaScript pattern translation", () => {
  it("keeps what both engines spell alike", () => {
    assert.deepEqual(pcreToJs("^(?!amq\\.)(?<=x)[a-z]+\\d*$"), { source: "^(?!amq\\.)(?<=x)[a-z]+\\d*$", flags: "" });
  });

  it("rewrites PCRE's own spellings", () => {
    assert.deepEqual(pcreToJs("(?i)\\Aab\\z"), { source: "^ab$", flags: "i" });
    assert.equal(pcreToJs("a\\Z").source, "a(?=\\n?$)");
    assert.equal(pcreToJs("(?P<n>a)(?P=n)").source, "(?<n>a)\\k<n>");
    assert.equal(pcreToJs("x(?#note)y").source, "xy");
    assert.equal(pcreToJs("\\Q.*\\E+").source, "\\.\\*+");
    assert.equal(pcreToJs("[[:digit:]_]").source, "[0-9_]");
    assert.equal(pcreToJs("[]a]").source, "[\\]a]");
    assert.equal(pcreToJs("\\x{41}").source, "\\u0041");
  });

  it("refuses what JavaScript cannot express", () => {
    for (const p of ["(?>a)", "a++", "a{2}+", "(?1)", "(?|a|b)", "a(?s)b", "\\K", "(?(1)a|b)", "[[:foo:]]"]) {
      assert.throws(() => pcreToJs(p), UnsupportedPcreError, p);
    }
  });
});

describe("PCRE's own refusals that JavaScript would accept", () => {
  it("refuses a look-behind that is not of fixed length, as PCRE does", () => {
    assert.throws(() => pcreToJs("(?<!a+)b"), InvalidPcreError);
    assert.throws(() => pcreToJs("(?<=a{1,3})b"), InvalidPcreError);
    assert.equal(pcreToJs("(?<=a{3}|bc)d").source, "(?<=a{3}|bc)d");
    assert.equal(pcreToJs("(?<=a)b+").source, "(?<=a)b+");
  });
});
