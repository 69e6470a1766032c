// OAuth 2.0 on AMQP 1.0 as RabbitMQ 4.1: a connection that logged in with a token is closed with
// amqp:unauthorized-access "credential expired" when the token expires, unless the client sends a
// new one with PUT /auth/tokens on the /management node (a binary amqp-value body). A token for
// the same user is answered 204 and its expiry and scopes replace the old ones; a token for
// another user, an invalid one or one without access to the connection's vhost is answered 204
// and the connection is then closed with amqp:unauthorized-access and RabbitMQ 4's text.
// No test sleeps: each waits for the close or the answer, and the time of the close shows which
// token's expiry closed it (exp is in whole seconds: a token of 2 s lives at least 1 s, time
// enough to connect and listen for the close).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import type { Connection, EventContext } from "rhea";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { oauthFixture, type OAuthFixture } from "../helpers/oauth-tokens.js";
import { close, closedWith, connect, errorOf, receive, type Amqp1Error } from "../helpers/rhea-client.js";
import { withTimeout } from "../helpers/wait.js";
import { openManagement } from "../helpers/amqp1-management.js";

const ALL = ["rabbitmq.configure:*/*", "rabbitmq.write:*/*", "rabbitmq.read:*/*"];

/** The exp claim (ms) of a JWT. */
function expiryOf(token: string): number {
  const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as { exp: number };
  return claims.exp * 1000;
}

describe("AMQP 1.0 OAuth 2.0 token expiry and PUT /auth/tokens", () => {
  let broker: TestBroker;
  let oauth: OAuthFixture;
  const open: Connection[] = [];

  before(async () => {
    oauth = oauthFixture();
    broker = await startTestBroker({ ...oauth.config });
  });
  after(async () => {
    for (const c of open) await close(c);
    await broker.close();
    rmSync(oauth.dir, { recursive: true, force: true });
  });

  async function tokenConnection(token: string): Promise<Connection> {
    const c = await connect(broker.amqpPort, { username: "ignored", password: token });
    open.push(c);
    return c;
  }

  it("closes the connection with amqp:unauthorized-access 'credential expired' when its token expires", async () => {
    const token = await oauth.sign({ scope: ALL, sub: "short-lived", expiresIn: 2 });
    const c = await tokenConnection(token);
    const closed = await closedWith(c);
    assert.deepEqual(closed, { condition: "amqp:unauthorized-access", description: "credential expired" });
    assert.ok(Date.now() >= expiryOf(token), "not before the token's expiry");
  });

  it("a refreshed token for the same user (204) keeps the connection past the first token's expiry, until its own", async () => {
    const first = await oauth.sign({ scope: ALL, sub: "renewer", expiresIn: 2 });
    const c = await tokenConnection(first);
    const m = await openManagement(c);
    const second = await oauth.sign({ scope: ALL, sub: "renewer", expiresIn: 4 });
    const r = await m.request("PUT", "/auth/tokens", Buffer.from(second));
    assert.equal(r.status, "204");
    assert.equal(r.body, null);
    const closed = await closedWith(c);
    assert.deepEqual(closed, { condition: "amqp:unauthorized-access", description: "credential expired" });
    assert.ok(Date.now() >= expiryOf(second), "closed by the second token's expiry, not the first's");
  });

  it("the new token's scopes apply from the next request", async () => {
    const c = await tokenConnection(await oauth.sign({ scope: ALL, sub: "narrowed" }));
    const m = await openManagement(c);
    assert.equal((await m.request("PUT", "/queues/before-refresh", {})).status, "201");
    const narrow = await oauth.sign({ scope: ["rabbitmq.configure:%2F/only-*", "rabbitmq.read:%2F/*"], sub: "narrowed" });
    assert.equal((await m.request("PUT", "/auth/tokens", Buffer.from(narrow))).status, "204");
    assert.equal((await m.request("PUT", "/queues/only-this", {})).status, "201");
    // A missing permission ends the session (RabbitMQ 4), with the domain's refusal.
    const ended = m.sessionError();
    void m.request("PUT", "/queues/after-refresh", {}).catch(() => undefined);
    const e = await ended;
    assert.equal(e.condition, "amqp:unauthorized-access");
    assert.match(e.description, /access to queue 'after-refresh' in vhost '\/' refused/);
  });

  it("a session whose receiver's queue is no longer readable with the new token ends with amqp:unauthorized-access; the others go on", async () => {
    const c = await tokenConnection(await oauth.sign({ scope: ALL, sub: "reader" }));
    const m = await openManagement(c);
    assert.equal((await m.request("PUT", "/queues/watched", {})).status, "201");
    const { receiver } = receive(c, "/queues/watched", 0);
    await withTimeout(new Promise((resolve) => receiver.once("receiver_open", resolve)), 5000, "receiver_open");
    const ended = withTimeout(
      new Promise<Amqp1Error>((resolve) => receiver.session.once("session_error", (ctx: EventContext) => resolve(errorOf(ctx.session!.error)))),
      5000,
      "the receiver's session to end",
    );
    const narrow = await oauth.sign({ scope: ["rabbitmq.configure:%2F/*", "rabbitmq.read:%2F/other"], sub: "reader" });
    assert.equal((await m.request("PUT", "/auth/tokens", Buffer.from(narrow))).status, "204");
    assert.deepEqual(await ended, { condition: "amqp:unauthorized-access", description: "read access to queue 'watched' in vhost '/' refused for user 'reader'" });
    // The management session goes on.
    assert.equal((await m.request("GET", "/queues/watched")).status, "200");
  });

  it("a token for another user: 204, then the connection is closed with RabbitMQ 4's refusal", async () => {
    const c = await tokenConnection(await oauth.sign({ scope: ALL, sub: "alice" }));
    const m = await openManagement(c);
    const closed = closedWith(c);
    assert.equal((await m.request("PUT", "/auth/tokens", Buffer.from(await oauth.sign({ scope: ALL, sub: "mallory" })))).status, "204");
    assert.deepEqual(await closed, { condition: "amqp:unauthorized-access", description: 'credential update failed: {refused,"Not allowed to change username on refreshed token",[]}' });
  });

  it("an invalid token (wrongly signed, expired, not a JWT): 204, then the connection is closed", async () => {
    for (const bad of [await oauth.sign({ scope: ALL, sub: "bob", key: "rsa-other" }), await oauth.sign({ scope: ALL, sub: "bob", expiresIn: -60 }), "not-a-token"]) {
      const c = await tokenConnection(await oauth.sign({ scope: ALL, sub: "bob" }));
      const m = await openManagement(c);
      const closed = closedWith(c);
      assert.equal((await m.request("PUT", "/auth/tokens", Buffer.from(bad))).status, "204");
      assert.deepEqual(await closed, { condition: "amqp:unauthorized-access", description: 'credential update failed: {refused,"Authentication using an OAuth 2/JWT token failed: provided token is invalid",[]}' });
    }
  });

  it("a new token without access to the connection's vhost closes the connection", async () => {
    const c = await tokenConnection(await oauth.sign({ scope: ALL, sub: "carol" }));
    const m = await openManagement(c);
    const closed = closedWith(c);
    const elsewhere = await oauth.sign({ scope: ["rabbitmq.read:other/*"], sub: "carol" });
    assert.equal((await m.request("PUT", "/auth/tokens", Buffer.from(elsewhere))).status, "204");
    const e = await closed;
    assert.equal(e.condition, "amqp:unauthorized-access");
    assert.match(e.description, /^access to vhost \/ failed for new credential: /);
  });

  it("a body that is not binary is a 400 and changes nothing; a password login's refresh is a 204 that changes nothing", async () => {
    const c = await tokenConnection(await oauth.sign({ scope: ALL, sub: "dave" }));
    const m = await openManagement(c);
    const r = await m.request("PUT", "/auth/tokens", "a string, not binary");
    assert.equal(r.status, "400");
    assert.match(String(r.body), /binary/);
    assert.equal((await m.request("PUT", "/queues/still-allowed", {})).status, "201");

    const pc = await connect(broker.amqpPort);
    open.push(pc);
    const pm = await openManagement(pc);
    assert.equal((await pm.request("PUT", "/auth/tokens", Buffer.from(await oauth.sign({ scope: [], sub: "guest" })))).status, "204");
    assert.equal((await pm.request("PUT", "/queues/guest-still-allowed", {})).status, "201");
  });
});
