// Shovels are runtime parameters, so they live in the definitions: a broker restarted on its
// data dir starts its shovels again, and a definitions export imported into another broker
// starts them there.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { publishConfirmed, queueCounts, waitForState } from "./shovel-helpers.js";

describe("shovels in the definitions", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("start again after a restart, and travel in an export to another broker", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "coney-shovel-defs-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    let b: TestBroker = await startTestBroker({ dataDir });
    const api = apiClient(() => b.httpUrl);
    const value = { "src-uri": "amqp://", "src-queue": "keep-in", "dest-uri": "amqp://", "dest-queue": "keep-out" };
    assert.equal((await api("PUT", "/api/parameters/shovel/%2f/keeper", { value })).status, 201);
    await waitForState(api, "/", "keeper", "running");
    await b.close();
    b = await startTestBroker({ dataDir });
    cleanups.push(() => b.close());
    await waitForState(api, "/", "keeper", "running");
    await publishConfirmed(b.amqpUrl, 5, { queue: "keep-in" });
    await eventually(async () => (await queueCounts(api, "/", "keep-out"))?.messages === 5, 10_000, "moved after the restart");

    const exported = (await api("GET", "/api/definitions")).json as { parameters: unknown[] };
    assert.deepEqual(exported.parameters, [{ vhost: "/", component: "shovel", name: "keeper", value }]);
    const other = await startTestBroker();
    cleanups.push(() => other.close());
    const otherApi = apiClient(() => other.httpUrl);
    assert.ok((await otherApi("POST", "/api/definitions", exported)).status < 300);
    await waitForState(otherApi, "/", "keeper", "running");
  });
});
