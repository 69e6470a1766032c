// Each role in real headless Chromium (issue 28): what it sees, what it is offered, and what a
// forbidden action says in its place. A monitoring user without permissions, a management user
// read-only in vhost "shop", a policymaker with full rights in "shop", and an administrator.
// Screenshots of the overview and a queue page as the management user go to test-output/ui, and
// to docs/images (the README's) when CONEY_DOCS_IMAGES=1.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import amqp, { type ChannelModel } from "amqplib";
import type { Browser } from "puppeteer-core";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { launchBrowser, type WatchedPage } from "./browser.js";
import { loggedInPage } from "./guest-page.js";
import { go, openSection, textOf, waitText } from "./ui-session.js";

/** Refreshes the README's screenshot from this run's, when asked (a test run leaves tracked files alone). */
function docsImage(shot: string): void {
  if (process.env["CONEY_DOCS_IMAGES"] !== "1") return;
  mkdirSync(join(process.cwd(), "docs", "images"), { recursive: true });
  copyFileSync(shot, join(process.cwd(), "docs", "images", basename(shot)));
}

const USERS: Record<string, { tags: string; shop?: [string, string, string] }> = {
  watcher: { tags: "monitoring" },
  shopper: { tags: "management", shop: ["^$", "^$", ".*"] },
  maker: { tags: "policymaker", shop: [".*", ".*", ".*"] },
};

describe("web UI per role", () => {
  let broker: TestBroker;
  let browser: Browser;
  let conn: ChannelModel;
  const api = apiClient(() => broker.httpUrl);

  const as = (user: string): Promise<WatchedPage> => loggedInPage(browser, broker.httpUrl, user, user === "guest" ? "guest" : "pw");
  /** Whether some element matching `selector` has text containing `text`, now. */
  const has = async (w: WatchedPage, selector: string, text: string): Promise<boolean> => (await textOf(w.page, selector)).includes(text);
  /** A page's refused actions, once the broker's answer about them is in. */
  const refusals = async (w: WatchedPage, expected: string): Promise<string> => {
    await waitText(w.page, ".refused", expected);
    return textOf(w.page, ".refused");
  };

  before(async () => {
    broker = await startTestBroker();
    const ok = async (method: string, path: string, body?: unknown) => assert.ok((await api(method, path, body)).status < 300, `${method} ${path}`);
    await ok("PUT", "/api/vhosts/shop", {});
    for (const [user, u] of Object.entries(USERS)) {
      await ok("PUT", `/api/users/${user}`, { password: "pw", tags: u.tags });
      if (u.shop) await ok("PUT", `/api/permissions/shop/${user}`, { configure: u.shop[0], write: u.shop[1], read: u.shop[2] });
    }
    // guest's traffic: in / (that non-monitors must not count) and in shop, with a consumer there.
    conn = await amqp.connect(broker.urlFor("guest", "guest", "shop"), { clientProperties: { connection_name: "shop-service" } });
    const ch = await conn.createConfirmChannel();
    await ch.assertExchange("events", "topic");
    await ch.assertQueue("orders");
    await ch.assertQueue("audit");
    await ch.bindQueue("orders", "events", "order.#");
    for (let i = 0; i < 4; i++) ch.publish("events", "order.created", Buffer.from(`o${i}`));
    await ch.waitForConfirms();
    await ch.consume("audit", () => undefined);
    for (const q of ["root.a", "root.b", "root.c"]) await ok("PUT", `/api/queues/%2F/${q}`, {});
    await ok("POST", "/api/exchanges/%2F/amq.default/publish", { routing_key: "root.a", payload: "x", payload_encoding: "string", properties: {} });
    await eventually(async () => (await api("GET", "/api/queues/shop/orders")).json?.messages === 4, 5000, "orders holds 4");
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await conn?.close().catch(() => undefined);
    await broker?.close();
  });

  it("a monitoring user sees the node and every connection, is offered nothing to change, and sees no refusal box", async () => {
    const w = await as("watcher");
    await waitText(w.page, "table.kv", "File descriptors");
    await waitText(w.page, "table[aria-label=Listeners]", "amqp");
    assert.match(await textOf(w.page, ".stats"), /5\s*Queues/, "monitors see the whole node's totals");

    await go(w.page, "/queues", "Queues");
    assert.match(await refusals(w, "Adding a queue"), /you hold none: ask an administrator/);
    assert.ok(!(await has(w, "summary", "Add a new queue")));
    await go(w.page, "/exchanges", "Exchanges");
    await refusals(w, "Adding an exchange");
    assert.ok(!(await has(w, "summary", "Add a new exchange")));

    await go(w.page, "/connections", "Connections");
    await waitText(w.page, "table.grid", "guest");
    await w.page.click("table.grid tbody a");
    await waitText(w.page, ".section", "Close this connection");
    assert.match(await refusals(w, "Closing another user's connection"), /needs the administrator tag; monitoring users may look, not close/);
    assert.equal(await w.page.$("form[aria-label='Close connection']"), null, "no Force close");
    await waitText(w.page, "table[aria-label=Consumers]", "audit");
    assert.equal(await w.page.$("[role=alert]"), null, "no access-refused box: consumers come from a list the monitor may read");
    await w.shot("role-monitoring-connection");

    await w.page.waitForSelector("table[aria-label=Channels] tbody a", { timeout: 10_000 });
    await w.page.click("table[aria-label=Channels] tbody a");
    await waitText(w.page, "h1", "Channel");
    await waitText(w.page, "table[aria-label=Consumers]", "audit");
    assert.equal(await w.page.$("[role=alert]"), null);
    assert.deepEqual(w.problems, []);
  });

  it("a management user read-only in shop sees shop's figures, and is told why it may not change them", async () => {
    const w = await as("shopper");
    await waitText(w.page, ".lead", "Figures of the virtual hosts you may use: shop");
    assert.match(await textOf(w.page, ".stats"), /2\s*Queues/, "only shop's queues");
    assert.match(await textOf(w.page, ".stats"), /4\s*Total messages/, "only shop's messages (not the one in /)");
    assert.ok(!(await has(w, "main", "Ports and contexts")), "no listeners for a management user");
    assert.match(await textOf(w.page, ".main-nav"), /Admin/, "Admin with Policies and Limits, as RabbitMQ 3.10 (role-navigation.test.ts)");
    if (process.env["CONEY_DOCS_IMAGES"] === "1") {
      // For the README's picture only: charts with some history (the broker samples every 5 s).
      await eventually(async () => {
        const o = (await api("GET", "/api/overview?lengths_age=60&lengths_incr=5", undefined, "shopper:pw")).json as { queue_totals?: { messages_details?: { samples?: Array<{ sample: number }> } } };
        return (o.queue_totals?.messages_details?.samples ?? []).slice(1).filter((p) => p.sample > 0).length >= 3;
      }, 30_000, "three samples of history");
      await w.page.reload();
      await waitText(w.page, ".lead", "Figures of the virtual hosts you may use: shop");
    }
    docsImage(await w.shot("overview-management", false));

    await go(w.page, "/queues", "Queues");
    await waitText(w.page, "table.grid", "orders");
    assert.match(await refusals(w, "Adding a queue"), /read-only in shop\. Ask an administrator/);
    assert.ok(!(await has(w, "summary", "Add a new queue")));

    await go(w.page, "/queues/shop/orders", "orders");
    for (const s of ["Bindings", "Publish message", "Get messages", "Purge", "Delete"]) await openSection(w.page, s);
    const why = await refusals(w, "Deleting this queue");
    assert.match(why, /Deleting this queue needs the configure permission: read-only in shop: ask an administrator/);
    assert.match(why, /Binding to this queue needs the write permission: read-only in shop: ask an administrator/);
    assert.equal(await w.page.$("form[aria-label='Add binding']"), null, "no Bind form");
    assert.ok(!(await has(w, "button", "Delete queue")), "no Delete button");
    assert.ok(!(await has(w, "button", "Unbind")), "no Unbind button");
    await waitText(w.page, "table[aria-label='Bindings from']", "not permitted");
    await waitText(w.page, "button", "Purge messages");
    assert.ok(await has(w, "button", "Get messages"), "read is allowed: get and purge are offered");
    // Write "^$" matches the default exchange's empty name: RabbitMQ lets this user publish through it.
    assert.ok(await w.page.$("form[aria-label='Publish message']"), "publishing through the default exchange is allowed");
    docsImage(await w.shot("queue-management"));

    await go(w.page, "/exchanges/shop/events", "events");
    for (const s of ["Publish message", "Delete this exchange"]) await openSection(w.page, s);
    const x = await refusals(w, "Deleting this exchange");
    assert.match(x, /Publishing to this exchange needs the write permission: read-only in shop/);
    assert.match(x, /Binding from this exchange .* needs the write permission: read-only in shop/);
    assert.equal(await w.page.$("form[aria-label='Publish message']"), null);
    assert.deepEqual(w.problems, [], "nothing the page offered was refused");
  });

  it("a policymaker with full rights in shop is offered adding there, and Admin", async () => {
    const w = await as("maker");
    await waitText(w.page, ".main-nav", "Admin");
    await go(w.page, "/queues", "Queues");
    await waitText(w.page, "summary", "Add a new queue");
    await openSection(w.page, "Add a new queue");
    // The vhost choices come with the user's access, after the form: wait for them.
    await w.page.waitForFunction(`[...document.querySelectorAll("form[aria-label='Add queue'] select[name=vhost] option")].some((o) => o.value === "shop")`, { timeout: 10_000 });
    const options = (await w.page.$$eval("form[aria-label='Add queue'] select[name=vhost] option", (os) => os.map((o) => (o as unknown as { value: string }).value))) as string[];
    assert.deepEqual(options, ["shop"], "only the vhost it may declare in");
    await go(w.page, "/queues/shop/orders", "orders");
    await openSection(w.page, "Delete");
    await waitText(w.page, "button", "Delete queue");
    await waitText(w.page, "button", "Unbind");
    assert.equal(await w.page.$(".refused"), null, "nothing refused");
    assert.deepEqual(w.problems, []);
  });

  it("an administrator may close any connection, and is refused actions only where it holds no permission", async () => {
    const w = await as("guest");
    await go(w.page, "/connections", "Connections");
    // The list arrives after the page: wait for its first row before clicking it.
    await w.page.waitForSelector("table.grid tbody a", { timeout: 10_000 });
    await w.page.click("table.grid tbody a");
    await waitText(w.page, "form[aria-label='Close connection'] button", "Force close");
    assert.equal((await api("DELETE", "/api/permissions/shop/guest")).status, 204);
    await go(w.page, "/queues/shop/orders", "orders");
    await openSection(w.page, "Delete");
    await refusals(w, "Deleting this queue needs a permission in virtual host shop, and you hold none there");
    assert.ok(!(await has(w, "button", "Delete queue")));
    assert.ok((await api("PUT", "/api/permissions/shop/guest", { configure: ".*", write: ".*", read: ".*" })).status < 300);
    assert.deepEqual(w.problems, []);
  });
});
