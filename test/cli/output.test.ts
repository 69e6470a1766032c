// Unit tests of coneyctl's pure pieces: table cells, column requests, banner and table output.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { formatCell, Output, type OutputOptions } from "../../src/cli/output.js";
import { requestedColumns, unknownColumns, fields } from "../../src/cli/list-columns.js";

function capture(options: Partial<OutputOptions>) {
  let out = "";
  let err = "";
  const o = new Output({ quiet: false, silent: false, tableHeaders: true, formatter: "table", ...options }, { out: (t) => (out += t), err: (t) => (err += t) });
  return { o, text: () => ({ out, err }) };
}

describe("coneyctl output", () => {
  it("formats cells as rabbitmqctl's table formatter", () => {
    assert.equal(formatCell(["administrator", "management"]), "[administrator, management]");
    assert.equal(formatCell([]), "[]");
    assert.equal(formatCell({}), "[]");
    assert.equal(formatCell({ "x-max-length": 10 }), '{"x-max-length":10}');
    assert.equal(formatCell(true), "true");
    assert.equal(formatCell(null), "");
    assert.equal(formatCell(0), "0");
  });

  it("takes columns as separate or comma-separated arguments, and names the unknown ones", () => {
    assert.deepEqual(requestedColumns([], ["name", "messages"]), ["name", "messages"]);
    assert.deepEqual(requestedColumns(["name,durable", "messages"], ["name"]), ["name", "durable", "messages"]);
    assert.deepEqual(unknownColumns(["name,colour", "size"], fields("name")), ["colour", "size"]);
  });

  it("banner and headers obey -q, -s and --no-table-headers", () => {
    const cases: [Partial<OutputOptions>, string][] = [
      [{}, "Listing ...\na\tb\n1\t2\n"],
      [{ quiet: true }, "a\tb\n1\t2\n"],
      [{ silent: true }, "1\t2\n"],
      [{ tableHeaders: false }, "Listing ...\n1\t2\n"],
      [{ formatter: "json" }, '[{"a":1,"b":2}]\n'],
    ];
    for (const [options, expected] of cases) {
      const c = capture(options);
      c.o.banner("Listing ...");
      c.o.table(["a", "b"], [[1, 2]]);
      assert.equal(c.text().out, expected, JSON.stringify(options));
    }
  });

  it("errors go to stderr after rabbitmqctl's Error: line, or as JSON", () => {
    const t = capture({});
    t.o.error("User bob does not exist");
    assert.deepEqual(t.text(), { out: "", err: "Error:\nUser bob does not exist\n" });
    const j = capture({ formatter: "json" });
    j.o.error("User bob does not exist");
    assert.deepEqual(JSON.parse(j.text().err), { result: "error", message: "User bob does not exist" });
  });
});
