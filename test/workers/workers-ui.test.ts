// The web UI under `coney --workers 2` (preview): the queues list shows each queue's leader in a
// Node column, and the connections and channels lists show where each one lives, both workers'
// rows through either worker's port (as RabbitMQ's UI shows "Node" when there is more than one).
// Real process tree, real amqplib clients, Debian's Chromium.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp, { type ChannelModel } from "amqplib";
import type { Browser } from "puppeteer-core";
import { eventually, withTimeout } from "../helpers/wait.js";
import { launchBrowser, openPage } from "../ui/browser.js";
import { go, login, textOf, waitText } from "../ui/ui-session.js";
import { startWorkers, type WorkersProcess } from "./workers-harness.js";

describe("coney --workers 2: the UI shows where queues lead and connections live", () => {
  let p: WorkersProcess;
  let browser: Browser;
  const open: ChannelModel[] = [];
  let workers: string[] = [];

  before(async () => {
    p = await startWorkers(["--in-memory"]);
    workers = ((await p.api("GET", "/api/nodes")).json as Array<{ name: string }>).map((n) => n.name).sort();
    // Connections until both workers hold one, and queues until both workers lead one.
    for (let i = 0; i < 20; i++) {
      const conns = (await p.api("GET", "/api/connections")).json as Array<{ node: string }>;
      const queues = (await p.api("GET", "/api/queues")).json as Array<{ node: string }>;
      if (new Set(conns.map((c) => c.node)).size === 2 && new Set(queues.map((q) => q.node)).size === 2) break;
      const c = await amqp.connect(p.amqpUrl, { clientProperties: { connection_name: `ui-${i}` } });
      c.on("error", () => {});
      open.push(c);
      const ch = await c.createChannel();
      await ch.assertQueue(`ui-q-${i}`);
      await eventually(async () => ((await p.api("GET", "/api/connections")).json as Array<unknown>).length === open.length, 10_000, `connection ui-${i} listed`);
    }
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await Promise.all(open.map((c) => withTimeout(c.close(), 2000, "a connection's close").catch(() => {})));
    await p.close();
  });

  it("lists queues with their leader's node, and connections and channels with theirs", async () => {
    const { page, problems, shot } = await openPage(browser);
    await login(page, `http://127.0.0.1:${p.httpPort}`, "guest", "guest");
    await waitText(page, "h1", "Overview");
    // Workers are no replicated cluster's followers: each leads its queue groups (16 over 2 workers).
    await waitText(page, "table[aria-label='Cluster nodes'] tbody", "leads 8 queue groups");
    const roles = await textOf(page, "table[aria-label='Cluster nodes'] tbody");
    assert.ok(!roles.includes("follower"), `no worker shown as a follower: ${roles}`);
    for (const [hash, heading, shotName] of [["#/queues", "Queues", "workers-queues"], ["#/connections", "Connections", "workers-connections"], ["#/channels", "Channels", "workers-channels"]] as const) {
      await go(page, hash, heading);
      await waitText(page, "table.grid thead", "Node");
      // Both workers' names in the rows (each row's Node cell), whichever worker answered.
      for (const w of workers) await waitText(page, "table.grid tbody", w);
      const head = await textOf(page, "table.grid thead th");
      assert.ok(head.split("\n").indexOf("Node") === head.split("\n").indexOf("Virtual host") + 1, `Node right after Virtual host: ${head}`);
      await shot(shotName, true);
    }
    assert.deepEqual(problems, []);
  });

  it("fills the Node column at once, not at the next refresh (nor never, with refresh paused)", async () => {
    const { page, problems } = await openPage(browser);
    await login(page, `http://127.0.0.1:${p.httpPort}`, "guest", "guest");
    await waitText(page, "h1", "Overview");
    // An operator who paused the refresh: the list is fetched once per page, so the Node cells
    // must come with the first answer after the page learns that the broker has more than one node.
    await page.select("select[name=refresh]", "0");
    for (const [hash, heading] of [["#/queues", "Queues"], ["#/connections", "Connections"]] as const) {
      await go(page, hash, heading);
      await waitText(page, "table.grid thead", "Node");
      for (const w of workers) await waitText(page, "table.grid tbody", w);
    }
    assert.deepEqual(problems, []);
  });
});
