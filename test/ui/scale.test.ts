// 10,000 queues: the list is paged on the server, so the browser renders one page of rows. The
// issue's bar: a list page renders in under 1 s on this machine (measured in the page, from the
// navigation to the rows being in the DOM, including the API request).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { useGuestPage } from "./guest-page.js";

const QUEUES = 10_000;
const BUDGET_MS = 1000;

/**
 * Runs `action` in the page and resolves with the ms until the list table shows `rows` rows, the
 * first containing `first` (the API request and the render both inside the measure).
 */
const timeUntilRows = (action: string, rows: number, first: string): string => `new Promise((resolve, reject) => {
  const t0 = performance.now();
  const done = () => {
    const trs = document.querySelectorAll("table.grid tbody tr");
    return trs.length === ${rows} && trs[0].textContent.includes(${JSON.stringify(first)});
  };
  const obs = new MutationObserver(() => { if (done()) { obs.disconnect(); resolve(performance.now() - t0); } });
  obs.observe(document.body, { childList: true, subtree: true, characterData: true });
  setTimeout(() => { obs.disconnect(); reject(new Error("list did not render in 10 s")); }, 10000);
  ${action}
})`;

const clickSortByName = `[...document.querySelectorAll("th button.sort")].find((b) => b.textContent.startsWith("Name")).click();`;

describe("web UI with 10,000 queues", () => {
  let broker: TestBroker;

  before(async () => {
    broker = await startTestBroker();
    const conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createChannel();
    const pending: Array<Promise<unknown>> = [];
    for (let i = 0; i < QUEUES; i++) pending.push(ch.assertQueue(`load.${String(i).padStart(5, "0")}`, { durable: false }));
    await Promise.all(pending);
    await conn.close();
  });
  after(async () => {
    await broker?.close();
  });
  const ui = useGuestPage(() => broker.httpUrl);

  it(`renders a page of the queue list in under ${BUDGET_MS} ms`, async () => {
    const ms = (await ui.w.page.evaluate(timeUntilRows(`location.hash = "/queues";`, 100, "load.00000"))) as number;
    const apiMs = (await ui.w.page.evaluate(`performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/queues?")).map((e) => Math.round(e.duration)).join(",")`)) as string;
    console.log(`# queue list, first page of ${QUEUES} queues: ${ms.toFixed(0)} ms (API request: ${apiMs} ms)`);
    await ui.w.shot("queues-10000", false);
    assert.ok(ms < BUDGET_MS, `first page took ${ms.toFixed(0)} ms`);
    const text = (await ui.w.page.evaluate(`document.querySelector(".list-count").textContent`)) as string;
    assert.match(text, /1–100 of 10,000 queues/);
  });

  it(`pages, sorts and filters on the server, each in under ${BUDGET_MS} ms`, async () => {
    const measure = async (what: string, action: string, rows: number, first: string): Promise<number> => {
      const ms = (await ui.w.page.evaluate(timeUntilRows(action, rows, first))) as number;
      console.log(`# ${what}: ${ms.toFixed(0)} ms`);
      assert.ok(ms < BUDGET_MS, `${what} took ${ms.toFixed(0)} ms`);
      return ms;
    };
    await measure("last page", `document.querySelector("button[aria-label='Last page']").click();`, 100, "load.09900");
    await measure("sort by name", clickSortByName, 100, "load.00000");
    await measure("sort by name, reversed", clickSortByName, 100, "load.09999");
    const input = await ui.w.page.$("input[type=search]");
    assert.ok(input);
    await input.type("load.0999");
    await ui.w.page.waitForFunction(`document.querySelectorAll("table.grid tbody tr").length === 10`, { timeout: 10_000 });
    assert.match((await ui.w.page.evaluate(`document.querySelector(".list-count").textContent`)) as string, /1–10 of 10 queues \(filtered from 10,000\)/);
    assert.deepEqual(ui.w.problems, []);
  });
});
