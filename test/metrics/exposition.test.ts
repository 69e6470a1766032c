// The text-format writer on its own: escapes, number formats, family and sample lines, and that
// many lines come out whole and in order.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Exposition, formatValue, labelPair } from "../../src/metrics/exposition.js";
import { parseExposition } from "./exposition-parser.js";

describe("exposition writer", () => {
  it("escapes label values as the format requires", () => {
    assert.equal(labelPair("queue", "plain"), 'queue="plain"');
    assert.equal(labelPair("queue", 'a "b" \\ c\nd'), 'queue="a \\"b\\" \\\\ c\\nd"');
    assert.equal(labelPair("vhost", "/ünï"), 'vhost="/ünï"');
  });

  it("formats numbers as Prometheus reads them", () => {
    assert.deepEqual([0, 42, 1.5, 1e21, NaN, Infinity, -Infinity].map(formatValue), ["0", "42", "1.5", "1e+21", "NaN", "+Inf", "-Inf"]);
  });

  it("writes TYPE and HELP before samples and keeps 20,000 lines whole and in order", () => {
    const out = new Exposition();
    out.family("x_total", "counter", "help with \\ and\nnewline");
    for (let i = 0; i < 20_000; i++) out.sample("x_total", labelPair("queue", `q${i}`), i);
    out.family("y", "gauge", "plain");
    out.sample("y", "", 7);
    const text = out.text();
    assert.ok(text.startsWith("# TYPE x_total counter\n# HELP x_total help with \\\\ and\\nnewline\n"));
    const [x, y] = parseExposition(text);
    assert.equal(x!.help, "help with \\ and\nnewline");
    assert.equal(x!.samples.length, 20_000);
    assert.ok(x!.samples.every((s, i) => s.labels["queue"] === `q${i}` && s.value === i));
    assert.deepEqual(y, { name: "y", type: "gauge", help: "plain", samples: [{ name: "y", labels: {}, value: 7 }] });
  });
});
