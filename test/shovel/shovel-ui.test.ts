// The shovel pages in real headless Chromium against a real broker: Admin › Shovel Management
// adds a shovel through its form (the broker then moves messages with it), Shovel Status shows
// it running and restarts it, and Delete removes it. Screenshots go to test-output/ui/shovel-*.png.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Browser } from "puppeteer-core";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { launchBrowser, openPage, type WatchedPage } from "../ui/browser.js";
import { clickText, fill, go, login, openSection, waitText } from "../ui/ui-session.js";
import { publishConfirmed, queueCounts } from "./shovel-helpers.js";

describe("web UI shovel pages", () => {
  let broker: TestBroker;
  let browser: Browser;
  let w: WatchedPage;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
    await api("PUT", "/api/parameters/shovel/%2f/to-remote", { value: { "src-uri": "amqp://", "src-exchange": "amq.topic", "src-exchange-key": "orders.#", "dest-uri": "amqp://user:secret@127.0.0.1:1/%2f", "reconnect-delay": 30 } });
    browser = await launchBrowser();
    w = await openPage(browser);
    await login(w.page, broker.httpUrl, "guest", "guest");
    await waitText(w.page, "h1", "Overview");
  });
  after(async () => {
    await browser?.close();
    await broker?.close();
  });

  it("adds a shovel, shows its state, restarts and deletes it", async () => {
    await go(w.page, "/admin/shovels", "Shovel Management");
    await waitText(w.page, "table.grid", "to-remote");
    await openSection(w.page, "Add a new shovel");
    await fill(w.page, "Add shovel", "name", "ui-mover");
    await fill(w.page, "Add shovel", "src", "ui-in");
    await fill(w.page, "Add shovel", "dest", "ui-out");
    await clickText(w.page, "form[aria-label='Add shovel'] button", "Add shovel");
    await waitText(w.page, "table.grid", "ui-mover");
    assert.equal((await api("GET", "/api/parameters/shovel/%2f/ui-mover")).json.value["src-queue"], "ui-in");
    await w.shot("shovel-management");

    await publishConfirmed(broker.amqpUrl, 5, { queue: "ui-in" });
    await eventually(async () => (await queueCounts(api, "/", "ui-out"))?.messages === 5, 10_000, "moved by the shovel added in the UI");

    await go(w.page, "/admin/shovel-status", "Shovel Status");
    await waitText(w.page, "tr[data-shovel=ui-mover]", "running");
    await waitText(w.page, "tr[data-shovel=to-remote]", "terminated");
    await w.shot("shovel-status");
    await clickText(w.page, "tr[data-shovel=ui-mover] button", "Restart");
    await waitText(w.page, ".msg", "Shovel ui-mover restarted.");
    await waitText(w.page, "tr[data-shovel=ui-mover]", "running");

    await go(w.page, "/admin/shovels", "Shovel Management");
    await clickText(w.page, "tr[data-shovel=ui-mover] button", "Delete");
    await eventually(async () => (await api("GET", "/api/parameters/shovel/%2f/ui-mover")).status === 404, 10_000, "deleted");
    assert.deepEqual(w.problems, []);
  });
});
