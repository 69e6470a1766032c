// Charts with the broker's history, the Feature flags page and the node page, in real headless
// Chromium against a real broker: after real traffic and two of the broker's 5 s samples, a page
// opened fresh draws more than its live point at once; the range picker asks for its age and
// increment and is remembered; flags are listed, enabled by an administrator only; the node page
// shows its gauges' history and the memory breakdown.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import type { Page } from "puppeteer-core";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { loggedInPage, useGuestPage } from "./guest-page.js";
import { clickText, go, textOf, waitText } from "./ui-session.js";

/** What each chart on the page draws: [title, time points, age, incr, largest figure before the newest point]. */
async function charts(page: Page): Promise<Array<[string, number, number, number, number]>> {
  return (await page.evaluate(`[...document.querySelectorAll("figure.chart")].map((f) => {
    const p = f.querySelector(".chart-plot");
    return [f.querySelector("figcaption").firstChild.textContent.trim(), Number(p.dataset.points ?? 0), Number(p.dataset.age ?? 0), Number(p.dataset.incr ?? 0), Number(p.dataset.peak ?? 0)];
  })`)) as Array<[string, number, number, number, number]>;
}

/** Waits until the page has `n` charts, each drawn from an answer (data-points set). */
async function waitCharts(page: Page, n: number): Promise<void> {
  await page.waitForFunction(`document.querySelectorAll("figure.chart .chart-plot[data-points]").length >= ${n}`, { timeout: 10_000, polling: 50 });
}

describe("web UI charts with the broker's history, feature flags and the node page", () => {
  let broker: TestBroker;
  let conn: ChannelModel;
  let traffic: NodeJS.Timeout | undefined;
  const api = apiClient(() => broker.httpUrl);
  const H = "lengths_age=60&lengths_incr=5&msg_rates_age=60&msg_rates_incr=5&data_rates_age=60&data_rates_incr=5&node_stats_age=60&node_stats_incr=5";
  /**
   * How many of the samples of `field` of the record at `path` carry a figure (not 0): the live
   * one and the history. (Before an object's first 5 s sample the broker reads its history as
   * zeros, so counting points alone would not show that history exists.)
   */
  const samples = async (path: string, ...field: string[]): Promise<number> => {
    const r = await api("GET", `${path}${path.includes("?") ? "&" : "?"}${H}`);
    const d = field.reduce((o: unknown, k) => (o as Record<string, unknown> | undefined)?.[k], r.json) as { samples?: Array<{ sample: number }> } | undefined;
    return r.status === 200 ? (d?.samples?.filter((p) => p.sample > 0).length ?? 0) : 0;
  };
  let connection = "";
  let channel = "";

  before(async () => {
    broker = await startTestBroker();
    assert.ok((await api("PUT", "/api/users/planner", { password: "pw", tags: "policymaker,monitoring" })).status < 300);
    conn = await amqp.connect(broker.amqpUrl, { clientProperties: { connection_name: "history-traffic" } });
    const ch = await conn.createChannel();
    await ch.assertExchange("ledger", "fanout");
    await ch.assertQueue("entries");
    await ch.bindQueue("entries", "ledger", "");
    for (let i = 0; i < 40; i++) ch.publish("ledger", "", Buffer.from(`entry ${i}`));
    await eventually(async () => (await api("GET", "/api/queues/%2F/entries")).json?.messages >= 40, 5000, "40 messages queued");
    // Steady traffic while the test runs (20 messages/s), so rate charts have figures to draw.
    traffic = setInterval(() => {
      for (let i = 0; i < 4; i++) ch.publish("ledger", "", Buffer.from("tick"));
    }, 200);
    connection = ((await api("GET", "/api/connections")).json as Array<{ name: string }>)[0]!.name;
    channel = ((await api("GET", "/api/channels")).json as Array<{ name: string; number: number }>).find((c) => c.number === 1)!.name;
    // Two of the broker's 5 s samples since the traffic: every object then has history behind its
    // live point (the live sample plus at least two points every 5 s).
    const enough = async (path: string, ...field: string[]): Promise<boolean> => (await samples(path, ...field)) >= 3;
    await eventually(
      async () =>
        (await enough("/api/queues/%2F/entries", "messages_details")) &&
        (await enough("/api/queues/%2F/entries", "message_stats", "publish_details")) &&
        (await enough("/api/exchanges/%2F/ledger", "message_stats", "publish_in_details")) &&
        (await enough(`/api/connections/${encodeURIComponent(connection)}`, "recv_oct_details")) &&
        (await enough(`/api/channels/${encodeURIComponent(channel)}`, "message_stats", "publish_details")) &&
        (await enough("/api/vhosts/%2F", "messages_details")) &&
        (await enough("/api/overview", "queue_totals", "messages_details")),
      30_000,
      "two 5 s samples of every object",
    );
  });
  after(async () => {
    clearInterval(traffic);
    await conn?.close().catch(() => undefined);
    await broker?.close();
  });
  const ui = useGuestPage(() => broker.httpUrl);

  it("draws history on first load on the overview, queue, exchange, connection, channel and vhost pages", async () => {
    const pages: Array<[string, string, number, string]> = [
      ["/", "Overview", 2, "overview-history"],
      ["/queues/%2F/entries", "entries", 2, "queue-history"],
      ["/exchanges/%2F/ledger", "ledger", 1, "exchange-history"],
      [`/connections/${encodeURIComponent(connection)}`, "Connection", 1, "connection-history"],
      [`/channels/${encodeURIComponent(channel)}`, "Channel", 1, "channel-history"],
      ["/admin/vhosts/%2F", "Virtual host /", 2, "vhost-history"],
    ];
    for (const [hash, heading, n, shot] of pages) {
      // A fresh tab each time: nothing the UI kept from an earlier page can fill the chart.
      const fresh = await loggedInPage(ui.browser, broker.httpUrl, "guest", "guest");
      await go(fresh.page, hash, heading);
      await waitCharts(fresh.page, n);
      // The overview's churn charts (overview-vhosts.test.ts) draw operations, not this test's message traffic.
      const drawn = (await charts(fresh.page)).filter(([title]) => !title.endsWith("operations"));
      assert.equal(drawn.length, n, `${hash}: ${JSON.stringify(drawn)}`);
      for (const [title, points, age, incr, peak] of drawn) {
        assert.ok(points > 1, `${hash} "${title}" draws the broker's history at once, not only the live point: ${points}`);
        assert.ok(peak > 0, `${hash} "${title}": the history shows the traffic, not zeros`);
        assert.deepEqual([age, incr], [60, 5], "the default range: the last minute every 5 s");
      }
      await fresh.shot(shot);
      assert.deepEqual(fresh.problems, [], `${hash}: no console errors or failed requests`);
      await fresh.page.close();
    }
  });

  it("asks for the picked range's age and increment, and remembers it across pages and visits", async () => {
    const asked: string[] = [];
    const onRequest = (r: { url(): string }): void => void asked.push(r.url());
    ui.w.page.on("request", onRequest);
    await go(ui.w.page, "/queues/%2F/entries", "entries");
    await waitCharts(ui.w.page, 2);
    assert.ok(asked.some((u) => u.includes("/api/queues/%2F/entries?lengths_age=60&lengths_incr=5&msg_rates_age=60&msg_rates_incr=5")), asked.join("\n"));
    await ui.w.page.select("select[name=chart-range]", "3600|60");
    await ui.w.page.waitForFunction(`[...document.querySelectorAll(".chart-plot")].every((p) => p.dataset.age === "3600" && p.dataset.incr === "60")`, { timeout: 10_000 });
    assert.ok(asked.some((u) => u.includes("/api/queues/%2F/entries?lengths_age=3600&lengths_incr=60&msg_rates_age=3600&msg_rates_incr=60")), asked.join("\n"));
    await waitText(ui.w.page, "figcaption", "last hour");
    await ui.w.shot("queue-last-hour");
    // Another page, then the whole app loaded again: the choice holds.
    asked.length = 0;
    await go(ui.w.page, "/exchanges/%2F/ledger", "ledger");
    await waitCharts(ui.w.page, 1);
    assert.ok(asked.some((u) => u.includes("/api/exchanges/%2F/ledger?msg_rates_age=3600&msg_rates_incr=60")), asked.join("\n"));
    asked.length = 0;
    await ui.w.page.reload({ waitUntil: "domcontentloaded" });
    await waitText(ui.w.page, "h1", "ledger");
    await waitCharts(ui.w.page, 1);
    assert.equal(await ui.w.page.$eval("select[name=chart-range]", (e) => (e as unknown as { value: string }).value), "3600|60");
    assert.ok(asked.some((u) => u.includes("msg_rates_age=3600&msg_rates_incr=60")), asked.join("\n"));
    ui.w.page.off("request", onRequest);
    await ui.w.page.select("select[name=chart-range]", "60|5");
    await ui.w.page.waitForFunction(`[...document.querySelectorAll(".chart-plot")].every((p) => p.dataset.age === "60")`, { timeout: 10_000 });
    assert.deepEqual(ui.w.problems, []);
  });

  it("lists feature flags and lets an administrator enable a disabled one", async () => {
    // Every flag of a fresh broker is enabled or unavailable, as on a fresh RabbitMQ 3.10 node. A
    // flag left disabled (a node upgraded in place) is set up by reaching into the broker's flags.
    const flag = broker.broker.featureFlags.list().find((f) => f.name === "user_limits")!;
    flag.state = "disabled";
    await go(ui.w.page, "/admin", "Admin");
    await clickText(ui.w.page, ".admin-index a", "Feature flags");
    await waitText(ui.w.page, "h1", "Feature flags");
    await waitText(ui.w.page, "table[aria-label='Feature flags']", "quorum_queue");
    const table = await textOf(ui.w.page, "table[aria-label='Feature flags']");
    assert.match(table, /stream_queue\s*enabled/);
    assert.match(table, /maintenance_mode_status\s*unavailable/);
    assert.match(table, /implicit_default_bindings\s*enabled/);
    // Only the disabled flag offers Enable.
    const buttons = (await ui.w.page.evaluate(`[...document.querySelectorAll("table[aria-label='Feature flags'] button")].map((b) => b.getAttribute("aria-label"))`)) as string[];
    assert.deepEqual(buttons, ["Enable user_limits"]);
    await ui.w.shot("feature-flags-disabled");
    await clickText(ui.w.page, "table[aria-label='Feature flags'] button", "Enable");
    await waitText(ui.w.page, "[role=status]", "Feature flag user_limits enabled.");
    await waitText(ui.w.page, "tr[data-flag=user_limits]", "enabled");
    const listed = (await api("GET", "/api/feature-flags")).json as Array<{ name: string; state: string }>;
    assert.equal(listed.find((f) => f.name === "user_limits")?.state, "enabled");
    assert.deepEqual(ui.w.problems, []);
  });

  it("shows no Enable button to a user who is not an administrator", async () => {
    broker.broker.featureFlags.list().find((f) => f.name === "user_limits")!.state = "disabled";
    const other = await loggedInPage(ui.browser, broker.httpUrl, "planner", "pw");
    await go(other.page, "/admin/feature-flags", "Feature flags");
    await waitText(other.page, "table[aria-label='Feature flags']", "user_limits");
    assert.equal((await other.page.$$("table[aria-label='Feature flags'] button")).length, 0, "no Enable for a policymaker");
    assert.match(await textOf(other.page, "tr[data-flag=user_limits]"), /disabled/);
    await waitText(other.page, "main", "an administrator may enable it");
    await other.shot("feature-flags-policymaker");
    assert.deepEqual(other.problems, []);
    await other.page.close();
    broker.broker.featureFlags.enable("user_limits");
  });

  it("opens the node page from the overview: gauges with history and the memory breakdown", async () => {
    const node = ((await api("GET", "/api/nodes")).json as Array<{ name: string }>)[0]!.name;
    await eventually(async () => (await samples(`/api/nodes/${encodeURIComponent(node)}`, "mem_used_details")) >= 3, 30_000, "two samples of the node's gauges");
    await go(ui.w.page, "/", "Overview");
    await ui.w.page.waitForSelector("table[aria-label=Node] a", { timeout: 10_000 });
    assert.equal(await ui.w.page.$eval("table[aria-label=Node] a", (a) => (a as unknown as { textContent: string }).textContent), node);
    await ui.w.page.click("table[aria-label=Node] a");
    await waitText(ui.w.page, "h1", `Node ${node}`);
    // The same resources table as the overview's (components/node-resources.ts).
    await waitText(ui.w.page, "table[aria-label=Resources]", "Event-loop resources");
    assert.match(await textOf(ui.w.page, "table[aria-label=Resources]"), /Memory.*used, alarm at.*Disk space.*free, alarm below.*File descriptors\s*\d+ of \d+.*Sockets\s*\d+ of \d+/s);
    await waitCharts(ui.w.page, 3);
    const drawn = await charts(ui.w.page);
    assert.deepEqual(drawn.map((c) => c[0]), ["Memory", "File descriptors", "Sockets"]);
    for (const [title, points, , , peak] of drawn) assert.ok(points > 1 && peak > 0, `node chart "${title}" has history: ${points} points, peak ${peak}`);
    await waitText(ui.w.page, "[aria-label='Memory breakdown']", "Binaries");
    const memory = await textOf(ui.w.page, "[aria-label='Memory breakdown']");
    for (const group of ["Connections", "Queues", "Binaries", "Processes", "System", "Allocated, unused"]) assert.ok(memory.includes(group), `${group} in ${memory}`);
    assert.match(memory, /Total \d+(\.\d)? MiB/);
    // The total shown is the node's own figure (rss), and the largest categories are not zero.
    const total = Number(await ui.w.page.$eval("[data-total]", (e) => (e as unknown as { dataset: { total: string } }).dataset.total));
    const rec = (await api("GET", `/api/nodes/${encodeURIComponent(node)}?memory=true`)).json as { memory: { total: { rss: number }; other_proc: number } };
    assert.ok(total > 10 * 1024 * 1024 && Math.abs(total - rec.memory.total.rss) < 0.5 * rec.memory.total.rss, `total ${total} vs rss ${rec.memory.total.rss}`);
    assert.match(await textOf(ui.w.page, "table[aria-label='Memory: Processes']"), /other proc\s*\d/);
    await ui.w.shot("node");
    assert.deepEqual(ui.w.problems, []);
  });
});
