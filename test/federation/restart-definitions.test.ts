// Federation survives what definitions survive: the upstream and set parameters are in the
// definitions export, a broker restarted on its data dir starts its links again, and a fresh
// broker importing the definitions file runs the same links.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient, type Api } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";

async function allRunning(api: Api, n: number): Promise<void> {
  await eventually(async () => {
    const links = (await api("GET", "/api/federation-links")).json as { status: string }[];
    return links.length === n && links.every((l) => l.status === "running");
  }, 10_000, `${n} running links`);
}

describe("federation across restarts and definitions", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "coney-fed-restart-"));
  let up: TestBroker;
  let down: TestBroker;
  let fresh: TestBroker | null = null;
  const api = apiClient(() => down.httpUrl);
  before(async () => {
    up = await startTestBroker({ clusterName: "restart-up" });
    down = await startTestBroker({ clusterName: "restart-down", dataDir });
  });
  after(async () => {
    await fresh?.close();
    await down?.close();
    await up?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("exports the parameters, restarts the links at boot, and runs them from an imported file", async () => {
    const conn = await amqp.connect(down.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertExchange("fed.r", "fanout", { durable: true });
    await ch.assertQueue("fed.rq", { durable: true });
    await conn.close();
    assert.equal((await api("PUT", "/api/parameters/federation-upstream/%2f/origin", { value: { uri: up.amqpUrl, "max-hops": 1 } })).status, 201);
    assert.equal((await api("PUT", "/api/parameters/federation-upstream-set/%2f/both", { value: [{ upstream: "origin" }] })).status, 201);
    assert.equal((await api("PUT", "/api/policies/%2f/fed", { pattern: "^fed\\.", definition: { "federation-upstream-set": "both" } })).status, 201);
    await allRunning(api, 2);

    const defs = (await api("GET", "/api/definitions")).json;
    const params = (defs.parameters as Record<string, unknown>[]).filter((p) => String(p["component"]).startsWith("federation"));
    assert.deepEqual(params.sort((a, b) => String(a["component"]).localeCompare(String(b["component"]))), [
      { vhost: "/", component: "federation-upstream", name: "origin", value: { uri: up.amqpUrl, "max-hops": 1 } },
      { vhost: "/", component: "federation-upstream-set", name: "both", value: [{ upstream: "origin" }] },
    ]);

    // Restarted on its data dir: the saved parameters and policy bring the links back.
    await down.close();
    down = await startTestBroker({ clusterName: "restart-down", dataDir });
    await allRunning(api, 2);

    // A fresh broker importing the definitions runs the same links.
    fresh = await startTestBroker({ clusterName: "restart-fresh" });
    const freshApi = apiClient(() => fresh!.httpUrl);
    assert.equal((await freshApi("POST", "/api/definitions", defs)).status, 204);
    await allRunning(freshApi, 2);
    const types = ((await freshApi("GET", "/api/federation-links")).json as { type: string }[]).map((l) => l.type).sort();
    assert.deepEqual(types, ["exchange", "queue"]);
  });
});
