// The audit trail through the real management API and coneyctl: who changed a permission, from
// where, before and after; refused changes; administrators only; never a password or a hash;
// kept across a restart; exported as JSON lines; and retention by size.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { ctl } from "../cli/run-coneyctl.js";

const AUDIT = "/api/coney/audit";

function auditFilesText(dataDir: string): string {
  const dir = join(dataDir, "audit");
  return readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8")).join("");
}

describe("audit trail", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker({ auditSyncInterval: 5 });
    await api("PUT", "/api/users/alice", { password: "alice-pw", tags: "" });
    await api("PUT", "/api/users/mona", { password: "mona-pw", tags: "monitoring" });
  });
  after(() => broker.close());

  it("records a permission change made over HTTP with the user, source, peer and before/after", async () => {
    await api("PUT", "/api/permissions/%2F/alice", { configure: "^a$", write: "^a$", read: "^a$" });
    await api("PUT", "/api/permissions/%2F/alice", { configure: "^b$", write: "^b$", read: "^b$" });
    const r = await api("GET", `${AUDIT}?action=permission.set&object=alice`);
    assert.equal(r.status, 200);
    const [newest, first] = r.json;
    assert.deepEqual(
      { user: newest.user, auth: newest.auth, source: newest.source, vhost: newest.vhost, name: newest.name, result: newest.result, before: newest.before, after: newest.after },
      { user: "guest", auth: "basic", source: "http", vhost: "/", name: "alice", result: "ok", before: { configure: "^a$", write: "^a$", read: "^a$" }, after: { configure: "^b$", write: "^b$", read: "^b$" } },
    );
    assert.match(newest.peer, /^127\.0\.0\.1:\d+$/);
    assert.equal(first.before, null);
    assert.ok(newest.id > first.id, "newest first");
    assert.ok(Math.abs(Date.parse(newest.at) - Date.now()) < 60_000);
  });

  it("records a permission change made with coneyctl as source cli", async () => {
    const r = await ctl(broker, ["set_permissions", "-p", "/", "alice", "^c$", "^c$", "^c$"]);
    assert.equal(r.code, 0, r.stderr);
    const [e] = (await api("GET", `${AUDIT}?action=permission.set&object=alice`)).json;
    assert.deepEqual({ user: e.user, source: e.source, before: e.before, after: e.after }, { user: "guest", source: "cli", before: { configure: "^b$", write: "^b$", read: "^b$" }, after: { configure: "^c$", write: "^c$", read: "^c$" } });
    const listed = await ctl(broker, ["list_audit", "--action", "permission.set"]);
    assert.equal(listed.code, 0, listed.stderr);
    const lines = listed.stdout.split("\n");
    assert.match(lines[0]!, /^Listing audit entries \.\.\.$/);
    assert.match(lines[1]!, /^id\tat\tuser\tsource\tpeer\taction\tvhost\tname\tresult$/);
    assert.match(lines[2]!, /\tguest\tcli\t127\.0\.0\.1:\d+\tpermission\.set\t\/\talice\tok$/);
  });

  it("records a refused change with its error and changes nothing", async () => {
    const bad = await api("PUT", "/api/permissions/%2F/alice", { configure: "(", write: ".*", read: ".*" });
    assert.equal(bad.status, 400);
    const [e] = (await api("GET", `${AUDIT}?action=permission.set&result=error`)).json;
    assert.equal(e.name, "alice");
    assert.deepEqual(e.after, { configure: "(", write: ".*", read: ".*" });
    assert.equal(e.error.error, "bad_request");
    assert.equal(broker.broker.users.permission("alice", "/")!.configure, "^c$");
  });

  it("answers non-administrators 403 as the other admin-only routes do", async () => {
    const other = await api("GET", "/api/users", undefined, "mona:mona-pw");
    const audit = await api("GET", AUDIT, undefined, "mona:mona-pw");
    assert.equal(audit.status, 403);
    assert.deepEqual(audit.json, other.json);
    assert.equal((await api("GET", `${AUDIT}?format=jsonl`, undefined, "mona:mona-pw")).status, 403);
    assert.equal((await ctl(broker, ["--username", "mona", "--password", "mona-pw", "list_audit"])).code !== 0, true);
  });

  it("never holds a password or a password hash, in the files or the API's answers", async () => {
    const password = "Sup3r-Secret-Passw0rd";
    await api("PUT", "/api/users/carol", { password, tags: "" });
    const hash = broker.broker.users.get("carol")!.passwordHash;
    await api("PUT", "/api/users/dave", { password_hash: hash, tags: "" });
    await api("POST", "/api/definitions", { users: [{ name: "erin", password_hash: hash, hashing_algorithm: "rabbit_password_hashing_sha256", tags: "" }] });
    await api("PUT", "/api/users/carol", { password: `${password}-2`, tags: "management" });
    await api("PUT", "/api/global-parameters/shovel-uri", { value: { uri: `amqp://carol:${password}@remote/`, password } });
    const json = await api("GET", AUDIT);
    const users = json.json.filter((e: { action: string }) => e.action === "user.put").map((e: { name: string }) => e.name);
    for (const u of ["carol", "dave", "erin"]) assert.ok(users.includes(u), `user.put of ${u} recorded`);
    assert.ok(json.json.some((e: { action: string }) => e.action === "definitions.import"));
    const carol = json.json.find((e: { name: string; action: string }) => e.name === "carol" && e.action === "user.put");
    assert.deepEqual(carol.after, { name: "carol", tags: ["management"], limits: {}, hashing_algorithm: "rabbit_password_hashing_sha256", has_password: true });
    const jsonl = await (await fetch(`${broker.httpUrl}${AUDIT}?format=jsonl`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } })).text();
    await eventually(() => auditFilesText(broker.dataDir).includes('"shovel-uri"'), 5000, "the audit file to be written");
    for (const [where, text] of [["API", JSON.stringify(json.json)], ["export", jsonl], ["files", auditFilesText(broker.dataDir)]] as const) {
      assert.ok(!text.includes(password), `${where} holds the password`);
      assert.ok(!text.includes(hash), `${where} holds the hash`);
      assert.ok(!text.includes(broker.broker.users.get("carol")!.passwordHash), `${where} holds the new hash`);
    }
  });

  it("exports JSON lines, pages newest first and filters", async () => {
    const res = await fetch(`${broker.httpUrl}${AUDIT}?format=jsonl&object=alice`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^application\/x-ndjson/);
    const lines = (await res.text()).trimEnd().split("\n").map((l) => JSON.parse(l) as { name: string; id: number });
    assert.ok(lines.length >= 4);
    assert.ok(lines.every((l) => l.name === "alice"));
    const page = await api("GET", `${AUDIT}?page=1&page_size=2`);
    assert.equal(page.json.items.length, 2);
    assert.ok(page.json.items[0].id > page.json.items[1].id);
    assert.equal(page.json.total_count, (await api("GET", AUDIT)).json.length);
    assert.equal((await api("GET", `${AUDIT}?since=nonsense`)).status, 400);
    const one = await api("GET", `${AUDIT}/${lines[0]!.id}`);
    assert.equal(one.json.id, lines[0]!.id);
    assert.equal((await api("GET", `${AUDIT}/999999`)).status, 404);
  });
});

describe("audit trail on disk", () => {
  it("survives a restart, and ids continue", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-audit-"));
    try {
      let broker = await startTestBroker({ dataDir });
      const api = apiClient(() => broker.httpUrl);
      await api("PUT", "/api/vhosts/kept");
      await api("PUT", "/api/policies/kept/p1", { pattern: ".*", definition: { "max-length": 1 } });
      const before = (await api("GET", AUDIT)).json as Array<{ id: number; action: string }>;
      await broker.close();
      broker = await startTestBroker({ dataDir });
      const afterRestart = (await api("GET", AUDIT)).json as Array<{ id: number; action: string }>;
      assert.deepEqual(afterRestart, before);
      await api("DELETE", "/api/policies/kept/p1");
      const [newest] = (await api("GET", AUDIT)).json as Array<{ id: number; action: string; before: unknown }>;
      assert.equal(newest!.action, "policy.clear");
      assert.equal(newest!.id, before[0]!.id + 1);
      assert.deepEqual(newest!.before, { vhost: "kept", name: "p1", pattern: ".*", applyTo: "all", definition: { "max-length": 1 }, priority: 0 });
      await broker.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("retention drops the oldest files past the size limit", async () => {
    const broker = await startTestBroker({ auditSyncInterval: 1, auditFileSizeLimit: 600, auditMaxBytes: 2400 });
    try {
      const api = apiClient(() => broker.httpUrl);
      for (let i = 0; i < 40; i++) {
        await api("PUT", `/api/global-parameters/p${i}`, { value: i });
        // Each change its own batch, so files fill and rotate as they would over time.
        await eventually(() => auditFilesText(broker.dataDir).includes(`"p${i}"`), 5000, `entry p${i} on disk`);
      }
      const dir = join(broker.dataDir, "audit");
      const files = readdirSync(dir);
      const total = files.reduce((n, f) => n + readFileSync(join(dir, f)).length, 0);
      assert.ok(files.length >= 2 && total <= 2400 + 600, `${files.length} files, ${total} bytes`);
      const names = ((await api("GET", AUDIT)).json as Array<{ name: string }>).map((e) => e.name);
      assert.ok(names.includes("p39"));
      assert.ok(!names.includes("p0"), "the oldest entries are gone");
      assert.equal(auditFilesText(broker.dataDir).includes('"p0"'), false);
    } finally {
      await broker.close();
    }
  });

  it("retention drops entries past the age limit", async () => {
    const broker = await startTestBroker({ inMemory: true, auditMaxAge: 1 });
    try {
      const api = apiClient(() => broker.httpUrl);
      await api("PUT", "/api/global-parameters/old", { value: 1 });
      assert.equal((await api("GET", `${AUDIT}?object=old`)).json.length, 1);
      await eventually(async () => (await api("GET", `${AUDIT}?object=old`)).json.length === 0, 5000, "the entry to age out");
    } finally {
      await broker.close();
    }
  });
});
