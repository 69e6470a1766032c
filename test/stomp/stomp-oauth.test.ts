// OAuth 2.0 tokens as STOMP passcodes: the token names the user, its scopes decide what the
// connection may do, and frames sent right behind CONNECT wait for the verification.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { oauthFixture, type OAuthFixture } from "../helpers/oauth-tokens.js";
import { StompWire } from "../helpers/stomp-wire.js";

describe("STOMP with OAuth 2.0 tokens", () => {
  let broker: TestBroker;
  let oauth: OAuthFixture;

  before(async () => {
    oauth = oauthFixture();
    broker = await startTestBroker({ stompPort: 0, ...oauth.config });
  });
  after(async () => {
    await broker.close();
    rmSync(oauth.dir, { recursive: true, force: true });
  });

  it("logs in by token; the scopes decide; frames behind CONNECT are kept", async () => {
    const token = await oauth.sign({ scope: ["rabbitmq.configure:*/tok-*", "rabbitmq.write:*/*", "rabbitmq.read:*/*"], sub: "web-app" });
    const w = await StompWire.open(broker.stompPort!);
    w.send("CONNECT", { "accept-version": "1.2", host: "/", login: "ignored", passcode: token });
    w.send("SEND", { destination: "/queue/tok-q", receipt: "r" }, "by token");
    assert.equal((await w.next()).command, "CONNECTED");
    assert.equal((await w.next()).headers["receipt-id"], "r");
    assert.equal(broker.broker.connections.list()[0]!.info().user, "web-app");
    assert.equal(broker.broker.vhosts.get("/")!.queues.get("tok-q")!.messageCount, 1);
    w.send("SUBSCRIBE", { id: "x", destination: "/queue/other" });
    const e = await w.next();
    assert.equal(e.headers["message"], "access_refused", "no configure scope on 'other'");
    await w.whenClosed();
  });
});
