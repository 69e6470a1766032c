// <data>/workers.json (src/workers/workers-file.ts): the group table written atomically and read back as it was.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initialTable, withoutWorker } from "../../src/workers/group-table.js";
import { loadTable, saveTable, WORKERS_FILE } from "../../src/workers/workers-file.js";

describe("workers.json", () => {
  it("reads back the table it wrote, names groups and workers, and leaves no temporary file", () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-workers-file-"));
    try {
      assert.equal(loadTable(dir), null, "none yet");
      const t = withoutWorker(initialTable(4, [0, 1]), 1, [0, 1]);
      saveTable(dir, t);
      assert.deepEqual(loadTable(dir), t);
      const json = JSON.parse(readFileSync(join(dir, WORKERS_FILE), "utf8"));
      assert.deepEqual(json.groups[1], { group: "g1", worker: "w0", epoch: 2 });
      assert.equal(json.queue_groups, 4);
      assert.deepEqual(readdirSync(dir), [WORKERS_FILE]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a file that is not a group table, naming it (its epochs must not be forgotten)", () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-workers-file-"));
    try {
      writeFileSync(join(dir, WORKERS_FILE), "{");
      assert.throws(() => loadTable(dir), /workers\.json: not JSON/);
      writeFileSync(join(dir, WORKERS_FILE), JSON.stringify({ format: 1, version: 1, queue_groups: 1, groups: [{ group: "g0", worker: "x", epoch: 1 }] }));
      assert.throws(() => loadTable(dir), /entry 0 names no worker/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
