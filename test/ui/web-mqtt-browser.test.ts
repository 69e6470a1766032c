// A browser page (headless Chromium, mqtt.js's browser bundle) speaks MQTT over WebSocket to the
// broker's /ws endpoint and exchanges messages with a device on MQTT over TCP.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import type { Browser } from "puppeteer-core";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { connectMqtt, waitUntil } from "../helpers/mqtt-client.js";
import { launchBrowser, openPage } from "./browser.js";

const bundle = readFileSync(createRequire(import.meta.url).resolve("mqtt/dist/mqtt.min"));

function page(wsUrl: string): string {
  return `<!doctype html><title>web mqtt</title><script src="/mqtt.min.js"></script><script>
    const c = mqtt.connect(${JSON.stringify(wsUrl)}, { username: "guest", password: "guest", clientId: "browser-page", reconnectPeriod: 0 });
    window.got = null;
    c.on("connect", () => c.subscribe("browser/in", { qos: 1 }, () => { window.ready = true; }));
    c.on("message", (topic, payload) => {
      window.got = topic + ":" + payload.toString();
      c.publish("browser/out", "pong", { qos: 1 });
    });
  </script>`;
}

describe("MQTT over WebSocket from a browser", () => {
  let broker: TestBroker;
  let site: Server;
  let browser: Browser;

  before(async () => {
    broker = await startTestBroker({ mqttPort: 0, webMqttPort: 0 });
    const html = page(`ws://127.0.0.1:${broker.webMqttPort}/ws`);
    site = createServer((req, res) => {
      if (req.url === "/mqtt.min.js") res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
      else res.writeHead(200, { "content-type": "text/html" }).end(html);
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    site?.close();
    await broker.close();
  });

  it("a page and a TCP device exchange messages through the broker", async () => {
    const device = await connectMqtt(`mqtt://127.0.0.1:${broker.mqttPort}`, { clientId: "device" });
    try {
      await device.client.subscribeAsync("browser/out", { qos: 1 });
      const { page: p, problems } = await openPage(browser);
      await p.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
      await p.waitForFunction("window.ready === true", { timeout: 10_000 });
      const record = broker.broker.connections.list().find((c) => c.info().clientProperties["client_id"] === "browser-page")?.info();
      assert.equal(record?.protocol, "Web MQTT 3.1.1");
      await device.client.publishAsync("browser/in", "ping", { qos: 1 });
      const [r] = await device.waitFor(1, 10_000);
      assert.equal(r!.payload.toString(), "pong");
      assert.equal(await p.evaluate("window.got"), "browser/in:ping");
      assert.deepEqual(problems, []);
      await p.close();
      await waitUntil(() => !broker.broker.connections.list().some((c) => c.info().clientProperties["client_id"] === "browser-page"));
    } finally {
      await device.client.endAsync(true);
    }
  });
});
