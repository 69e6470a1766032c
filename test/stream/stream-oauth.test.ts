// An OAuth 2.0 token as the SASL PLAIN password on the stream port, as AMQP accepts it: the token
// names the user and its scopes decide (configure on the stream to create it, write to publish,
// read to subscribe); a token that does not verify is refused with AUTHENTICATION_FAILURE.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import type { TestBroker } from "../helpers/broker.js";
import { oauthFixture, type OAuthFixture } from "../helpers/oauth-tokens.js";
import { FrameWriter } from "../../src/stream/wire.js";
import { RawStreamClient } from "./raw-stream-client.js";
import { startStreamBroker } from "./stream-helpers.js";

describe("stream protocol logins with OAuth 2.0 tokens", () => {
  let oauth: OAuthFixture;
  let b: TestBroker & { streamPort: number };
  before(async () => {
    oauth = oauthFixture();
    b = await startStreamBroker({ ...oauth.config });
  });
  after(async () => {
    await b?.close();
    rmSync(oauth.dir, { recursive: true, force: true });
  });

  it("logs in with a token whose scopes decide what the connection may do", async () => {
    const token = await oauth.sign({ scope: ["rabbitmq.configure:*/tok-*", "rabbitmq.write:*/tok-*", "rabbitmq.read:*/other"], sub: "stream-service" });
    const c = await RawStreamClient.login(b.streamPort, "ignored", token);
    const record = b.broker.connections.list().map((x) => x.info()).find((i) => i.protocol === "stream")!;
    assert.equal(record.user, "stream-service");
    assert.equal((await c.request((corr) => new FrameWriter(0x0d).u32(corr).str("tok-s").map([]).frame(), 0x0d)).code, 0x01);
    assert.equal((await c.request((corr) => new FrameWriter(0x0d).u32(corr).str("not-mine").map([]).frame(), 0x0d)).code, 0x10);
    assert.equal((await c.request((corr) => new FrameWriter(0x01).u32(corr).u8(0).str("").str("tok-s").frame(), 0x01)).code, 0x01);
    assert.equal((await c.request((corr) => new FrameWriter(0x07).u32(corr).u8(0).str("tok-s").u16(1).u16(1).map([]).frame(), 0x07)).code, 0x10);
    c.close();
  });

  it("refuses a token signed by a key it does not know", async () => {
    const forged = await oauth.sign({ scope: ["rabbitmq.read:*/*"], key: "rsa-other" });
    await assert.rejects(RawStreamClient.login(b.streamPort, "ignored", forged), /login refused/);
  });
});
