// A real browser over Web STOMP: headless Chromium loads a page that uses @stomp/stompjs's
// browser bundle (served from node_modules by this test) to subscribe and publish through
// Coney's /ws, while an AMQP service (amqplib) talks to it through queues.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { AddressInfo } from "node:net";
import amqp, { type ChannelModel, type GetMessage } from "amqplib";
import type { Browser } from "puppeteer-core";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { eventually } from "../helpers/wait.js";
import { launchBrowser, openPage } from "../ui/browser.js";

const PAGE = `<!doctype html><html><body><pre id="log"></pre>
<script src="/stomp.umd.js"></script>
<script>
  const log = (s) => (document.getElementById("log").textContent += s + "\\n");
  const params = new URLSearchParams(location.search);
  const client = new StompJs.Client({ brokerURL: params.get("ws"), connectHeaders: { login: "guest", passcode: "guest", host: "/" }, reconnectDelay: 0 });
  client.onConnect = () => {
    client.subscribe("/queue/browser-in", (m) => {
      log("got " + m.body);
      client.publish({ destination: "/amq/queue/browser-out", body: m.body.toUpperCase(), headers: { "content-type": "text/plain", from: "browser" } });
      m.ack();
    }, { ack: "client-individual" });
    window.connected = true;
    log("connected");
  };
  client.onStompError = (f) => log("error " + f.headers.message);
  client.activate();
</script></body></html>`;

describe("Web STOMP from headless Chromium", () => {
  let broker: TestBroker;
  let conn: ChannelModel;
  let site: Server;
  let browser: Browser;

  before(async () => {
    broker = await startTestBroker({ webStompPort: 0 });
    conn = await amqp.connect(broker.amqpUrl);
    const bundle = readFileSync(join(dirname(createRequire(import.meta.url).resolve("@stomp/stompjs")), "..", "bundles", "stomp.umd.js"));
    site = createServer((req, res) => {
      if (req.url === "/stomp.umd.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
      res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    site?.close();
    await conn?.close();
    await broker?.close();
  });

  it("the page and an AMQP service exchange messages through Coney", async () => {
    const ch = await conn.createChannel();
    await ch.assertQueue("browser-out", { durable: false });
    const { page, problems } = await openPage(browser);
    const ws = `ws://127.0.0.1:${broker.webStompPort}/ws`;
    await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/?ws=${encodeURIComponent(ws)}`);
    await page.waitForFunction("window.connected === true", { timeout: 10_000 });
    await eventually(() => broker.broker.vhosts.get("/")!.queues.get("browser-in")?.consumerCount === 1, 10_000, "the page's subscription");
    ch.sendToQueue("browser-in", Buffer.from("hello from amqp"));
    let reply: GetMessage | false = false;
    await eventually(async () => (reply = await ch.get("browser-out", { noAck: true })) !== false, 10_000, "the browser's reply");
    const r = reply as unknown as GetMessage;
    assert.equal(r.content.toString(), "HELLO FROM AMQP");
    assert.equal(r.properties.headers?.["from"], "browser");
    assert.equal(r.properties.contentType, "text/plain");
    const conns = broker.broker.connections.list().map((c) => c.info().protocol);
    assert.ok(conns.includes("Web STOMP 1.2"), conns.join(","));
    assert.deepEqual(problems, []);
    await ch.close();
  });
});
