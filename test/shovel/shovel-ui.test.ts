// The shovel pages in real headless Chromium against a real broker: Admin › Shovel Management
// adds a shovel through its form (the broker then moves messages with it), Shovel Status shows
// it running and restarts it, and Delete removes it. Screenshots go to test-output/ui/shovel-*.png.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { useGuestPage } from "../ui/guest-page.js";
import { clickText, fill, go, openSection, waitText } from "../ui/ui-session.js";
import { publishConfirmed, queueCounts } from "./shovel-helpers.js";

describe("web UI shovel pages", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
    await api("PUT", "/api/parameters/shovel/%2f/to-remote", { value: { "src-uri": "amqp://", "src-exchange": "amq.topic", "src-exchange-key": "orders.#", "dest-uri": "amqp://user:secret@127.0.0.1:1/%2f", "reconnect-delay": 30 } });
  });
  after(async () => {
    await broker?.close();
  });
  const ui = useGuestPage(() => broker.httpUrl);

  it("adds a shovel, shows its state, restarts and deletes it", async () => {
    await go(ui.w.page, "/admin/shovels", "Shovel Management");
    await waitText(ui.w.page, "table.grid", "to-remote");
    await openSection(ui.w.page, "Add a new shovel");
    await fill(ui.w.page, "Add shovel", "name", "ui-mover");
    await fill(ui.w.page, "Add shovel", "src", "ui-in");
    await fill(ui.w.page, "Add shovel", "dest", "ui-out");
    await clickText(ui.w.page, "form[aria-label='Add shovel'] button", "Add shovel");
    await waitText(ui.w.page, "table.grid", "ui-mover");
    assert.equal((await api("GET", "/api/parameters/shovel/%2f/ui-mover")).json.value["src-queue"], "ui-in");
    await ui.w.shot("shovel-management");

    await publishConfirmed(broker.amqpUrl, 5, { queue: "ui-in" });
    await eventually(async () => (await queueCounts(api, "/", "ui-out"))?.messages === 5, 10_000, "moved by the shovel added in the UI");

    await go(ui.w.page, "/admin/shovel-status", "Shovel Status");
    await waitText(ui.w.page, "tr[data-shovel=ui-mover]", "running");
    await waitText(ui.w.page, "tr[data-shovel=to-remote]", "terminated");
    // A terminated shovel keeps its ends on the page (from its definition, credentials hidden), and its state is coloured.
    await waitText(ui.w.page, "tr[data-shovel=to-remote]", "exchange amq.topic (key orders.#)");
    await waitText(ui.w.page, "tr[data-shovel=to-remote]", "amqp://127.0.0.1:1/%2f");
    const colour = (await ui.w.page.evaluate(`getComputedStyle(document.querySelector("tr[data-shovel=to-remote] .state")).color`)) as string;
    const plain = (await ui.w.page.evaluate(`getComputedStyle(document.querySelector("tr[data-shovel=to-remote] td")).color`)) as string;
    assert.notEqual(colour, plain, "the terminated state is coloured");
    await ui.w.shot("shovel-status");
    await clickText(ui.w.page, "tr[data-shovel=ui-mover] button", "Restart");
    await waitText(ui.w.page, ".msg", "Shovel ui-mover restarted.");
    await waitText(ui.w.page, "tr[data-shovel=ui-mover]", "running");

    await go(ui.w.page, "/admin/shovels", "Shovel Management");
    await clickText(ui.w.page, "tr[data-shovel=ui-mover] button", "Delete");
    await eventually(async () => (await api("GET", "/api/parameters/shovel/%2f/ui-mover")).status === 404, 10_000, "deleted");
    assert.deepEqual(ui.w.problems, []);
  });
});
