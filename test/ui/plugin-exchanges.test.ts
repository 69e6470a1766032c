// The plugin exchanges in the web UI (headless Chromium, real broker): the Add exchange form
// offers x-consistent-hash and x-delayed-message with its x-delayed-type, and the exchange page
// shows how many messages a delayed exchange holds.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { useGuestPage } from "./guest-page.js";
import { clickText, fill, go, openSection, textOf, waitText } from "./ui-session.js";

describe("web UI: plugin exchanges", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker();
  });
  after(async () => {
    await broker?.close();
  });
  const ui = useGuestPage(() => broker.httpUrl);

  it("adds an x-delayed-message exchange with its x-delayed-type, and shows its delayed messages", async () => {
    await go(ui.w.page, "/exchanges", "Exchanges");
    await openSection(ui.w.page, "Add a new exchange");
    await fill(ui.w.page, "Add exchange", "name", "ui.delayed");
    await fill(ui.w.page, "Add exchange", "type", "x-delayed-message");
    await fill(ui.w.page, "Add exchange", "x-delayed-type", "topic");
    await clickText(ui.w.page, "form[aria-label='Add exchange'] button[type=submit]", "Add exchange");
    await waitText(ui.w.page, "table.grid", "ui.delayed");
    const x = (await api("GET", "/api/exchanges/%2F/ui.delayed")).json;
    assert.equal(x.type, "x-delayed-message");
    assert.deepEqual(x.arguments, { "x-delayed-type": "topic" });

    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createConfirmChannel();
    for (let i = 0; i < 2; i++) ch.publish("ui.delayed", "a.b", Buffer.from("later"), { headers: { "x-delay": 600_000 } });
    await ch.waitForConfirms();
    await conn.close();
    await go(ui.w.page, "/exchanges/%2F/ui.delayed", "ui.delayed");
    await waitText(ui.w.page, "table.kv", "Delayed messages");
    assert.match(await textOf(ui.w.page, "table.kv"), /Delayed messages\s*2\b/);
    await ui.w.shot("exchange-delayed");
  });

  it("adds an x-consistent-hash exchange", async () => {
    await go(ui.w.page, "/exchanges", "Exchanges");
    await openSection(ui.w.page, "Add a new exchange");
    await fill(ui.w.page, "Add exchange", "name", "ui.hash");
    await fill(ui.w.page, "Add exchange", "type", "x-consistent-hash");
    await waitText(ui.w.page, "form[aria-label='Add exchange'] .hint", "weight");
    await clickText(ui.w.page, "form[aria-label='Add exchange'] button[type=submit]", "Add exchange");
    await waitText(ui.w.page, "table.grid", "ui.hash");
    assert.equal((await api("GET", "/api/exchanges/%2F/ui.hash")).json.type, "x-consistent-hash");
    assert.deepEqual(ui.w.problems, []);
  });
});
