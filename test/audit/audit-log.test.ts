// Unit tests of the audit trail's pure pieces: the file log (a torn last line, rotation,
// retention by size and age with a fake clock) and the scrubbing of secrets.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuditLog } from "../../src/audit/audit-log.js";
import { scrubbed, type AuditEntry } from "../../src/audit/audit-entry.js";

const entry = (id: number, ts: number): AuditEntry => ({ id, at: new Date(ts).toISOString(), ts, node: "n", user: "u", auth: "basic", source: "http", peer: "", action: "policy.set", vhost: "/", name: `p${id}`, result: "ok" });
const retention = { maxBytes: 1e9, maxAgeMs: 1e12, fileSizeLimit: 1e9, syncIntervalMs: 1000 };

describe("AuditLog", () => {
  it("skips a line torn by a crash and writes on in a new file", () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-audit-unit-"));
    try {
      const log = new AuditLog(dir, retention, () => 10_000);
      log.open();
      log.append(entry(1, 1000));
      log.append(entry(2, 2000));
      log.close();
      appendFileSync(join(dir, "audit-00000001.jsonl"), '{"id":3,"at":"');
      const again = new AuditLog(dir, retention, () => 10_000);
      again.open();
      assert.deepEqual(again.list().map((e) => e.id), [1, 2]);
      assert.equal(again.lastId, 2);
      again.append(entry(3, 3000));
      again.close();
      assert.deepEqual(readdirSync(dir).sort(), ["audit-00000001.jsonl", "audit-00000002.jsonl"]);
      assert.equal(JSON.parse(readFileSync(join(dir, "audit-00000002.jsonl"), "utf8")).id, 3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("rotates past the file size and drops the oldest files past the total size, telling its tap", () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-audit-unit-"));
    try {
      const told: string[] = [];
      const log = new AuditLog(dir, { ...retention, fileSizeLimit: 1, maxBytes: 700 }, () => 10_000);
      log.tap = { auditAppended: (f) => told.push(`+${f}`), auditDropped: (f) => told.push(`-${f}`) };
      log.open();
      for (let i = 1; i <= 6; i++) {
        log.append(entry(i, i));
        log.flush();
      }
      const files = readdirSync(dir).sort();
      assert.ok(files.length < 6 && files.length >= 2, files.join());
      assert.equal(log.list()[0]!.id, 7 - files.length);
      assert.ok(told.includes("-audit/audit-00000001.jsonl"));
      assert.equal(told.filter((t) => t.startsWith("+")).length, 6);
      log.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("in memory, drops entries past the age and size limits", () => {
    let now = 10_000;
    const log = new AuditLog(null, { ...retention, maxAgeMs: 5_000, maxBytes: 10_000 }, () => now);
    log.append(entry(1, 6_000));
    log.append(entry(2, 9_000));
    assert.deepEqual(log.list().map((e) => e.id), [1, 2]);
    now = 12_000;
    assert.deepEqual(log.list().map((e) => e.id), [2]);
    now = 20_000;
    assert.deepEqual(log.list().map((e) => e.id), []);
  });
});

describe("scrubbed", () => {
  it("drops password and secret keys, masks URI passwords, keeps has_password", () => {
    assert.deepEqual(
      scrubbed({ name: "u", password: "p", password_hash: "h", passwordHash: "h", client_secret: "s", has_password: true, nested: [{ uri: "amqp://bob:hunter2@host/v", pass: "x" }] }),
      { name: "u", has_password: true, nested: [{ uri: "amqp://bob:***@host/v" }] },
    );
  });
});
