// GET/POST /api/definitions: RabbitMQ's format, round trip, and RabbitMQ-exported password hashes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { useTwoBrokers } from "../helpers/broker-fixture.js";
import { apiClient } from "../helpers/http-client.js";

describe("definitions over HTTP", () => {
  const two = useTwoBrokers();
  const onA = apiClient(() => two.a.httpUrl);
  const onB = apiClient(() => two.b.httpUrl);

  it("exports RabbitMQ's document and imports it into another broker", async () => {
    await onA("PUT", "/api/vhosts/app", {});
    await onA("PUT", "/api/exchanges/app/events", { type: "fanout", durable: true });
    await onA("PUT", "/api/queues/app/jobs", { durable: true, arguments: { "x-message-ttl": 5000 } });
    await onA("POST", "/api/bindings/app/e/events/q/jobs", { routing_key: "" });
    await onA("PUT", "/api/users/bob", { password: "pw", tags: "monitoring" });
    const exp = (await onA("GET", "/api/definitions")).json!;
    for (const key of ["users", "vhosts", "permissions", "policies", "queues", "exchanges", "bindings"]) assert.ok(Array.isArray(exp[key]), key);
    assert.ok((exp["exchanges"] as Array<{ name: string }>).every((x) => x.name !== "" && !x.name.startsWith("amq.")));
    assert.equal((await onB("POST", "/api/definitions", exp)).status, 204);
    const q = (await onB("GET", "/api/queues/app/jobs")).json!;
    assert.deepEqual(q["arguments"], { "x-message-ttl": 5000 });
    assert.equal(((await onB("GET", "/api/bindings/app/e/events/q/jobs")).json as unknown as unknown[]).length, 1);
    assert.ok(two.b.broker.authenticate("bob", "pw"), "the hash travelled and still verifies");
    const single = (await onA("GET", "/api/definitions/app")).json!;
    assert.equal(single["rabbitmq_definition_format"], "single_virtual_host");
    assert.ok((single["queues"] as Array<Record<string, unknown>>).every((i) => !("vhost" in i)));
  });

  it("imports a RabbitMQ 3.13 export: its users log in with their passwords", async () => {
    const rabbit = {
      rabbit_version: "3.13.6",
      users: [{ name: "migrated", password_hash: "CZGtMFp48hNvlKFZqF/4gKu/i3cMtoSkmgsGTHP07Yi8mCkY", hashing_algorithm: "rabbit_password_hashing_sha256", tags: ["administrator"], limits: {} }],
      vhosts: [{ name: "legacy", limits: [], metadata: { description: "", tags: [] } }],
      permissions: [{ user: "migrated", vhost: "legacy", configure: ".*", write: ".*", read: ".*" }],
      queues: [{ name: "q1", vhost: "legacy", durable: true, auto_delete: false, arguments: { "x-queue-type": "classic" } }],
      exchanges: [],
      bindings: [],
    };
    assert.equal((await onB("POST", "/api/definitions", rabbit)).status, 204);
    const conn = await amqp.connect(`amqp://migrated:guest@127.0.0.1:${two.b.amqpPort}/legacy`);
    const ch = await conn.createChannel();
    assert.equal((await ch.checkQueue("q1")).queue, "q1");
    await conn.close();
    const bad = await onB("POST", "/api/definitions", { users: "nope" });
    assert.equal(bad.status, 400);
  });
});
