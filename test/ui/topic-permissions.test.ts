// Topic permissions in the web UI (real headless Chromium): set one from Admin › Topic
// permissions, see it on the user's and the vhost's pages, ask the explainer about routing keys
// (the broker's own topic check decides), and clear it.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Browser } from "puppeteer-core";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { launchBrowser, openPage, type WatchedPage } from "./browser.js";
import { clickText, fill, go, login, textOf, waitText } from "./ui-session.js";

describe("web UI topic permissions", () => {
  let broker: TestBroker;
  let browser: Browser;
  let w: WatchedPage;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker();
    assert.ok((await api("PUT", "/api/users/sensor", { password: "pw", tags: "management" })).status < 300);
    assert.ok((await api("PUT", "/api/permissions/%2F/sensor", { configure: ".*", write: ".*", read: ".*" })).status < 300);
    assert.ok((await api("PUT", "/api/exchanges/%2F/telemetry", { type: "topic" })).status < 300);
    browser = await launchBrowser();
    w = await openPage(browser);
    await login(w.page, broker.httpUrl, "guest", "guest");
    await waitText(w.page, "h1", "Overview");
  });
  after(async () => {
    await browser?.close();
    await broker?.close();
  });

  it("sets a topic permission from the Admin page, offering the vhost's topic exchanges", async () => {
    await go(w.page, "/admin", "Admin");
    await waitText(w.page, ".admin-index", "Topic permissions");
    await go(w.page, "/admin/topic-permissions", "Topic permissions");
    await waitText(w.page, "main", "No topic permissions");
    await w.page.waitForFunction(`[...document.querySelectorAll("#topic-exchanges option")].some((o) => o.value === "telemetry")`, { timeout: 10_000 });
    const offered = (await w.page.evaluate(`[...document.querySelectorAll("#topic-exchanges option")].map((o) => o.value)`)) as string[];
    assert.ok(offered.includes("amq.topic") && !offered.includes("amq.direct"), `topic exchanges only: ${offered.join(", ")}`);
    await fill(w.page, "Set topic permission", "user", "sensor");
    await fill(w.page, "Set topic permission", "exchange", "telemetry");
    await fill(w.page, "Set topic permission", "write", "^eu\\.{username}\\.");
    await fill(w.page, "Set topic permission", "read", "^eu\\.");
    await clickText(w.page, "form[aria-label='Set topic permission'] button", "Set topic permission");
    await waitText(w.page, "[role=status]", "Topic permission of sensor on telemetry in / set");
    await waitText(w.page, "table[aria-label='Topic permissions']", "telemetry");
    await w.shot("admin-topic-permissions");
    assert.deepEqual((await api("GET", "/api/topic-permissions/%2F/sensor")).json, [{ user: "sensor", vhost: "/", exchange: "telemetry", write: "^eu\\.{username}\\.", read: "^eu\\." }]);
  });

  it("shows it on the user's and the vhost's pages", async () => {
    await go(w.page, "/admin/users/sensor", "User sensor");
    await waitText(w.page, "table[aria-label='Topic permissions']", "^eu\\.{username}\\.");
    await go(w.page, "/admin/vhosts/%2F", "Virtual host /");
    await waitText(w.page, "table[aria-label='Topic permissions']", "sensor");
  });

  it("explains a routing key by the topic permission, as publishing decides", async () => {
    await go(w.page, "/admin/explain/sensor/%2F", "Permission explainer");
    await fill(w.page, "Explain a permission", "permission", "write");
    await fill(w.page, "Explain a permission", "resource", "exchange");
    await fill(w.page, "Explain a permission", "name", "telemetry");
    await fill(w.page, "Explain a permission", "routing_key", "us.sensor.temp");
    await clickText(w.page, "form[aria-label='Explain a permission'] button", "Explain");
    await waitText(w.page, "[aria-label=Verdict]", "Refused");
    const verdict = await textOf(w.page, "[aria-label=Verdict]");
    assert.match(verdict, /4\. Topic permission/);
    assert.match(verdict, /does not match the routing key 'us\.sensor\.temp'/);
    assert.match(verdict, /ACCESS_REFUSED - access to topic 'us\.sensor\.temp' in exchange 'telemetry' in vhost '\/' refused for user 'sensor'/);
    await w.shot("explain-topic-refused");
    await fill(w.page, "Explain a permission", "routing_key", "eu.sensor.temp");
    await clickText(w.page, "form[aria-label='Explain a permission'] button", "Explain");
    await waitText(w.page, "[aria-label=Verdict]", "Allowed");
    assert.match(await textOf(w.page, "[aria-label=Verdict]"), /matches the routing key 'eu\.sensor\.temp'/);
  });

  it("clears it", async () => {
    await go(w.page, "/admin/topic-permissions", "Topic permissions");
    await clickText(w.page, "table[aria-label='Topic permissions'] button", "Clear");
    await waitText(w.page, "main", "No topic permissions");
    await eventually(async () => (await api("GET", "/api/topic-permissions")).json.length === 0, 5000, "cleared");
    assert.deepEqual(w.problems, []);
  });
});
