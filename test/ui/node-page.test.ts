// The node page as RabbitMQ 3.10's (issue 47, point 5), in real headless Chromium: config file,
// database directory and log file; process figures with the run queue; enabled plugins, feature
// flags, exchange types, authentication mechanisms and applications; and what Coney has no
// counterpart for, named. Also the node record's enabled_plugins: the RabbitMQ plugins whose
// function the node serves — a protocol's only while its listener is configured.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { loggedInPage, useGuestPage } from "./guest-page.js";
import { go, openSection, textOf, waitText } from "./ui-session.js";

interface NodeRecord {
  name: string;
  db_dir: string;
  log_files: string[];
  config_files: string[];
  enabled_plugins: string[];
  os_pid: string;
  run_queue: number | null;
}

describe("web UI: the node page", () => {
  let b: TestBroker;
  const api = apiClient(() => b.httpUrl);
  before(async () => {
    b = await startTestBroker({ mqttPort: 0 });
    assert.equal((await api("PUT", "/api/users/watcher", { password: "watcher-pw", tags: "monitoring" })).status, 201);
  });
  after(async () => {
    await b?.close();
  });
  const ui = useGuestPage(() => b.httpUrl);
  const nodeRecord = async (): Promise<NodeRecord> => ((await api("GET", "/api/nodes")).json as NodeRecord[])[0]!;

  it("lists as enabled the plugins whose function the node serves, a protocol's only with its listener", async () => {
    const n = await nodeRecord();
    for (const p of ["rabbitmq_management", "rabbitmq_mqtt", "rabbitmq_amqp1_0", "rabbitmq_shovel", "rabbitmq_federation", "rabbitmq_consistent_hash_exchange"]) {
      assert.ok(n.enabled_plugins.includes(p), `${p} in ${n.enabled_plugins.join(", ")}`);
    }
    // This node has no STOMP, stream or Web MQTT listener.
    for (const p of ["rabbitmq_stomp", "rabbitmq_stream", "rabbitmq_web_mqtt"]) assert.ok(!n.enabled_plugins.includes(p), `${p} is not on`);
    assert.deepEqual(n.enabled_plugins, [...n.enabled_plugins].sort());
    assert.equal(n.log_files.length, 1);
  });

  it("shows the node's files, process figures and what it offers", async () => {
    const n = await nodeRecord();
    await go(ui.w.page, `/nodes/${encodeURIComponent(n.name)}`, n.name);
    await waitText(ui.w.page, "table[aria-label=Node]", "Database directory");
    const facts = await textOf(ui.w.page, "table[aria-label=Node]");
    // The data directory, or the in-memory store's note when the suite runs without disk.
    assert.ok(facts.includes(n.db_dir === "" ? "kept in memory" : n.db_dir), facts);
    assert.match(facts, /Config filenone \(defaults/);
    assert.ok(facts.includes(`Log file${n.log_files[0]}`), facts);
    assert.match(facts, /Coney version\d+\.\d+\.\d+/);
    await waitText(ui.w.page, "table[aria-label=Process]", "Run queue");
    const proc = await textOf(ui.w.page, "table[aria-label=Process]");
    assert.ok(proc.includes(`OS process id${n.os_pid}`), proc);
    assert.match(proc, n.run_queue === null ? /Run queuenot known/ : /Run queue\d+ threads ready to run/);

    await waitText(ui.w.page, "ul[aria-label='Enabled plugins']", "rabbitmq_mqtt");
    const plugins = await textOf(ui.w.page, "ul[aria-label='Enabled plugins']");
    assert.ok(!plugins.includes("rabbitmq_stomp"), plugins);
    await waitText(ui.w.page, "table[aria-label='Feature flags']", "quorum_queue");
    await waitText(ui.w.page, "table[aria-label='Exchange types']", "x-consistent-hash");
    await waitText(ui.w.page, "table[aria-label='Authentication mechanisms']", "AMQPLAIN");
    await openSection(ui.w.page, "All applications");
    await waitText(ui.w.page, "table[aria-label=Applications]", "fastify");
    await openSection(ui.w.page, "Not in Coney");
    await waitText(ui.w.page, "ul.not-in-coney", "Binary references");
    await ui.w.shot("node-page", true);
    assert.deepEqual(ui.w.problems, []);
  });

  it("is a monitoring user's page too", async () => {
    const n = await nodeRecord();
    const tab = await loggedInPage(ui.browser, b.httpUrl, "watcher", "watcher-pw");
    try {
      await go(tab.page, `/nodes/${encodeURIComponent(n.name)}`, n.name);
      await waitText(tab.page, "table[aria-label='Feature flags']", "stream_queue");
      await waitText(tab.page, "ul[aria-label='Enabled plugins']", "rabbitmq_management");
      assert.deepEqual(tab.problems, []);
    } finally {
      await tab.page.close();
    }
  });
});
