// Runtime parameters, global parameters and vhost limits over HTTP: validation before storage,
// the policymaker tag, limits enforced on AMQP and HTTP, and persistence across a restart.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";

describe("parameters over HTTP", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  // A data dir of the test's own, so the last test can restart the broker on it.
  const dataDir = mkdtempSync(join(tmpdir(), "coney-params-"));
  before(async () => {
    broker = await startTestBroker({ dataDir });
    await api("PUT", "/api/vhosts/lim", {});
  });
  after(async () => {
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("stores vhost-limits parameters, lists them by component and vhost, and deletes them", async () => {
    const path = "/api/parameters/vhost-limits/lim/limits";
    assert.equal((await api("PUT", path, { value: { "max-queues": 10 } })).status, 201);
    assert.equal((await api("PUT", path, { value: { "max-queues": 20 } })).status, 204);
    assert.deepEqual((await api("GET", path)).json, { vhost: "lim", component: "vhost-limits", name: "limits", value: { "max-queues": 20 } });
    for (const list of ["/api/parameters", "/api/parameters/vhost-limits", "/api/parameters/vhost-limits/lim"]) {
      assert.deepEqual((await api("GET", list)).json, [{ vhost: "lim", component: "vhost-limits", name: "limits", value: { "max-queues": 20 } }], list);
    }
    assert.deepEqual((await api("GET", "/api/parameters/shovel")).json, []);
    assert.deepEqual((await api("GET", "/api/vhost-limits/lim")).json, [{ vhost: "lim", value: { "max-queues": 20 } }]);
    assert.equal((await api("DELETE", path)).status, 204);
    assert.equal((await api("DELETE", path)).status, 404);
    assert.equal((await api("GET", path)).status, 404);
  });

  it("refuses unknown components, bad values, missing values and unknown vhosts, storing nothing", async () => {
    const fed = await api("PUT", "/api/parameters/no-such-plugin/lim/up", { value: { uri: "amqp://x" } });
    assert.equal(fed.status, 400);
    assert.deepEqual(fed.json, { error: "bad_request", reason: "Validation failed\n\ncomponent no-such-plugin not found\n" });
    const badKey = await api("PUT", "/api/parameters/vhost-limits/lim/limits", { value: { "max-bananas": 1 } });
    assert.equal(badKey.status, 400);
    assert.match(badKey.json.reason, /Unrecognised terms \[\{<<"max-bananas">>,\d+\}\]/);
    assert.equal((await api("PUT", "/api/parameters/vhost-limits/lim/limits", { value: { "max-queues": "ten" } })).status, 400);
    assert.equal((await api("PUT", "/api/parameters/vhost-limits/lim/limits", {})).status, 400);
    assert.equal((await api("PUT", "/api/parameters/vhost-limits/nope/limits", { value: {} })).status, 404);
    assert.deepEqual((await api("GET", "/api/parameters")).json, []);
  });

  it("needs the policymaker or administrator tag", async () => {
    await api("PUT", "/api/users/mgmt", { password: "pw", tags: "management" });
    await api("PUT", "/api/users/pm", { password: "pw", tags: "policymaker" });
    for (const u of ["mgmt", "pm"]) await api("PUT", `/api/permissions/lim/${u}`, { configure: ".*", write: ".*", read: ".*" });
    assert.equal((await api("GET", "/api/parameters", undefined, "mgmt:pw")).status, 403);
    assert.equal((await api("PUT", "/api/global-parameters/x", { value: 1 }, "mgmt:pw")).status, 403);
    assert.equal((await api("PUT", "/api/parameters/vhost-limits/lim/limits", { value: { "max-queues": 50 } }, "pm:pw")).status, 201);
    assert.equal((await api("GET", "/api/parameters", undefined, "pm:pw")).status, 200);
    assert.equal((await api("DELETE", "/api/parameters/vhost-limits/lim/limits", undefined, "pm:pw")).status, 204);
    assert.equal((await api("PUT", "/api/vhost-limits/lim/max-queues", { value: 5 }, "pm:pw")).status, 403, "limits are an administrator's");
  });

  it("enforces max-queues on AMQP and HTTP declares, and max-connections on connection.open", async () => {
    await api("PUT", "/api/vhosts/small", {});
    assert.equal((await api("PUT", "/api/vhost-limits/small/max-queues", { value: 1 })).status, 204);
    assert.equal((await api("PUT", "/api/queues/small/first", {})).status, 201);
    const http = await api("PUT", "/api/queues/small/second", {});
    assert.deepEqual(http.json, { error: "bad_request", reason: "cannot declare queue 'second': queue limit in vhost 'small' (1) is reached" });
    const conn = await amqp.connect(broker.urlFor("guest", "guest", "small"));
    const ch = await conn.createChannel();
    ch.on("error", () => {}); // the refusal closes the channel; the assertion below reads it
    await ch.assertQueue("first", { durable: false });
    await assert.rejects(ch.assertQueue("third"), /PRECONDITION_FAILED - cannot declare queue 'third': queue limit in vhost 'small' \(1\) is reached/);
    await conn.close();

    assert.equal((await api("PUT", "/api/vhost-limits/small/max-connections", { value: 1 })).status, 204);
    assert.deepEqual((await api("GET", "/api/vhost-limits/small")).json, [{ vhost: "small", value: { "max-queues": 1, "max-connections": 1 } }]);
    const one = await amqp.connect(broker.urlFor("guest", "guest", "small"));
    // amqplib hides the reply text of a refused connection.open; @cloudamqp/amqp-client shows it.
    await assert.rejects(new AMQPClient(broker.urlFor("guest", "guest", "small")).connect(), /NOT_ALLOWED - access to vhost 'small' refused for user 'guest': connection limit \(1\) is reached/);
    await one.close();
    assert.equal((await api("DELETE", "/api/vhost-limits/small/max-connections")).status, 204);
    assert.equal((await api("DELETE", "/api/vhost-limits/small/max-connections")).status, 404);
    const again = [await amqp.connect(broker.urlFor("guest", "guest", "small")), await amqp.connect(broker.urlFor("guest", "guest", "small"))];
    for (const c of again) await c.close();
  });

  it("stores global parameters of any JSON value", async () => {
    assert.equal((await api("PUT", "/api/global-parameters/cluster_tags", { value: { az: "eu-west-1a" } })).status, 201);
    assert.equal((await api("PUT", "/api/global-parameters/cluster_tags", { value: { az: "eu-west-1b" } })).status, 204);
    assert.deepEqual((await api("GET", "/api/global-parameters/cluster_tags")).json, { name: "cluster_tags", value: { az: "eu-west-1b" } });
    assert.deepEqual((await api("GET", "/api/global-parameters")).json, [{ name: "cluster_tags", value: { az: "eu-west-1b" } }]);
    assert.equal((await api("PUT", "/api/global-parameters/x", { nothing: 1 })).status, 400);
    assert.equal((await api("GET", "/api/global-parameters/x")).status, 404);
    assert.equal((await api("DELETE", "/api/global-parameters/cluster_tags")).status, 204);
    assert.equal((await api("DELETE", "/api/global-parameters/cluster_tags")).status, 404);
  });

  it("exports, imports and persists parameters and global parameters", async () => {
    await api("PUT", "/api/vhosts/keep", {});
    await api("PUT", "/api/parameters/vhost-limits/keep/limits", { value: { "max-connections": 7 } });
    await api("PUT", "/api/global-parameters/cluster_tags", { value: { region: "north" } });
    const defs = (await api("GET", "/api/definitions")).json;
    assert.deepEqual(defs.parameters.filter((p: { vhost: string }) => p.vhost === "keep"), [{ vhost: "keep", component: "vhost-limits", name: "limits", value: { "max-connections": 7 } }]);
    assert.deepEqual(defs.global_parameters, [{ name: "cluster_tags", value: { region: "north" } }]);

    const other = await startTestBroker();
    const otherApi = apiClient(() => other.httpUrl);
    try {
      const bad = { ...defs, parameters: [...defs.parameters, { vhost: "keep", component: "shovel", name: "s", value: {} }] };
      assert.equal((await otherApi("POST", "/api/definitions", bad)).status, 400);
      assert.equal((await otherApi("GET", "/api/vhosts/keep")).status, 404, "a refused import changes nothing");
      assert.equal((await otherApi("POST", "/api/definitions", defs)).status, 204);
      assert.deepEqual((await otherApi("GET", "/api/vhost-limits/keep")).json, [{ vhost: "keep", value: { "max-connections": 7 } }]);
      assert.deepEqual((await otherApi("GET", "/api/global-parameters/cluster_tags")).json, { name: "cluster_tags", value: { region: "north" } });
    } finally {
      await other.close();
    }

    await broker.close();
    broker = await startTestBroker({ dataDir });
    assert.deepEqual((await api("GET", "/api/vhost-limits/keep")).json, [{ vhost: "keep", value: { "max-connections": 7 } }]);
    assert.deepEqual((await api("GET", "/api/global-parameters/cluster_tags")).json, { name: "cluster_tags", value: { region: "north" } });
  });
});
