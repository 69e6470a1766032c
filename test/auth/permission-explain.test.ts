// The permission explainer over a real UserRegistry: each check of the order can decide, the
// verdict always equals what PermissionChecker.allows enforces, and token users get their scopes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { PermissionChecker } from "../../src/auth/permission-check.js";
import { explainForUser, explainWithChecker, type ExplainQuery } from "../../src/auth/permission-explain.js";
import { ScopeGrants } from "../../src/auth/oauth/scope-grants.js";
import { UserRegistry } from "../../src/auth/user-registry.js";
import type { User } from "../../src/auth/user.js";

const user = (name: string, passwordHash = "hash"): User => ({ name, passwordHash, hashingAlgorithm: "rabbit_password_hashing_sha256", tags: [], limits: {}, isInternal: true });

function registry(): UserRegistry {
  const r = new UserRegistry();
  r.put(user("app"));
  r.put(user("guest"));
  r.put(user("nopass", ""));
  r.setPermission("app", "/", { configure: "^app_.*", write: "^(app_x|)$", read: "^app_" });
  r.setPermission("app", "topics", { configure: ".*", write: ".*", read: ".*" });
  r.setTopicPermission("app", "topics", { exchange: "events", write: "^eu\\.{username}\\.", read: "^eu\\." });
  return r;
}
const EXCHANGES: Record<string, string> = { events: "topic", "amq.topic": "topic", direct: "direct" };
const settings = { vhostExists: (v: string) => v === "/" || v === "other" || v === "topics", loopbackUsers: ["guest"], exchangeType: (_v: string, name: string) => EXCHANGES[name] };
const q = (o: Partial<ExplainQuery>): ExplainQuery => ({ user: "app", vhost: "/", permission: "configure", resource: "queue", name: "app_q", ...o });

describe("the permission explainer", () => {
  it("allows by pattern, naming the pattern that matched", () => {
    const e = explainForUser(registry(), settings, q({}));
    assert.equal(e.allowed, true);
    assert.equal(e.decided_by, "pattern");
    assert.deepEqual(e.checks.map((c) => [c.check, c.passed]), [["authentication", true], ["vhost_access", true], ["pattern", true]]);
    assert.equal(e.checks[2]!.pattern, "^app_.*");
    assert.equal(e.refusal, null);
  });

  it("refuses by pattern with the client's ACCESS_REFUSED text", () => {
    const e = explainForUser(registry(), settings, q({ permission: "write", resource: "exchange", name: "orders" }));
    assert.equal(e.allowed, false);
    assert.equal(e.decided_by, "pattern");
    assert.equal(e.checks[2]!.pattern, "^(app_x|)$");
    assert.equal(e.refusal, "ACCESS_REFUSED - access to exchange 'orders' in vhost '/' refused for user 'app'");
  });

  it("stops at vhost access when the user holds no permission there, or the vhost does not exist", () => {
    for (const vhost of ["other", "missing"]) {
      const e = explainForUser(registry(), settings, q({ vhost }));
      assert.equal(e.allowed, false);
      assert.equal(e.decided_by, "vhost_access");
      assert.equal(e.checks.length, 2, "the pattern is not consulted");
      assert.match(e.refusal!, /^NOT_ALLOWED - /);
    }
  });

  it("stops at authentication for an unknown user and a user without a password", () => {
    for (const name of ["nobody", "nopass"]) {
      const e = explainForUser(registry(), settings, q({ user: name }));
      assert.deepEqual([e.allowed, e.decided_by, e.checks.length], [false, "authentication", 1]);
      assert.match(e.refusal!, /^ACCESS_REFUSED - Login was refused/);
    }
  });

  it("notes loopback-only users without refusing them", () => {
    const r = registry();
    r.setPermission("guest", "/", { configure: ".*", write: ".*", read: ".*" });
    const e = explainForUser(r, settings, q({ user: "guest" }));
    assert.equal(e.allowed, true);
    assert.match(e.checks[0]!.reason, /localhost/);
  });

  it("always agrees with what the checker enforces", () => {
    const r = registry();
    const checker = new PermissionChecker(r, r.get("app")!);
    for (const permission of ["configure", "write", "read"] as const) {
      for (const name of ["", "app_q", "app_x", "orders", "xapp_"]) {
        for (const vhost of ["/", "other"]) {
          assert.equal(explainForUser(r, settings, q({ permission, name, vhost })).allowed, checker.allows(vhost, permission, name), `${permission} ${vhost} ${name}`);
        }
      }
    }
  });

  it("answers a token user from its scopes, naming the scope that allowed", () => {
    const r = registry();
    const token: User = { ...user("svc", ""), isInternal: false };
    const checker = new PermissionChecker(r, token, new ScopeGrants("rabbitmq", ["rabbitmq.read:%2F/logs-*", "rabbitmq.write:other/*"]));
    const auth = { check: "authentication" as const, passed: true, reason: "token" };
    const ok = explainWithChecker(checker, settings, q({ user: "svc", permission: "read", name: "logs-1" }), auth);
    assert.deepEqual([ok.allowed, ok.decided_by, ok.checks[2]!.scope], [true, "scope", "rabbitmq.read:%2F/logs-*"]);
    const no = explainWithChecker(checker, settings, q({ user: "svc", permission: "write", name: "x" }), auth);
    assert.deepEqual([no.allowed, no.decided_by, no.checks[2]!.scope], [false, "scope", null]);
    const noVhost = explainWithChecker(checker, { ...settings, vhostExists: () => true }, q({ user: "svc", vhost: "prod" }), auth);
    assert.deepEqual([noVhost.allowed, noVhost.decided_by], [false, "vhost_access"]);
  });

  it("checks a routing key against the topic permission of a topic exchange, as publishing does", () => {
    const r = registry();
    const topic = (routing_key: string, o: Partial<ExplainQuery> = {}) => explainForUser(r, settings, q({ vhost: "topics", permission: "write", resource: "exchange", name: "events", routing_key, ...o }));
    const ok = topic("eu.app.orders");
    assert.deepEqual([ok.allowed, ok.decided_by, ok.checks.map((c) => c.check)], [true, "topic", ["authentication", "vhost_access", "pattern", "topic"]]);
    assert.equal(ok.checks[3]!.topic_pattern, "^eu\\.{username}\\.");
    const no = topic("us.app.orders");
    assert.deepEqual([no.allowed, no.decided_by], [false, "topic"]);
    assert.equal(no.refusal, "ACCESS_REFUSED - access to topic 'us.app.orders' in exchange 'events' in vhost 'topics' refused for user 'app'");
    // The verdict is the one publishing is enforced with.
    const checker = new PermissionChecker(r, r.get("app")!);
    assert.throws(() => checker.checkTopic("topics", "events", "write", "us.app.orders"), (e: Error) => no.refusal!.endsWith(e.message));
    assert.doesNotThrow(() => checker.checkTopic("topics", "events", "write", "eu.app.orders"));
    const bind = topic("us.#", { permission: "read" });
    assert.deepEqual([bind.allowed, bind.decided_by], [false, "topic"], "binding keys against the read pattern");
    const unrestricted = topic("anything", { name: "amq.topic" });
    assert.deepEqual([unrestricted.allowed, unrestricted.checks[3]!.topic_pattern], [true, null], "no topic permission for the exchange: keys are free");
    const direct = topic("us.x", { name: "direct" });
    assert.equal(direct.allowed, true);
    assert.match(direct.checks[3]!.reason, /topic exchanges only/);
    assert.equal(topic("us.x", { permission: "configure" }).checks.length, 3, "configure has no topic step");
    assert.equal(explainForUser(r, settings, q({ vhost: "topics", permission: "write", resource: "exchange", name: "events" })).checks.length, 3, "no key, no topic step");
  });

  it("fills {client_id} with the question's MQTT client id, always as checkTopic enforces it for that client", () => {
    const r = registry();
    r.setTopicPermission("app", "topics", { exchange: "amq.topic", write: "^dev\\.{client_id}\\.", read: "^(dev|all)\\." });
    const checker = new PermissionChecker(r, r.get("app")!);
    for (const clientId of ["c1", "c2", undefined]) {
      checker.clientId = clientId ?? null;
      for (const permission of ["write", "read"] as const) {
        for (const key of ["dev.c1.t", "dev.c2.t", "all.x", "other"]) {
          const e = explainForUser(r, settings, q({ vhost: "topics", permission, resource: "exchange", name: "amq.topic", routing_key: key, ...(clientId ? { client_id: clientId } : {}) }));
          let enforced = true;
          try {
            checker.checkTopic("topics", "amq.topic", permission, key);
          } catch {
            enforced = false;
          }
          assert.equal(e.allowed, enforced, `${permission} ${key} as ${clientId}`);
          assert.equal(e.decided_by, "topic");
        }
      }
    }
  });
});
