// OAuth 2.0 scope variables as RabbitMQ expands them: {vhost} is the vhost being accessed,
// {username} the token's user, any other {claim} that claim. As pure grants, and on a real broker
// over AMQP with a signed token.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import amqp from "amqplib";
import { expandClaims, ScopeGrants } from "../../src/auth/oauth/scope-grants.js";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { oauthFixture, type OAuthFixture } from "../helpers/oauth-tokens.js";
import { withTimeout } from "../helpers/wait.js";

describe("OAuth 2.0 scope variables", () => {
  it("expand {vhost} per check, {username} and claims once", () => {
    const g = new ScopeGrants(
      "rabbitmq",
      ["rabbitmq.read:{vhost}/*", "rabbitmq.write:*/{username}-*", "rabbitmq.configure:{vhost}/{vhost}.{team}.*", "rabbitmq.read:x/{missing}"],
      { username: "alice", claims: { team: "blue" } },
    );
    assert.ok(g.hasVhostAccess("prod") && g.hasVhostAccess("dev"));
    assert.ok(g.allows("prod", "read", "anything"));
    assert.ok(g.allows("prod", "write", "alice-inbox"));
    assert.ok(!g.allows("prod", "write", "bob-inbox"));
    assert.ok(g.allows("prod", "configure", "prod.blue.q1"));
    assert.ok(!g.allows("prod", "configure", "dev.blue.q1"), "{vhost} is the vhost being checked");
    const missing = new ScopeGrants("rabbitmq", ["rabbitmq.read:x/{missing}-*"], { username: "alice", claims: {} });
    assert.ok(!missing.hasVhostAccess("x") && !missing.allows("x", "read", "{missing}-1"), "a scope naming a missing claim grants nothing");
    assert.equal(expandClaims("{org.unit}-*", { username: "u", claims: { org: { unit: "ops" } } }), "ops-*");
    assert.equal(expandClaims("{vhost}/{username}", { username: "u", claims: {} }), "{vhost}/u");
  });

  describe("on a broker", () => {
    let broker: TestBroker;
    let oauth: OAuthFixture;
    before(async () => {
      oauth = oauthFixture();
      broker = await startTestBroker({ ...oauth.config });
      const api = apiClient(() => broker.httpUrl);
      assert.equal((await api("PUT", "/api/vhosts/team-a")).status, 201);
    });
    after(async () => {
      await broker.close();
      rmSync(oauth.dir, { recursive: true, force: true });
    });

    it("lets a token with rabbitmq.configure:{vhost}/{username}-* declare its own queues in any vhost, and no others", async () => {
      const token = await oauth.sign({ sub: "carol", scope: ["rabbitmq.configure:{vhost}/{username}-*", "rabbitmq.read:{vhost}/*", "rabbitmq.write:{vhost}/*"] });
      for (const vhost of ["/", "team-a"]) {
        const conn = await amqp.connect(broker.urlFor("carol", token, vhost));
        const ch = await conn.createChannel();
        await ch.assertQueue("carol-work", { exclusive: true });
        const closed = new Promise<string>((resolve) => ch.on("error", (e: Error) => resolve(e.message)));
        await assert.rejects(ch.assertQueue("dave-work", { exclusive: true }));
        assert.match(await withTimeout(closed, 5000, "channel close"), /403 \(ACCESS-REFUSED\) with message "ACCESS_REFUSED - access to queue 'dave-work' in vhost '.*' refused for user 'carol'"/);
        await conn.close();
      }
    });
  });
});
