// The recurring reasons (src/errors/reasons.ts): each is RabbitMQ's text with its catalogue
// entry, and no (kind, text) pair is written out twice in src/ — a text that recurs gets one
// constructor, in reasons.ts or beside its rule, so tools matching on it see one spelling.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import * as reasons from "../../src/errors/reasons.js";

const SRC = new URL("../../../src/", import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

describe("recurring error reasons", () => {
  it("are RabbitMQ's texts with their HTTP statuses", () => {
    const seen = (e: { kind: string; reason: string; spec: { httpStatus: number } }): [string, string, number] => [e.kind, e.reason, e.spec.httpStatus];
    assert.deepEqual(seen(reasons.objectNotFound()), ["objectNotFound", "Not Found", 404]);
    assert.deepEqual(seen(reasons.vhostNotFound()), ["notFound", "vhost_not_found", 404]);
    assert.deepEqual(seen(reasons.vhostOrUserNotFound()), ["badRequest", "vhost_or_user_not_found", 400]);
    assert.deepEqual(seen(reasons.loginFailed()), ["notAuthorized", "Login failed", 401]);
    assert.deepEqual(seen(reasons.notAuthorisedForObject()), ["forbidden", "User not authorised to access object", 403]);
    assert.deepEqual(seen(reasons.notAuthorisedForVhost()), ["forbidden", "User not authorised to access virtual host", 403]);
    assert.deepEqual(seen(reasons.notManagementUser()), ["forbidden", "Not management user", 403]);
    assert.deepEqual(seen(reasons.notAdministrator()), ["forbidden", "Not administrator user", 403]);
    assert.deepEqual(seen(reasons.notMonitor()), ["forbidden", "Not monitor user", 403]);
  });

  it("no (kind, literal text) pair is written out more than once in src/", () => {
    const pair = /new BrokerError\("(\w+)", ("(?:[^"\\]|\\.)*")\)/g;
    const where = new Map<string, string[]>();
    for (const file of sources(SRC)) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(pair)) {
        const key = `${m[1]} ${m[2]}`;
        where.set(key, [...(where.get(key) ?? []), file.slice(SRC.length)]);
      }
    }
    const repeated = [...where].filter(([, files]) => files.length > 1).map(([key, files]) => `${key}: ${files.join(", ")}`);
    assert.deepEqual(repeated, [], "give each recurring reason one constructor (src/errors/reasons.ts)");
    assert.ok(where.size > 20, `the scan found the literal reasons (${where.size})`);
  });
});
