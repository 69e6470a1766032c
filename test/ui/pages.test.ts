// The web UI in real headless Chromium against a real broker with real fixtures: login (and a
// wrong password), every page renders with no console error, names render as text, and the
// operator tasks (publish from an exchange, get it back from the queue, purge) work end to end.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { makeFixtures, XSS_NAME, type Fixtures } from "./fixtures.js";
import { loggedInPage, useBrowser } from "./guest-page.js";
import { clickText, fill, go, login, openSection, textOf, waitText } from "./ui-session.js";

describe("web UI pages", () => {
  let broker: TestBroker;
  let fixtures: Fixtures;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker();
    fixtures = await makeFixtures(broker);
  });
  after(async () => {
    await fixtures?.close();
    await broker?.close();
  });
  const ui = useBrowser();

  it("refuses a wrong password with a clear message, then logs in", async () => {
    await login(ui.w.page, broker.httpUrl, "guest", "not-the-password");
    await waitText(ui.w.page, "[role=alert]", "Login failed");
    await ui.w.shot("login-failed", false);
    await ui.w.page.reload({ waitUntil: "domcontentloaded" });
    await login(ui.w.page, broker.httpUrl, "guest", "guest");
    await waitText(ui.w.page, "h1", "Overview");
    // The wrong password's 401 is the only expected failure so far.
    const unexpected = ui.w.problems.filter((p) => !p.includes("401"));
    assert.deepEqual(unexpected, []);
    ui.w.problems.length = 0;
  });

  it("renders the overview with totals, charts, node and listeners", async () => {
    await go(ui.w.page, "/", "Overview");
    await waitText(ui.w.page, ".stat", "Queues");
    await waitText(ui.w.page, "table.kv", "File descriptors");
    await waitText(ui.w.page, "table", "amqp");
    const stats = await textOf(ui.w.page, ".stats");
    assert.match(stats, /4\s*Queues/);
    assert.match(stats, /1\s*Connections/);
    assert.ok((await ui.w.page.$$(".chart canvas")).length >= 2, "two uPlot charts");
    await ui.w.shot("overview");
  });

  it("lists connections and shows the named connection with its channels and consumer", async () => {
    await go(ui.w.page, "/connections", "Connections");
    await waitText(ui.w.page, "table.grid", fixtures.connectionName);
    await ui.w.shot("connections");
    await ui.w.page.click("table.grid tbody a");
    await waitText(ui.w.page, "h1", "Connection");
    await waitText(ui.w.page, "table.kv", "connection_name");
    await waitText(ui.w.page, "[aria-label=Consumers]", "orders.worker");
    await ui.w.shot("connection");
  });

  it("lists channels and shows a channel's prefetch and unacked", async () => {
    await go(ui.w.page, "/channels", "Channels");
    await waitText(ui.w.page, "table.grid", "(2)");
    await ui.w.shot("channels");
    const link = (await ui.w.page.$$("table.grid tbody a")).at(-1);
    assert.ok(link);
    await link.click();
    await waitText(ui.w.page, "h1", "Channel");
    await waitText(ui.w.page, "table.kv", "Prefetch");
    // The last channel is the fixture's consumer: prefetch 2, holding 2 unacked messages.
    const rows = await textOf(ui.w.page, "table.kv tr");
    assert.match(rows, /Prefetch \(per consumer\)\s*2\b/);
    assert.match(rows, /Unacked\s*2\b/);
    await ui.w.shot("channel");
  });

  it("lists exchanges and shows a topic exchange's bindings", async () => {
    await go(ui.w.page, "/exchanges", "Exchanges");
    await waitText(ui.w.page, "table.grid", "events");
    await ui.w.shot("exchanges");
    await go(ui.w.page, "/exchanges/%2F/events", "events");
    await waitText(ui.w.page, "table.grid", "invoice.#");
    await ui.w.shot("exchange");
  });

  it("lists queues and shows a queue's consumers, bindings and charts", async () => {
    await go(ui.w.page, "/queues", "Queues");
    await waitText(ui.w.page, "table.grid", "orders.worker");
    await ui.w.shot("queues");
    await go(ui.w.page, "/queues/%2F/orders.worker", "orders.worker");
    await waitText(ui.w.page, "[aria-label=Consumers]", "amq.ctag");
    await waitText(ui.w.page, "table.grid", "order.created");
    await ui.w.shot("queue");
  });

  it("renders a queue named as HTML as text, never as markup", async () => {
    await go(ui.w.page, "/queues", "Queues");
    await waitText(ui.w.page, "table.grid", XSS_NAME);
    assert.equal((await ui.w.page.$$("table.grid img")).length, 0, "no <img> made from a name");
    await go(ui.w.page, `/queues/%2F/${encodeURIComponent(XSS_NAME)}`, XSS_NAME);
    assert.equal((await ui.w.page.$$("main img")).length, 0);
    await ui.w.shot("queue-xss");
  });

  it("publishes from the exchange page and gets the message back on the queue page", async () => {
    await go(ui.w.page, "/exchanges/%2F/events", "events");
    await openSection(ui.w.page, "Publish message");
    await fill(ui.w.page, "Publish message", "routing_key", "invoice.ui.test");
    await fill(ui.w.page, "Publish message", "payload", "hello from the browser");
    await clickText(ui.w.page, "form[aria-label='Publish message'] button", "Publish message");
    await waitText(ui.w.page, "[role=status]", "routed");
    await ui.w.shot("exchange-published");

    await go(ui.w.page, "/queues/%2F/invoices", "invoices");
    await openSection(ui.w.page, "Get messages");
    await fill(ui.w.page, "Get messages", "count", "10");
    await clickText(ui.w.page, "form[aria-label='Get messages'] button", "Get messages");
    await waitText(ui.w.page, ".message", "hello from the browser");
    assert.match(await textOf(ui.w.page, ".message"), /invoice\.ui\.test/);
    await ui.w.shot("queue-get");
  });

  it("purges a queue", async () => {
    await go(ui.w.page, "/queues/%2F/orders", "orders");
    await openSection(ui.w.page, "Purge");
    await clickText(ui.w.page, "button", "Purge messages");
    await waitText(ui.w.page, "[role=status]", "purged");
    assert.equal((await api("GET", "/api/queues/%2F/orders")).json.messages, 0);
  });

  it("adds a queue with a type, durability and an x-argument from its help", async () => {
    await go(ui.w.page, "/queues", "Queues");
    await openSection(ui.w.page, "Add a new queue");
    await fill(ui.w.page, "Add queue", "type", "quorum");
    await fill(ui.w.page, "Add queue", "name", "ui.quorum");
    await clickText(ui.w.page, "form[aria-label='Add queue'] .arg-help button", "x-delivery-limit");
    await ui.w.page.type("form[aria-label='Add queue'] input[aria-label='Arguments 1 value']", "5");
    await ui.w.shot("queue-add");
    await clickText(ui.w.page, "form[aria-label='Add queue'] button[type=submit]", "Add queue");
    await waitText(ui.w.page, "[role=status]", "Queue ui.quorum added");
    await waitText(ui.w.page, "table.grid", "ui.quorum");
    const q = (await api("GET", "/api/queues/%2F/ui.quorum")).json;
    assert.equal(q.type, "quorum");
    assert.equal(q.durable, true);
    assert.equal(q.arguments["x-delivery-limit"], 5);
  });

  it("adds a stream with its retention from the argument help", async () => {
    await go(ui.w.page, "/queues", "Queues");
    // A fresh form: the previous test's argument rows would otherwise still be there.
    await ui.w.page.reload();
    await waitText(ui.w.page, "h1", "Queues");
    await openSection(ui.w.page, "Add a new queue");
    await fill(ui.w.page, "Add queue", "type", "stream");
    await fill(ui.w.page, "Add queue", "name", "ui.stream");
    await clickText(ui.w.page, "form[aria-label='Add queue'] .arg-help button", "x-max-age");
    await ui.w.page.type("form[aria-label='Add queue'] input[aria-label='Arguments 1 value']", "7D");
    await clickText(ui.w.page, "form[aria-label='Add queue'] button[type=submit]", "Add queue");
    await waitText(ui.w.page, "[role=status]", "Queue ui.stream added");
    const q = (await api("GET", "/api/queues/%2F/ui.stream")).json;
    assert.equal(q.type, "stream");
    assert.equal(q.durable, true);
    assert.equal(q.arguments["x-max-age"], "7D");
  });

  it("shows a clear message, not a blank page, when the API refuses (403)", async () => {
    const alice = await loggedInPage(ui.browser, broker.httpUrl, "alice", "alice-secret");
    await waitText(alice.page, ".section", "Node figures need the monitoring or administrator tag");
    assert.match(await textOf(alice.page, ".main-nav"), /Admin/, "a management user is offered Admin (Policies, Limits), as RabbitMQ 3.10");
    assert.doesNotMatch(await textOf(alice.page, "main"), /Download definitions/, "nor the administrator-only definitions");
    await go(alice.page, "/queues/%2F/orders", "orders");
    await waitText(alice.page, "[role=alert]", "Access refused");
    await alice.shot("access-refused", false);
    // The refused requests are the 403s this test asks for; nothing else may fail.
    assert.deepEqual(alice.problems.filter((p) => !p.includes("403")), []);
    await alice.page.close();
  });

  it("binds and unbinds a queue from the exchange page", async () => {
    await go(ui.w.page, "/exchanges/%2F/events", "events");
    await fill(ui.w.page, "Add binding", "destination", "invoices");
    await fill(ui.w.page, "Add binding", "routing_key", "refund.*");
    await clickText(ui.w.page, "form[aria-label='Add binding'] button", "Bind");
    await waitText(ui.w.page, "table.grid", "refund.*");
    const bound = (await api("GET", "/api/bindings/%2F/e/events/q/invoices")).json as Array<{ routing_key: string }>;
    assert.ok(bound.some((b) => b.routing_key === "refund.*"));
    await ui.w.page.evaluate(`[...document.querySelectorAll("table.grid tr")].find((tr) => tr.textContent.includes("refund.*")).querySelector("button").click()`);
    await ui.w.page.waitForFunction(`![...document.querySelectorAll("table.grid td")].some((td) => td.textContent === "refund.*")`, { timeout: 10_000 });
    const after = (await api("GET", "/api/bindings/%2F/e/events/q/invoices")).json as Array<{ routing_key: string }>;
    assert.ok(!after.some((b) => b.routing_key === "refund.*"));
  });

  it("downloads the definitions and imports a definitions file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coney-ui-dl-"));
    const cdp = await ui.w.page.createCDPSession();
    await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: dir });
    await go(ui.w.page, "/", "Overview");
    await clickText(ui.w.page, "button", "Download definitions");
    // Chromium may show the file under its final name before its last bytes are in: wait for JSON.
    type Defs = { queues: Array<{ name: string }>; users: Array<{ name: string }> };
    const downloaded = (): Defs | null => {
      const file = readdirSync(dir).find((f) => f.endsWith(".json"));
      try {
        return file === undefined ? null : (JSON.parse(readFileSync(join(dir, file), "utf8")) as Defs);
      } catch {
        return null;
      }
    };
    await eventually(() => downloaded() !== null, 10_000, "the definitions download");
    const defs = downloaded()!;
    assert.ok(defs.queues.some((q) => q.name === "orders"));
    assert.ok(defs.users.some((u) => u.name === "alice"));

    const upload = join(dir, "import.json");
    writeFileSync(upload, JSON.stringify({ queues: [{ name: "imported.from.ui", vhost: "/", durable: true, auto_delete: false, arguments: {} }] }));
    const input = await ui.w.page.$("input[type=file]");
    assert.ok(input);
    await input.uploadFile(upload);
    await clickText(ui.w.page, "button", "Upload definitions");
    await waitText(ui.w.page, "[role=status]", "Imported import.json");
    assert.equal((await api("GET", "/api/queues/%2F/imported.from.ui")).status, 200);
    rmSync(dir, { recursive: true, force: true });
  });

  it("adds an exchange, then deletes it and a queue from their pages", async () => {
    await go(ui.w.page, "/exchanges", "Exchanges");
    await openSection(ui.w.page, "Add a new exchange");
    await fill(ui.w.page, "Add exchange", "name", "ui.fanout");
    await fill(ui.w.page, "Add exchange", "type", "fanout");
    await clickText(ui.w.page, "form[aria-label='Add exchange'] button[type=submit]", "Add exchange");
    await waitText(ui.w.page, "table.grid", "ui.fanout");
    assert.equal((await api("GET", "/api/exchanges/%2F/ui.fanout")).json.type, "fanout");
    await go(ui.w.page, "/exchanges/%2F/ui.fanout", "ui.fanout");
    await openSection(ui.w.page, "Delete this exchange");
    await clickText(ui.w.page, "button", "Delete exchange");
    await waitText(ui.w.page, "h1", "Exchanges");
    assert.equal((await api("GET", "/api/exchanges/%2F/ui.fanout")).status, 404);

    await go(ui.w.page, "/queues/%2F/ui.quorum", "ui.quorum");
    await openSection(ui.w.page, "Delete");
    await clickText(ui.w.page, "button", "Delete queue");
    await waitText(ui.w.page, "h1", "Queues");
    assert.equal((await api("GET", "/api/queues/%2F/ui.quorum")).status, 404);
  });

  it("closes the named connection with a reason", async () => {
    await go(ui.w.page, "/connections", "Connections");
    await waitText(ui.w.page, "table.grid", fixtures.connectionName);
    await ui.w.page.click("table.grid tbody a");
    // "Connection" is also in the list's heading: the detail page is there once its close form is.
    await fill(ui.w.page, "Close connection", "reason", "closed by the UI test");
    await clickText(ui.w.page, "form[aria-label='Close connection'] button", "Force close");
    await waitText(ui.w.page, "h1", "Connections");
    await eventually(async () => (await api("GET", "/api/connections")).json.length === 0, 5000, "connection closed");
    await eventually(() => fixtures.closedWith() !== "", 5000, "the client hears the close");
    assert.match(fixtures.closedWith(), /closed by the UI test/);
  });

  it("saw no console error, page error or failed request", () => {
    assert.deepEqual(ui.w.problems, []);
  });
});
