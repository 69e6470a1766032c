// A narrow window (issue 47, point 9), in real headless Chromium at 800 px: the shovel tables stay
// inside the window with their Delete and Restart buttons on screen, and a table too wide for the
// window (Queues, Channels, Audit) shows a visible cue on the side that hides columns, which moves
// to the other side once the table is scrolled to its end.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import type { Page } from "puppeteer-core";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { useGuestPage } from "./guest-page.js";
import { go, waitText } from "./ui-session.js";

const LONG = "orders.region-eu-west.customer-notifications-priority-high";

/** The page is no wider than the window, and every element matching `selector` lies inside it. */
async function insideWindow(page: Page, selector: string): Promise<void> {
  const r = (await page.evaluate(`(() => ({
    page: document.documentElement.scrollWidth,
    window: window.innerWidth,
    outside: [...document.querySelectorAll(${JSON.stringify(selector)})].filter((e) => e.getBoundingClientRect().right > window.innerWidth).map((e) => e.getAttribute("aria-label")),
    count: document.querySelectorAll(${JSON.stringify(selector)}).length,
  }))()`)) as { page: number; window: number; outside: string[]; count: number };
  assert.ok(r.page <= r.window, `the page is ${r.page} px wide in a ${r.window} px window`);
  assert.ok(r.count > 0, `no ${selector} on the page`);
  assert.deepEqual(r.outside, [], "buttons outside the window");
}

/** The cue of the first table in main: which sides it marks. */
const cue = (page: Page): Promise<{ left: boolean; right: boolean; arrow: boolean }> =>
  page.evaluate(`(() => {
    const s = document.querySelector("main .table-scroll");
    return { left: !!s && s.classList.contains("more-left"), right: !!s && s.classList.contains("more-right"), arrow: !!s && !!s.querySelector(".scroll-cue-right") };
  })()`) as Promise<{ left: boolean; right: boolean; arrow: boolean }>;

describe("web UI: an 800 px window", () => {
  let b: TestBroker;
  let conn: ChannelModel;
  const api = apiClient(() => b.httpUrl);
  before(async () => {
    b = await startTestBroker();
    conn = await amqp.connect(b.amqpUrl);
    const ch = await conn.createChannel();
    for (let i = 0; i < 3; i++) await ch.assertQueue(`${LONG}-${i}`);
    await ch.prefetch(5);
    await ch.consume(`${LONG}-0`, () => undefined);
    const put = async (path: string, body: unknown) => assert.ok((await api("PUT", path, body)).status < 300, path);
    await put("/api/parameters/shovel/%2F/regional-forwarder", { value: { "src-uri": "amqp://", "src-queue": `${LONG}-1`, "dest-uri": "amqp://", "dest-queue": `${LONG}-2` } });
    // One that cannot connect: its state is terminated with a long reason.
    await put("/api/parameters/shovel/%2F/to-unreachable-datacentre", { value: { "src-uri": "amqp://", "src-queue": `${LONG}-1`, "dest-uri": "amqp://user:secret@127.0.0.1:1/%2f", "reconnect-delay": 30 } });
    await eventually(async () => ((await api("GET", "/api/shovels")).json as unknown[]).length === 2, 10_000, "two shovels reported");
  });
  after(async () => {
    await conn?.close().catch(() => undefined);
    await b?.close();
  });
  const ui = useGuestPage(() => b.httpUrl);

  it("keeps Shovel Management and Shovel Status inside the window, buttons on screen", async () => {
    await ui.w.page.setViewport({ width: 800, height: 900 });
    try {
      await go(ui.w.page, "/admin/shovels", "Shovel Management");
      await waitText(ui.w.page, "table[aria-label=Shovels]", "to-unreachable-datacentre");
      await insideWindow(ui.w.page, "table[aria-label=Shovels] button");
      assert.deepEqual(await cue(ui.w.page), { left: false, right: false, arrow: false }, "the table fits: no cue");
      await ui.w.shot("shovels-800", false);
      await go(ui.w.page, "/admin/shovel-status", "Shovel Status");
      await waitText(ui.w.page, "table[aria-label='Shovel status']", "terminated");
      await insideWindow(ui.w.page, "table[aria-label='Shovel status'] button");
      await ui.w.shot("shovel-status-800", false);
      assert.deepEqual(ui.w.problems, []);
    } finally {
      await ui.w.page.setViewport({ width: 1360, height: 900 });
    }
  });

  it("shows which side of a too-wide table hides columns on Queues, Channels and Audit", async () => {
    await ui.w.page.setViewport({ width: 800, height: 900 });
    try {
      for (const [hash, heading, text] of [["/queues", "Queues", `${LONG}-0`], ["/channels", "Channels", "(1)"], ["/admin/audit", "Audit trail", "regional-forwarder"]] as const) {
        await go(ui.w.page, hash, heading);
        await waitText(ui.w.page, "main table", text);
        await ui.w.page.waitForFunction(`!!document.querySelector("main .table-scroll.more-right")`, { timeout: 5000 }).catch(() => undefined);
        assert.deepEqual(await cue(ui.w.page), { left: false, right: true, arrow: true }, `${hash}: the right edge is marked`);
        if (hash === "/queues") await ui.w.shot("queues-800-cue", false);
        await ui.w.page.evaluate(`(() => { const w = document.querySelector("main .table-wrap"); w.scrollLeft = w.scrollWidth; })()`);
        await ui.w.page.waitForFunction(`!!document.querySelector("main .table-scroll.more-left:not(.more-right)")`, { timeout: 5000 });
      }
      // Wide enough, the same table has no cue.
      await ui.w.page.setViewport({ width: 1900, height: 900 });
      await go(ui.w.page, "/channels", "Channels");
      await waitText(ui.w.page, "main table", "(1)");
      await ui.w.page.waitForFunction(`!!document.querySelector("main .table-scroll:not(.more-right):not(.more-left)")`, { timeout: 5000 });
      assert.deepEqual(ui.w.problems, []);
    } finally {
      await ui.w.page.setViewport({ width: 1360, height: 900 });
    }
  });
});
