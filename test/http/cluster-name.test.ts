// PUT /api/cluster-name renames the cluster as RabbitMQ does (the global parameter cluster_name):
// the API, the overview and new AMQP connections' server properties all show it, it survives a
// restart, and only administrators may do it.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";

describe("the cluster name", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-cluster-name-"));
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker({ dataDir, clusterName: "coney@start", nodeName: "coney@start" });
    await api("PUT", "/api/users/ops", { password: "pw", tags: "policymaker" });
  });
  after(async () => {
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("is the configured name until an administrator renames it", async () => {
    assert.deepEqual((await api("GET", "/api/cluster-name")).json, { name: "coney@start" });
    assert.equal((await api("PUT", "/api/cluster-name", { name: "eu-prod" }, "ops:pw")).status, 403);
    assert.equal((await api("PUT", "/api/cluster-name", {})).status, 400);
    assert.equal((await api("PUT", "/api/cluster-name", { name: "" })).status, 400);
    assert.equal((await api("PUT", "/api/cluster-name", { name: "eu-prod" })).status, 204);
    assert.deepEqual((await api("GET", "/api/cluster-name")).json, { name: "eu-prod" });
    const overview = (await api("GET", "/api/overview")).json;
    assert.equal(overview.cluster_name, "eu-prod");
    assert.equal(overview.node, "coney@start", "the node keeps its name");
    assert.deepEqual((await api("GET", "/api/global-parameters/cluster_name")).json, { name: "cluster_name", value: "eu-prod" });

    const conn = await amqp.connect(broker.amqpUrl);
    try {
      const props = (conn as unknown as { connection: { serverProperties: Record<string, unknown> } }).connection.serverProperties;
      assert.equal(String(props["cluster_name"]), "eu-prod");
    } finally {
      await conn.close();
    }
  });

  it("survives a restart", async () => {
    await broker.close();
    broker = await startTestBroker({ dataDir, clusterName: "coney@start", nodeName: "coney@start" });
    assert.deepEqual((await api("GET", "/api/cluster-name")).json, { name: "eu-prod" });
  });
});
