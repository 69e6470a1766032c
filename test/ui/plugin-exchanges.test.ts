// The plugin exchanges in the web UI (headless Chromium, real broker): the Add exchange form
// offers x-consistent-hash and x-delayed-message with its x-delayed-type, and the exchange page
// shows how many messages a delayed exchange holds.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import type { Browser } from "puppeteer-core";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { launchBrowser, openPage, type WatchedPage } from "./browser.js";
import { clickText, fill, go, login, openSection, textOf, waitText } from "./ui-session.js";

describe("web UI: plugin exchanges", () => {
  let broker: TestBroker;
  let browser: Browser;
  let w: WatchedPage;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker();
    browser = await launchBrowser();
    w = await openPage(browser);
    await login(w.page, broker.httpUrl, "guest", "guest");
    await waitText(w.page, "h1", "Overview");
  });
  after(async () => {
    await browser?.close();
    await broker?.close();
  });

  it("adds an x-delayed-message exchange with its x-delayed-type, and shows its delayed messages", async () => {
    await go(w.page, "/exchanges", "Exchanges");
    await openSection(w.page, "Add a new exchange");
    await fill(w.page, "Add exchange", "name", "ui.delayed");
    await fill(w.page, "Add exchange", "type", "x-delayed-message");
    await fill(w.page, "Add exchange", "x-delayed-type", "topic");
    await clickText(w.page, "form[aria-label='Add exchange'] button[type=submit]", "Add exchange");
    await waitText(w.page, "table.grid", "ui.delayed");
    const x = (await api("GET", "/api/exchanges/%2F/ui.delayed")).json;
    assert.equal(x.type, "x-delayed-message");
    assert.deepEqual(x.arguments, { "x-delayed-type": "topic" });

    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createConfirmChannel();
    for (let i = 0; i < 2; i++) ch.publish("ui.delayed", "a.b", Buffer.from("later"), { headers: { "x-delay": 600_000 } });
    await ch.waitForConfirms();
    await conn.close();
    await go(w.page, "/exchanges/%2F/ui.delayed", "ui.delayed");
    await waitText(w.page, "table.kv", "Delayed messages");
    assert.match(await textOf(w.page, "table.kv"), /Delayed messages\s*2\b/);
    await w.shot("exchange-delayed");
  });

  it("adds an x-consistent-hash exchange", async () => {
    await go(w.page, "/exchanges", "Exchanges");
    await openSection(w.page, "Add a new exchange");
    await fill(w.page, "Add exchange", "name", "ui.hash");
    await fill(w.page, "Add exchange", "type", "x-consistent-hash");
    await waitText(w.page, "form[aria-label='Add exchange'] .hint", "weight");
    await clickText(w.page, "form[aria-label='Add exchange'] button[type=submit]", "Add exchange");
    await waitText(w.page, "table.grid", "ui.hash");
    assert.equal((await api("GET", "/api/exchanges/%2F/ui.hash")).json.type, "x-consistent-hash");
    assert.deepEqual(w.problems, []);
  });
});
