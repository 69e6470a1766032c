// The overview's churn statistics and the virtual hosts list's state, network and rate columns
// (issue 47, points 6 and 7), as RabbitMQ 3.10's pages show them, in real headless Chromium.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { useGuestPage } from "./guest-page.js";
import { go, textOf, waitText } from "./ui-session.js";

describe("web UI overview churn and virtual hosts columns", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);
  before(async () => {
    broker = await startTestBroker();
    // Churn: a connection and channel opened and closed, a queue declared and deleted.
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertQueue("churned");
    await ch.deleteQueue("churned");
    await conn.close();
  });
  after(async () => {
    await broker?.close();
  });
  const ui = useGuestPage(() => broker.httpUrl);

  it("shows churn charts and totals that agree with /api/overview", async () => {
    const churn = (await api("GET", "/api/overview")).json.churn_rates as Record<string, number>;
    assert.ok(churn["connection_closed"]! >= 1 && churn["queue_deleted"]! >= 1);
    await go(ui.w.page, "/", "Overview");
    await waitText(ui.w.page, "summary", "Churn statistics");
    for (const title of ["Connection operations", "Channel operations", "Queue operations"]) await waitText(ui.w.page, "figcaption", title);
    await waitText(ui.w.page, "table[aria-label='Churn totals']", "Since start");
    const cells = (await ui.w.page.$$eval("table[aria-label='Churn totals'] td", (tds) => tds.map((t) => (t.textContent ?? "").trim()))) as string[];
    assert.deepEqual(cells, ["connection_created", "connection_closed", "channel_created", "channel_closed", "queue_declared", "queue_created", "queue_deleted"].map((k) => String(churn[k])));
    await ui.w.shot("overview-churn");
    assert.deepEqual(ui.w.problems, []);
  });

  it("lists each virtual host's state, network and message rates", async () => {
    await go(ui.w.page, "/admin/vhosts", "Virtual hosts");
    await waitText(ui.w.page, "table.grid tbody", "running");
    const head = await textOf(ui.w.page, "table.grid thead");
    for (const col of ["State", "From client", "To client", "Publish", "Deliver / get"]) assert.ok(head.includes(col), `${col} in ${head}`);
    assert.match(await textOf(ui.w.page, "table.grid tbody"), /B\/s/);
    await ui.w.shot("admin-vhosts-columns");
    assert.deepEqual(ui.w.problems, []);
  });
});
