// PUT/GET/DELETE /api/policies: validation of definition keys as RabbitMQ's, apply-to and
// priority picking the effective policy shown on queue and exchange records.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";

describe("policies over HTTP", () => {
  let broker: TestBroker;
  const call = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
  });
  after(async () => broker.close());

  it("validates, stores, applies by pattern/apply-to/priority, and deletes", async () => {
    assert.equal((await call("PUT", "/api/policies/%2f/ttl", { pattern: "^orders\\.", definition: { "message-ttl": 60000 }, priority: 1, "apply-to": "queues" })).status, 201);
    assert.equal((await call("PUT", "/api/policies/%2f/ttl", { pattern: "^orders\\.", definition: { "message-ttl": 30000 }, priority: 1, "apply-to": "queues" })).status, 204);
    assert.equal((await call("PUT", "/api/policies/%2f/ha", { pattern: ".*", definition: { "ha-mode": "exactly", "ha-params": 2, "ha-sync-mode": "automatic" }, priority: 0, "apply-to": "all" })).status, 201);
    const unknown = await call("PUT", "/api/policies/%2f/bad", { pattern: ".*", definition: { "no-such-key": 1 } });
    assert.equal(unknown.status, 400);
    assert.match(String(unknown.json!["reason"]), /not recognised policy settings/);
    assert.equal((await call("PUT", "/api/policies/%2f/bad", { pattern: ".*", definition: { "message-ttl": -5 } })).status, 400);
    assert.equal((await call("PUT", "/api/policies/%2f/bad", { pattern: ".*", definition: { "ha-mode": "exactly" } })).status, 400);
    assert.equal((await call("PUT", "/api/policies/%2f/bad", { pattern: "(", definition: { "message-ttl": 1 } })).status, 400);
    assert.equal((await call("PUT", "/api/policies/%2f/bad", { pattern: ".*", definition: { "message-ttl": 1 }, "apply-to": "nothing" })).status, 400);
    assert.equal((await call("GET", "/api/policies/%2f/bad")).status, 404, "nothing half-stored");

    await call("PUT", "/api/queues/%2f/orders.eu", {});
    await call("PUT", "/api/queues/%2f/other", {});
    const q = (await call("GET", "/api/queues/%2f/orders.eu")).json!;
    assert.equal(q["policy"], "ttl");
    assert.deepEqual(q["effective_policy_definition"], { "message-ttl": 30000 });
    assert.equal((await call("GET", "/api/queues/%2f/other")).json!["policy"], "ha");
    assert.equal((await call("GET", "/api/exchanges/%2f/amq.direct")).json!["policy"], "ha", "apply-to all covers exchanges");

    const list = (await call("GET", "/api/policies")).json as unknown as Array<{ name: string }>;
    assert.deepEqual(list.map((p) => p.name), ["ha", "ttl"]);
    assert.equal((await call("DELETE", "/api/policies/%2f/ttl")).status, 204);
    assert.equal((await call("DELETE", "/api/policies/%2f/ttl")).status, 404);
    assert.equal((await call("GET", "/api/queues/%2f/orders.eu")).json!["policy"], "ha");
  });

  it("needs the policymaker tag to change policies", async () => {
    await call("PUT", "/api/users/watcher", { password: "pw", tags: "management" });
    await call("PUT", "/api/permissions/%2f/watcher", { configure: ".*", write: ".*", read: ".*" });
    assert.equal((await call("PUT", "/api/policies/%2f/p", { pattern: ".*", definition: { "max-length": 1 } }, "watcher:pw")).status, 403);
    assert.equal((await call("GET", "/api/policies/%2f", undefined, "watcher:pw")).status, 200);
  });
});
