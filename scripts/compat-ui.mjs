#!/usr/bin/env node
/**
 * By-hand check that RabbitMQ 3.10's own management UI works against Coney (issue 17).
 *
 *   npm run compat:ui -- <path to rabbitmq_management's priv/www> [--screenshots <dir>] [--rabbitmq]
 *
 * Serves the UI's files (read from where RabbitMQ installed them; never copied into this repo) on
 * a loopback port, proxies its /api to a Coney started on port 0 with fixtures (a named connection
 * with a consumer, queues with messages, a topic exchange with bindings, a policy, a second user
 * and vhost, limits), then drives headless Chromium through every page and reports JavaScript
 * errors, failed API requests, error pop-ups and "undefined"/"NaN" shown on the page. Exit 1 when
 * any page has a problem.
 *
 * --rabbitmq proxies to the local RabbitMQ instead (AMQP 5672, API 15672, guest/guest), with the
 * same fixtures created there and removed afterwards, to compare screenshots page by page.
 * It needs `npm run build` first (it runs Coney from dist/).
 */
/* global window, document, fetch, setTimeout, Buffer */
import { createServer, request as httpRequest } from "node:http";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize, resolve } from "node:path";
import amqp from "amqplib";
import puppeteer from "puppeteer-core";

const CHROMIUM = process.env["CHROMIUM"] ?? "/usr/bin/chromium";

function parseArgs(argv) {
  const out = { www: null, screenshots: null, rabbitmq: false, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--screenshots") out.screenshots = argv[++i];
    else if (a === "--rabbitmq") out.rabbitmq = true;
    else if (a === "--keep-open") out.keep = true;
    else if (!a.startsWith("--")) out.www = a;
    else throw new Error(`unknown option ${a}`);
  }
  if (!out.www) throw new Error("usage: npm run compat:ui -- <rabbitmq_management priv/www> [--screenshots dir] [--rabbitmq]");
  return out;
}

const MIME = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".png": "image/png", ".svg": "image/svg+xml", ".ico": "image/x-icon", ".ejs": "text/plain" };

/** Static files from `www`, /api/* forwarded to `apiPort`. */
function serveUi(www, apiPort) {
  const root = resolve(www);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname.startsWith("/api/") || url.pathname === "/api") {
      const upstream = httpRequest({ host: "127.0.0.1", port: apiPort, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on("error", (err) => {
        res.writeHead(502).end(String(err));
      });
      req.pipe(upstream);
      return;
    }
    const file = normalize(join(root, decodeURIComponent(url.pathname === "/" ? "/index.html" : url.pathname)));
    if (!file.startsWith(root)) return void res.writeHead(403).end();
    try {
      if (!statSync(file).isFile()) throw new Error("not a file");
      res.writeHead(200, { "content-type": MIME[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

/** The objects every page should have something to show about. */
async function createFixtures(amqpUrl, api) {
  const put = async (path, body) => {
    const r = await api("PUT", path, body);
    if (r.status >= 300) throw new Error(`PUT ${path}: ${r.status} ${await r.text()}`);
  };
  await put("/api/vhosts/ui-vhost", { description: "second vhost for the UI check", tags: "ui,test" });
  await put("/api/users/ui-user", { password: "ui-pass", tags: "management" });
  await put("/api/permissions/ui-vhost/ui-user", { configure: ".*", write: ".*", read: ".*" });
  await put("/api/permissions/ui-vhost/guest", { configure: ".*", write: ".*", read: ".*" });
  await put("/api/policies/%2F/ui-policy", { pattern: "^ui\\.", definition: { "max-length": 1000 }, "apply-to": "queues", priority: 1 });
  await put("/api/vhost-limits/ui-vhost/max-connections", { value: 100 });
  await put("/api/vhost-limits/ui-vhost/max-queues", { value: 50 });

  const conn = await amqp.connect(amqpUrl, { clientProperties: { connection_name: "ui-named-connection" } });
  const ch = await conn.createChannel();
  await ch.assertExchange("ui.topic", "topic", { durable: true });
  await ch.assertQueue("ui.orders", { durable: true });
  await ch.assertQueue("ui.audit", { durable: true, arguments: { "x-max-priority": 5 } });
  await ch.assertQueue("ui.consumed", { durable: false });
  await ch.bindQueue("ui.orders", "ui.topic", "orders.#");
  await ch.bindQueue("ui.audit", "ui.topic", "#");
  await ch.bindQueue("ui.consumed", "ui.topic", "*.consumed");
  for (let i = 0; i < 20; i++) ch.publish("ui.topic", `orders.${i}`, Buffer.from(`order ${i}`), { persistent: i % 2 === 0, headers: { n: i } });
  await ch.prefetch(5);
  await ch.consume("ui.consumed", () => {}, { noAck: false });
  for (let i = 0; i < 8; i++) ch.publish("ui.topic", "x.consumed", Buffer.from(`consumed ${i}`));
  const vconn = await amqp.connect(amqpUrl.replace(/\/[^/]*$/, "/ui-vhost"));
  const vch = await vconn.createChannel();
  await vch.assertQueue("ui.other-vhost", { durable: true });
  vch.sendToQueue("ui.other-vhost", Buffer.from("hello"));
  await vch.close();
  await ch.checkQueue("ui.orders");
  return {
    close: async () => {
      await conn.close();
      await vconn.close();
    },
    /** Removes what the fixtures made (used on RabbitMQ). */
    remove: async () => {
      for (const p of ["/api/queues/%2F/ui.orders", "/api/queues/%2F/ui.audit", "/api/queues/%2F/ui.consumed", "/api/exchanges/%2F/ui.topic", "/api/policies/%2F/ui-policy", "/api/vhosts/ui-vhost", "/api/users/ui-user"]) await api("DELETE", p);
    },
  };
}

/** Every page of the UI, by its route, with the template it should render. */
function pages(node) {
  const e = encodeURIComponent;
  return [
    ["overview", "#/", "overview"],
    ["connections", "#/connections", "connections"],
    ["connection", null, "connection"],
    ["channels", "#/channels", "channels"],
    ["channel", null, "channel"],
    ["exchanges", "#/exchanges", "exchanges"],
    ["exchange", `#/exchanges/${e("/")}/ui.topic`, "exchange"],
    ["queues", "#/queues", "queues"],
    ["queue", `#/queues/${e("/")}/ui.consumed`, "queue"],
    ["queue (messages)", `#/queues/${e("/")}/ui.orders`, "queue"],
    ["users", "#/users", "users"],
    ["user", "#/users/ui-user", "user"],
    ["vhosts", "#/vhosts", "vhosts"],
    ["vhost", `#/vhosts/${e("ui-vhost")}`, "vhost"],
    ["policies", "#/policies", "policies"],
    ["policy", `#/policies/${e("/")}/ui-policy`, "policy"],
    ["limits", "#/limits", "limits"],
    ["node", `#/nodes/${e(node)}`, "node"],
    ["feature flags", "#/feature-flags", "feature-flags"],
    ["cluster name", "#/cluster-name", "cluster-name"],
  ];
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const auth = "Basic " + Buffer.from("guest:guest").toString("base64");
  let broker = null;
  let dataDir = null;
  let apiPort, amqpUrl;
  if (args.rabbitmq) {
    apiPort = 15672;
    amqpUrl = "amqp://guest:guest@127.0.0.1:5672/%2F";
  } else {
    const { startBroker } = await import("../dist/src/start-broker.js");
    dataDir = mkdtempSync(join(tmpdir(), "coney-compat-ui-"));
    broker = await startBroker({ amqpPort: 0, httpPort: 0, bind: "127.0.0.1", dataDir, logLevel: "warn" });
    apiPort = broker.httpPort;
    amqpUrl = `amqp://guest:guest@127.0.0.1:${broker.amqpPort}/%2F`;
  }
  const api = (method, path, body) =>
    fetch(`http://127.0.0.1:${apiPort}${path}`, { method, headers: { authorization: auth, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const fixtures = await createFixtures(amqpUrl, api);
  const node = (await (await api("GET", "/api/overview")).json()).node;
  const ui = await serveUi(args.www, apiPort);
  const base = `http://127.0.0.1:${ui.address().port}/`;
  if (args.screenshots) mkdirSync(args.screenshots, { recursive: true });

  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  const problems = [];
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    let current = "login";
    page.on("pageerror", (err) => problems.push(`${current}: JavaScript error: ${err.message}`));
    page.on("console", (msg) => {
      if (process.env["COMPAT_UI_DEBUG"]) process.stdout.write(`console.${msg.type()}: ${msg.text()}\n`);
      if (msg.type() === "error") problems.push(`${current}: console error: ${msg.text()}`);
    });
    page.on("response", (res) => {
      const u = new URL(res.url());
      if (u.pathname.startsWith("/api/") && res.status() >= 400) problems.push(`${current}: ${res.request().method()} ${u.pathname}${u.search} answered ${res.status()}`);
    });
    await page.goto(base, { waitUntil: "load" });
    await page.waitForSelector("input[name=username]", { timeout: 10_000 });
    await page.type("input[name=username]", "guest");
    await page.type("input[name=password]", "guest");
    await page.click("input[type=submit]");
    try {
      await page.waitForFunction(() => typeof window.current_template === "string" && document.querySelector("#main table, #main h1") !== null, { timeout: 10_000 });
    } catch {
      problems.push("login: the UI did not show the overview after logging in");
      if (args.screenshots) await page.screenshot({ path: join(args.screenshots, "login.png"), fullPage: true });
      return report(problems);
    }
    // Count renders of #main, to know when a page navigated to has been drawn.
    await page.evaluate(() => {
      const original = window.replace_content;
      window.__mainRenders = 0;
      window.replace_content = function (id, html) {
        const r = original.call(this, id, html);
        if (id === "main") window.__mainRenders++;
        return r;
      };
    });

    const conns = await (await api("GET", "/api/connections")).json();
    const named = conns.find((c) => c.client_properties?.connection_name === "ui-named-connection") ?? conns[0];
    const chans = await (await api("GET", "/api/channels")).json();
    const chan = chans.find((c) => c.connection_details?.name === named?.name && c.consumer_count > 0) ?? chans[0];

    for (const [label, route0, template] of pages(node)) {
      current = label;
      const route = route0 ?? (label === "connection" ? `#/connections/${encodeURIComponent(named.name)}` : `#/channels/${encodeURIComponent(chan.name)}`);
      const before = await page.evaluate(() => window.__mainRenders);
      await page.evaluate((r) => {
        // The overview is where the login lands: redraw it rather than navigate to it.
        if (window.location.hash === r || (r === "#/" && window.location.hash === "")) window.update();
        else window.location.hash = r;
      }, route);
      try {
        await page.waitForFunction((n, t) => window.__mainRenders > n && window.current_template === t, { timeout: 10_000 }, before, template);
      } catch {
        problems.push(`${label}: page ${route} did not render template '${template}'`);
        continue;
      }
      // Charts and post-processing run right after the render; let the event loop settle.
      await page.evaluate(() => new Promise((ok) => setTimeout(ok, 300)));
      if (template === "node") {
        // The memory and binary breakdowns load only when their Update button is pressed.
        for (const div of ["memory-details", "binary-details"]) {
          await page.evaluate((d) => document.querySelector(`button[for=${d}]`)?.click(), div);
          await page.waitForFunction((d) => (document.getElementById(d)?.textContent ?? "").trim() !== "", { timeout: 5000 }, div).catch(() => problems.push(`${label}: ${div} stayed empty after Update`));
        }
      }
      const found = await page.evaluate(() => {
        // textContent, not innerText: collapsed sections ("section-hidden") count too.
        const body = document.body.cloneNode(true);
        for (const s of body.querySelectorAll("script, style")) s.remove();
        const text = body.textContent.replace(/[ \t]+/g, " ");
        const bad = [];
        for (const m of text.matchAll(/[^\n]{0,40}\b(undefined|NaN)\b[^\n]{0,40}/g)) bad.push(m[0].trim());
        const debug = document.getElementById("debug")?.innerText.trim() ?? "";
        const popup = [...document.querySelectorAll(".form-popup-warn, .form-popup-info")].filter((p) => p.offsetParent !== null).map((p) => p.innerText.trim());
        const notFound = document.querySelector("#main")?.innerText.includes("Not found") ?? false;
        return { bad, debug, popup, notFound };
      });
      for (const b of found.bad) problems.push(`${label}: shows "${b}"`);
      if (found.debug) problems.push(`${label}: debug box: ${found.debug}`);
      for (const p of found.popup) problems.push(`${label}: pop-up: ${p}`);
      if (found.notFound) problems.push(`${label}: rendered the 404 page`);
      if (args.screenshots) await page.screenshot({ path: join(args.screenshots, `${label.replace(/[^a-z]+/g, "-")}.png`), fullPage: true });
      process.stdout.write(`${label.padEnd(18)} ${route}\n`);
    }
    report(problems);
  } finally {
    if (!args.keep) await browser.close();
    await fixtures.close();
    if (args.rabbitmq) await fixtures.remove();
    ui.close();
    await broker?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(problems) {
  const unique = [...new Set(problems)];
  if (unique.length > 0) {
    process.stdout.write(`\n${unique.length} problem(s):\n${unique.map((p) => `  ${p}`).join("\n")}\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write("\nevery page rendered clean\n");
  }
}

main().catch((err) => {
  process.stderr.write(`compat-ui: ${err.stack ?? err}\n`);
  process.exit(2);
});
