// A follower answers its own health checks to an OAuth 2.0 bearer token as the leader would: a
// token whose scopes give a management tag is let in (and told the follower does not lead), one
// without such a tag is refused 403, a forged one 401.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { TestCluster } from "./cluster-fixture.js";
import { oauthFixture, RESOURCE_SERVER } from "../helpers/oauth-tokens.js";

describe("cluster health checks with OAuth 2.0 tokens", { timeout: 100_000 }, () => {
  const oauth = oauthFixture();
  const cluster = new TestCluster(3, 3, ["--oauth-resource-server-id", RESOURCE_SERVER, "--oauth-hmac-secrets", oauth.config.oauthHmacSecrets.join(",")]);
  let passed = false;
  before(async () => {
    await cluster.start();
    await cluster.waitForInSync(3);
  });
  after(async () => {
    if (!passed) console.error(cluster.logs());
    await cluster.close();
    rmSync(oauth.dir, { recursive: true, force: true });
  });

  it("verifies bearer tokens on a follower", async () => {
    const leader = await cluster.waitForLeader();
    const follower = cluster.nodes.find((n) => n !== leader)!;
    const check = async (token: string): Promise<{ status: number; body: unknown }> => {
      const r = await fetch(`http://127.0.0.1:${follower.httpPort}/api/health/checks/cluster-leader`, { headers: { authorization: `Bearer ${token}` } });
      return { status: r.status, body: await r.json().catch(() => null) };
    };
    const monitoring = await check(await oauth.sign({ scope: [`${RESOURCE_SERVER}.tag:monitoring`] }));
    assert.equal(monitoring.status, 503);
    assert.equal((monitoring.body as { leader: string }).leader, leader.name);
    const noTag = await check(await oauth.sign({ scope: [`${RESOURCE_SERVER}.read:*/*`] }));
    assert.deepEqual(noTag, { status: 403, body: { error: "not_authorised", reason: "Not management user" } });
    const forged = await check(await oauth.sign({ scope: [`${RESOURCE_SERVER}.tag:monitoring`], key: "rsa-other" }));
    assert.equal(forged.status, 401);
    // The leader answers the same token itself: 200.
    const onLeader = await fetch(`http://127.0.0.1:${leader.httpPort}/api/health/checks/cluster-leader`, { headers: { authorization: `Bearer ${await oauth.sign({ scope: [`${RESOURCE_SERVER}.tag:monitoring`] })}` } });
    assert.equal(onLeader.status, 200);
    passed = true;
  });
});
