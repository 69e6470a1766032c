// Keys fetched from the identity provider's JWKS endpoint (RabbitMQ's auth_oauth2.jwks_url): a
// real HTTP server on loopback serves the key set, and counts how often the broker asks for it.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import amqp from "amqplib";
import { SignJWT } from "jose";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";

const AUD = "rabbitmq";
const ADMIN = "rabbitmq.tag:administrator rabbitmq.configure:*/* rabbitmq.write:*/* rabbitmq.read:*/*";

function rsaKey(): { privateKey: KeyObject; jwk: Record<string, unknown> } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { privateKey, jwk: publicKey.export({ format: "jwk" }) as Record<string, unknown> };
}

function sign(key: KeyObject, kid: string, sub: string): Promise<string> {
  return new SignJWT({ scope: ADMIN })
    .setProtectedHeader({ alg: "RS256", kid })
    .setSubject(sub)
    .setAudience(AUD)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(key);
}

describe("OAuth 2.0 keys from a JWKS URL", () => {
  const published = rsaKey();
  const unpublished = rsaKey();
  let fetches = 0;
  let idp: Server;
  let broker: TestBroker;

  before(async () => {
    idp = createServer((_req, res) => {
      fetches++;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ keys: [{ ...published.jwk, kid: "idp-1", alg: "RS256", use: "sig" }] }));
    });
    await new Promise<void>((r) => idp.listen(0, "127.0.0.1", r));
    const port = (idp.address() as AddressInfo).port;
    broker = await startTestBroker({ oauthResourceServerId: AUD, oauthJwksUrl: `http://127.0.0.1:${port}/jwks` });
  });
  after(async () => {
    await broker.close();
    await new Promise<void>((r) => idp.close(() => r()));
  });

  const whoami = async (token: string) => {
    const res = await fetch(`${broker.httpUrl}/api/whoami`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("fetches the key set only when a token first needs it, then serves from its cache", async () => {
    assert.equal(fetches, 0, "nothing fetched at start");
    const first = await whoami(await sign(published.privateKey, "idp-1", "alice"));
    assert.deepEqual([first.status, first.body["name"]], [200, "alice"]);
    assert.equal(fetches, 1);
    const conn = await amqp.connect(broker.urlFor("any", await sign(published.privateKey, "idp-1", "svc")));
    const ch = await conn.createChannel();
    await ch.assertQueue("jwks-q");
    await conn.close();
    assert.equal(fetches, 1, "a second token with a known key id does not refetch");
  });

  it("refuses a token whose key the provider does not publish, on both listeners", async () => {
    const forged = await sign(unpublished.privateKey, "idp-2", "mallory");
    assert.deepEqual(await whoami(forged), { status: 401, body: { error: "not_authorized", reason: "Login failed" } });
    await assert.rejects(amqp.connect(broker.urlFor("any", forged)), /ACCESS_REFUSED|403/);
    const wrongKey = await sign(unpublished.privateKey, "idp-1", "mallory");
    assert.equal((await whoami(wrongKey)).status, 401, "a known key id with another key's signature");
  });
});
