// OAuth 2.0 tokens on a real broker: Bearer on the management API, token-as-password over AMQP.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { oauthFixture, type OAuthFixture } from "../helpers/oauth-tokens.js";
import { withTimeout } from "../helpers/wait.js";

describe("OAuth 2.0 tokens", () => {
  let broker: TestBroker;
  let oauth: OAuthFixture;
  const ADMIN = ["rabbitmq.tag:administrator", "rabbitmq.configure:*/*", "rabbitmq.write:*/*", "rabbitmq.read:*/*"];

  async function get(path: string, token: string) {
    const res = await fetch(`${broker.httpUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  }
  const amqpUrl = (token: string, user = "ignored-name"): string => broker.urlFor(user, token);

  before(async () => {
    oauth = oauthFixture();
    broker = await startTestBroker({ ...oauth.config });
  });
  after(async () => {
    await broker.close();
    rmSync(oauth.dir, { recursive: true, force: true });
  });

  it("accept a valid bearer token signed with each key kind on the management API", async () => {
    for (const key of ["hs", "rsa", "ec"] as const) {
      const res = await get("/api/whoami", await oauth.sign({ scope: ADMIN, key, sub: `admin-${key}` }));
      assert.equal(res.status, 200, key);
      assert.equal(res.json!["name"], `admin-${key}`);
      assert.deepEqual(res.json!["tags"], ["administrator"]);
    }
  });

  it("answer 401 for expired, wrong-audience, wrongly-signed, not-yet-valid and malformed tokens", async () => {
    for (const token of [
      await oauth.sign({ scope: ADMIN, expiresIn: -60 }),
      await oauth.sign({ scope: ADMIN, aud: "another-server" }),
      await oauth.sign({ scope: ADMIN, key: "rsa-other" }),
      await oauth.sign({ scope: ADMIN, notBefore: 600 }),
      "not.a.token",
    ]) {
      const res = await get("/api/overview", token);
      assert.deepEqual([res.status, res.json], [401, { error: "not_authorized", reason: "Login failed" }]);
    }
  });

  it("map tag scopes to the management tag matrix: 403 without a management tag, monitoring is not administrator", async () => {
    assert.equal((await get("/api/overview", await oauth.sign({ scope: ["rabbitmq.read:*/*"] }))).status, 403);
    const monitor = await oauth.sign({ scope: ["rabbitmq.tag:monitoring", "rabbitmq.read:*/*"] });
    assert.equal((await get("/api/overview", monitor)).status, 200);
    assert.deepEqual((await get("/api/users", monitor)).json, { error: "not_authorised", reason: "Not administrator user" });
  });

  it("give vhost access on the API only where a scope names the vhost", async () => {
    const mgmt = await oauth.sign({ scope: ["rabbitmq.tag:management", "rabbitmq.read:other/*"] });
    assert.equal((await get("/api/queues/%2F", mgmt)).status, 403);
    const all = await oauth.sign({ scope: ["rabbitmq.tag:management", "rabbitmq.read:%2F/*"] });
    assert.equal((await get("/api/queues/%2F", all)).status, 200);
  });

  it("accept a token as the AMQP password with any user name, and enforce configure/write/read scopes", async () => {
    const token = await oauth.sign({ scope: ["rabbitmq.configure:%2F/oauth-*", "rabbitmq.write:%2F/*", "rabbitmq.read:%2F/oauth-*"], sub: "svc" });
    const conn = await amqp.connect(amqpUrl(token, "whatever"));
    try {
      const ch = await conn.createChannel();
      await ch.assertQueue("oauth-q", { autoDelete: false });
      ch.sendToQueue("oauth-q", Buffer.from("hi"));
      await ch.close();
      const denied = await conn.createChannel();
      denied.on("error", () => {});
      await assert.rejects(denied.assertQueue("not-mine"), /ACCESS_REFUSED - access to queue 'not-mine' in vhost '\/' refused for user 'svc'/);
      const names = (await (await fetch(`${broker.httpUrl}/api/connections`, { headers: { authorization: `Basic ${Buffer.from("guest:guest").toString("base64")}` } })).json()) as Array<{ user: string }>;
      assert.ok(names.some((c) => c.user === "svc"), "the connection shows the token's subject");
    } finally {
      await conn.close();
    }
  });

  it("refuse an AMQP login with an expired, wrong-audience or wrongly-signed token (403 ACCESS_REFUSED)", async () => {
    for (const token of [
      await oauth.sign({ scope: ADMIN, expiresIn: -60 }),
      await oauth.sign({ scope: ADMIN, aud: "another-server" }),
      await oauth.sign({ scope: ADMIN, key: "rsa-other" }),
    ]) {
      await assert.rejects(amqp.connect(amqpUrl(token)), /ACCESS_REFUSED|403/);
    }
  });

  it("refuse a vhost the token's scopes do not name", async () => {
    const token = await oauth.sign({ scope: ["rabbitmq.read:other/*"] });
    await assert.rejects(amqp.connect(amqpUrl(token)), /Expected ConnectionOpenOk; got <ConnectionClose/);
  });

  it("close an AMQP connection when its token expires, and keep it open after update-secret with a fresh token", async () => {
    const short = await oauth.sign({ scope: ADMIN, expiresIn: 2, sub: "short" });
    const conn = await amqp.connect(amqpUrl(short));
    const closed = new Promise<Error>((resolve) => conn.on("error", resolve));
    const err = await withTimeout(closed, 6000, "the token-expiry close");
    assert.match(err.message, /ACCESS_REFUSED - credential expired/);

    const renewed = await amqp.connect(amqpUrl(await oauth.sign({ scope: ADMIN, expiresIn: 2, sub: "renewed" })));
    let failed: Error | null = null;
    renewed.on("error", (e: Error) => (failed = e));
    await renewed.updateSecret(Buffer.from(await oauth.sign({ scope: ADMIN, expiresIn: 3600, sub: "renewed" })), "refresh");
    await new Promise((r) => setTimeout(r, 3000)); // past the first token's expiry: the check is that nothing happens
    assert.equal(failed, null);
    const ch = await renewed.createChannel();
    await ch.checkQueue("oauth-q");
    await renewed.close();
  });

  it("refuse update-secret with a token for another user (530 NOT_ALLOWED)", async () => {
    const conn = await amqp.connect(amqpUrl(await oauth.sign({ scope: ADMIN, sub: "alice" })));
    const closed = new Promise<Error>((resolve) => conn.on("error", resolve));
    conn.updateSecret(Buffer.from(await oauth.sign({ scope: ADMIN, sub: "mallory" })), "swap").catch(() => {});
    assert.match((await withTimeout(closed, 5000, "the refusal")).message, /NOT_ALLOWED - Secret update was refused for user 'alice'/);
  });

  it("still accept internal users' passwords next to tokens, even a password shaped like a JWT", async () => {
    const conn = await amqp.connect(broker.amqpUrl);
    await conn.close();
    const basic = `Basic ${Buffer.from("guest:guest").toString("base64")}`;
    const put = await fetch(`${broker.httpUrl}/api/users/dotted`, { method: "PUT", headers: { authorization: basic }, body: JSON.stringify({ password: "abc.def.ghi", tags: "" }) });
    assert.equal(put.status, 201);
    await fetch(`${broker.httpUrl}/api/permissions/%2F/dotted`, { method: "PUT", headers: { authorization: basic }, body: JSON.stringify({ configure: ".*", write: ".*", read: ".*" }) });
    const dotted = await amqp.connect(broker.urlFor("dotted", "abc.def.ghi"));
    await dotted.close();
    await assert.rejects(amqp.connect(broker.urlFor("dotted", "abc.def.xyz")), /ACCESS_REFUSED|403/);
  });
});
