// Each role's navigation as RabbitMQ 3.10's (issue 47, point 1), in real headless Chromium: every
// management user has Admin, with Policies and Limits (and the permission explainer); monitoring
// adds Federation and Shovel Status, policymaker Federation upstreams and Shovel Management; the
// administrator's own sections (Users, Virtual hosts…) stay its own; Coney adds the feature flags
// (read-only) for everyone. Each page is reached by clicks.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Browser } from "puppeteer-core";
import amqp, { type ChannelModel } from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { launchBrowser, openPage } from "./browser.js";
import { loggedInPage } from "./guest-page.js";
import { clickText, login, textOf, waitText } from "./ui-session.js";

const ROLES: Record<string, { tags: string; admin: string[] }> = {
  shopper: { tags: "management", admin: ["Policies", "Limits", "Feature flags", "Permission explainer"] },
  watcher: { tags: "monitoring", admin: ["Policies", "Limits", "Feature flags", "Federation status", "Permission explainer", "Shovel Status"] },
  maker: { tags: "policymaker", admin: ["Policies", "Limits", "Cluster", "Feature flags", "Federation upstreams", "Permission explainer", "Shovel Management"] },
};

describe("each role's navigation", () => {
  let broker: TestBroker;
  let browser: Browser;
  let conn: ChannelModel;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker();
    for (const [user, r] of Object.entries(ROLES)) {
      assert.ok((await api("PUT", `/api/users/${user}`, { password: "pw", tags: r.tags })).status < 300);
      assert.ok((await api("PUT", `/api/permissions/%2F/${user}`, { configure: ".*", write: ".*", read: ".*" })).status < 300);
    }
    assert.ok((await api("PUT", "/api/users/plain", { password: "pw", tags: "" })).status < 300);
    // A vhost the monitor holds no permission in, with guest's connection there.
    assert.ok((await api("PUT", "/api/vhosts/elsewhere", {})).status < 300);
    conn = await amqp.connect(broker.urlFor("guest", "guest", "elsewhere"), { clientProperties: { connection_name: "elsewhere-app" } });
    await conn.createChannel();
    browser = await launchBrowser();
  });
  after(async () => {
    await conn?.close().catch(() => undefined);
    await browser?.close();
    await broker?.close();
  });

  for (const [user, role] of Object.entries(ROLES)) {
    it(`offers a ${role.tags} user Admin with ${role.admin.join(", ")}`, async () => {
      const w = await loggedInPage(browser, broker.httpUrl, user, "pw");
      await clickText(w.page, ".main-nav a", "Admin");
      await waitText(w.page, "h1", "Admin");
      const links = (await w.page.$$eval("nav.sub-nav a", (as) => as.map((a) => (a.textContent ?? "").trim()))) as string[];
      assert.deepEqual(links, role.admin);
      assert.deepEqual((await w.page.$$eval(".admin-index dt", (ds) => ds.map((d) => (d.textContent ?? "").trim()))) as string[], role.admin, "the Admin index lists the same");
      await w.shot(`nav-admin-${role.tags}`);
      assert.deepEqual(w.problems, []);
      await w.page.close();
    });
  }

  it("lets a monitoring user find Shovel Status and Federation Status from the navigation", async () => {
    const w = await loggedInPage(browser, broker.httpUrl, "watcher", "pw");
    await clickText(w.page, ".main-nav a", "Admin");
    await clickText(w.page, "nav.sub-nav a", "Shovel Status");
    await waitText(w.page, "h1", "Shovel Status");
    assert.equal(await w.page.$("[role=alert]"), null, "the monitor may read shovel status");
    await clickText(w.page, "nav.sub-nav a", "Federation status");
    await waitText(w.page, "h1", "Federation status");
    assert.equal(await w.page.$("[role=alert]"), null, "the monitor may read federation status");
    assert.deepEqual(w.problems, []);
    await w.page.close();
  });

  it("shows a management user the policies read-only, with no form to change them", async () => {
    assert.ok((await api("PUT", "/api/policies/%2F/ttl", { pattern: "^orders$", definition: { "message-ttl": 1000 } })).status < 300);
    const w = await loggedInPage(browser, broker.httpUrl, "shopper", "pw");
    await clickText(w.page, ".main-nav a", "Admin");
    await clickText(w.page, "nav.sub-nav a", "Policies");
    await waitText(w.page, "table.grid", "ttl");
    assert.equal(await w.page.$("form[aria-label='Add policy']"), null);
    assert.doesNotMatch(await textOf(w.page, "main"), /Delete/);
    assert.deepEqual(w.problems, []);
    await w.page.close();
  });

  it("tells a tag-less user what it lacks, not a generic refusal (issue 47, point 12)", async () => {
    const w = await openPage(browser);
    await login(w.page, broker.httpUrl, "plain", "pw");
    await waitText(w.page, "[role=alert]", 'User "plain" has no management tag');
    assert.doesNotMatch(await textOf(w.page, "[role=alert]"), /HTTP 40[13]|Access refused/);
    await w.shot("login-tagless");
    // The whoami refusal is the answer being tested.
    assert.deepEqual(w.problems.filter((p) => !/40[13]/.test(p)), []);
    await w.page.close();
  });

  it("narrows a monitor's Connections and Channels to a vhost it holds no permission in, and offers no Add form there (point 8)", async () => {
    const w = await loggedInPage(browser, broker.httpUrl, "watcher", "pw");
    await w.page.waitForFunction(`[...document.querySelectorAll("header select[name=vhost] option, .topbar select[name=vhost] option, select[name=vhost] option")].some((o) => o.value === "elsewhere")`, { timeout: 10_000 });
    await w.page.select("select[name=vhost]", "elsewhere");
    await clickText(w.page, ".main-nav a", "Connections");
    await waitText(w.page, "table.grid tbody", "elsewhere-app");
    assert.equal(await w.page.$("[role=alert]"), null, "not refused: the monitor sees these connections under All too");
    await clickText(w.page, ".main-nav a", "Channels");
    await waitText(w.page, "table.grid tbody", "elsewhere");
    assert.equal(await w.page.$("[role=alert]"), null);
    await clickText(w.page, ".main-nav a", "Queues");
    await waitText(w.page, "[role=alert]", "Access refused");
    await waitText(w.page, ".refused", "Adding a queue");
    assert.equal(await w.page.$("form[aria-label='Add queue']"), null, "no Add form where the list is refused");
    await clickText(w.page, ".main-nav a", "Exchanges");
    await waitText(w.page, ".refused", "Adding an exchange");
    assert.equal(await w.page.$("form[aria-label='Add exchange']"), null);
    await w.shot("monitor-vhost-elsewhere");
    assert.deepEqual(w.problems.filter((p) => !p.includes("403")), []);
    await w.page.close();
  });
});
