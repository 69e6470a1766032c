// GET /api/coney/explain-permission on a real broker: verdicts agree with real AMQP and HTTP
// operations, administrators may ask about anyone, other users only about themselves (an OAuth 2.0
// user from its token's scopes), and bad queries are 400.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { oauthFixture, type OAuthFixture } from "../helpers/oauth-tokens.js";

const PATH = "/api/coney/explain-permission";
const query = (o: Record<string, string>): string => `${PATH}?${new URLSearchParams(o).toString()}`;

describe("the permission explainer endpoint", () => {
  let broker: TestBroker;
  let oauth: OAuthFixture;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    oauth = oauthFixture();
    broker = await startTestBroker({ ...oauth.config });
    await api("PUT", "/api/vhosts/other", {});
    await api("PUT", "/api/users/app", { password: "pw", tags: "management" });
    await api("PUT", "/api/users/ops", { password: "pw", tags: "monitoring" });
    assert.equal((await api("PUT", "/api/permissions/%2f/app", { configure: "^app_.*", write: "^app_.*", read: "^app_.*" })).status, 204);
  });
  after(async () => {
    await broker.close();
    rmSync(oauth.dir, { recursive: true, force: true });
  });

  it("explains an allowed and a refused operation, and the broker agrees over AMQP", async () => {
    const ok = await api("GET", query({ user: "app", vhost: "/", permission: "configure", resource: "queue", name: "app_jobs" }));
    assert.equal(ok.status, 200);
    assert.deepEqual([ok.json.allowed, ok.json.decided_by, ok.json.checks[2].pattern], [true, "pattern", "^app_.*"]);
    const no = await api("GET", query({ user: "app", vhost: "/", permission: "configure", resource: "queue", name: "jobs" }));
    assert.deepEqual([no.json.allowed, no.json.decided_by], [false, "pattern"]);
    assert.equal(no.json.refusal, "ACCESS_REFUSED - access to queue 'jobs' in vhost '/' refused for user 'app'");

    const conn = await amqp.connect(broker.urlFor("app", "pw"));
    try {
      const ch = await conn.createChannel();
      ch.on("error", () => undefined); // the refusal closes the channel; the rejection below is the assertion
      await ch.assertQueue("app_jobs");
      await assert.rejects(ch.assertQueue("jobs"), (err: Error) => err.message.includes(no.json.refusal));
    } finally {
      await conn.close().catch(() => undefined);
    }
  });

  it("refuses at vhost access and at authentication, naming the check", async () => {
    const vhost = await api("GET", query({ user: "app", vhost: "other", permission: "read", name: "app_q" }));
    assert.deepEqual([vhost.json.allowed, vhost.json.decided_by, vhost.json.checks.length], [false, "vhost_access", 2]);
    await assert.rejects(amqp.connect(broker.urlFor("app", "pw", "other")));
    const unknown = await api("GET", query({ user: "ghost", vhost: "/", permission: "read", name: "q" }));
    assert.deepEqual([unknown.json.allowed, unknown.json.decided_by], [false, "authentication"]);
  });

  it("lets administrators ask about anyone and others only about themselves", async () => {
    const about = (user: string) => query({ user, vhost: "/", permission: "read", name: "app_q" });
    assert.equal((await api("GET", about("app"), undefined, "ops:pw")).status, 403);
    assert.deepEqual((await api("GET", about("app"), undefined, "ops:pw")).json, { error: "not_authorised", reason: "Not administrator user" });
    const self = await api("GET", query({ vhost: "/", permission: "read", name: "app_q" }), undefined, "app:pw");
    assert.deepEqual([self.status, self.json.user, self.json.allowed], [200, "app", true]);
    assert.equal((await api("GET", about("app"), undefined, "app:wrong")).status, 401);
  });

  it("answers a token user about itself from its scopes", async () => {
    const token = await oauth.sign({ sub: "svc", scope: ["rabbitmq.tag:management", "rabbitmq.read:%2F/logs-*"] });
    const ask = async (name: string) => {
      const res = await fetch(`${broker.httpUrl}${query({ vhost: "/", permission: "read", name })}`, { headers: { authorization: `Bearer ${token}` } });
      return (await res.json()) as { allowed: boolean; decided_by: string; checks: Array<{ scope?: string | null }> };
    };
    const ok = await ask("logs-1");
    assert.deepEqual([ok.allowed, ok.decided_by, ok.checks[2]!.scope], [true, "scope", "rabbitmq.read:%2F/logs-*"]);
    const no = await ask("orders");
    assert.deepEqual([no.allowed, no.decided_by], [false, "scope"]);
  });

  it("answers 400 for a missing or invalid parameter", async () => {
    assert.equal((await api("GET", query({ vhost: "/", permission: "read" }))).status, 400);
    assert.equal((await api("GET", query({ vhost: "/", name: "q" }))).status, 400);
    const bad = await api("GET", query({ vhost: "/", permission: "delete", name: "q" }));
    assert.deepEqual([bad.status, bad.json.error], [400, "bad_request"]);
    assert.equal((await api("GET", query({ vhost: "/", permission: "read", resource: "topic", name: "q" }))).status, 400);
  });

  it("explains a routing key on a topic exchange by the user's topic permission, as publishing decides", async () => {
    assert.ok((await api("PUT", "/api/permissions/other/app", { configure: ".*", write: ".*", read: ".*" })).status < 300);
    assert.equal((await api("PUT", "/api/topic-permissions/other/app", { exchange: "amq.topic", write: "^eu\\.", read: ".*" })).status, 201);
    const explain = (routing_key: string) => api("GET", query({ user: "app", vhost: "other", permission: "write", resource: "exchange", name: "amq.topic", routing_key }));
    const ok = await explain("eu.orders");
    assert.deepEqual([ok.json.allowed, ok.json.decided_by, ok.json.checks[3].topic_pattern], [true, "topic", "^eu\\."]);
    const no = await explain("us.orders");
    assert.deepEqual([no.json.allowed, no.json.decided_by], [false, "topic"]);
    const conn = await amqp.connect(broker.urlFor("app", "pw", "other"));
    try {
      const ch = await conn.createChannel();
      const closed = new Promise<Error>((resolve) => ch.on("error", resolve));
      ch.publish("amq.topic", "us.orders", Buffer.from("x"));
      assert.ok((await closed).message.includes(no.json.refusal), "the broker refuses with the explained text");
    } finally {
      await conn.close().catch(() => undefined);
    }
  });
});
