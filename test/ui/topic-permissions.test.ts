// Topic permissions in the web UI (real headless Chromium): set one from Admin › Topic
// permissions, see it on the user's and the vhost's pages, ask the explainer about routing keys
// (the broker's own topic check decides), and clear it.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { useGuestPage } from "./guest-page.js";
import { clickText, fill, go, textOf, waitText } from "./ui-session.js";

describe("web UI topic permissions", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker();
    assert.ok((await api("PUT", "/api/users/sensor", { password: "pw", tags: "management" })).status < 300);
    assert.ok((await api("PUT", "/api/permissions/%2F/sensor", { configure: ".*", write: ".*", read: ".*" })).status < 300);
    assert.ok((await api("PUT", "/api/exchanges/%2F/telemetry", { type: "topic" })).status < 300);
  });
  after(async () => {
    await broker?.close();
  });
  const ui = useGuestPage(() => broker.httpUrl);

  it("sets a topic permission from the Admin page, offering the vhost's topic exchanges", async () => {
    await go(ui.w.page, "/admin", "Admin");
    await waitText(ui.w.page, ".admin-index", "Topic permissions");
    await go(ui.w.page, "/admin/topic-permissions", "Topic permissions");
    await waitText(ui.w.page, "main", "No topic permissions");
    await ui.w.page.waitForFunction(`[...document.querySelectorAll("#topic-exchanges option")].some((o) => o.value === "telemetry")`, { timeout: 10_000 });
    const offered = (await ui.w.page.evaluate(`[...document.querySelectorAll("#topic-exchanges option")].map((o) => o.value)`)) as string[];
    assert.ok(offered.includes("amq.topic") && !offered.includes("amq.direct"), `topic exchanges only: ${offered.join(", ")}`);
    await fill(ui.w.page, "Set topic permission", "user", "sensor");
    await fill(ui.w.page, "Set topic permission", "exchange", "telemetry");
    await fill(ui.w.page, "Set topic permission", "write", "^eu\\.{username}\\.");
    await fill(ui.w.page, "Set topic permission", "read", "^eu\\.");
    await clickText(ui.w.page, "form[aria-label='Set topic permission'] button", "Set topic permission");
    await waitText(ui.w.page, "[role=status]", "Topic permission of sensor on telemetry in / set");
    await waitText(ui.w.page, "table[aria-label='Topic permissions']", "telemetry");
    await ui.w.shot("admin-topic-permissions");
    assert.deepEqual((await api("GET", "/api/topic-permissions/%2F/sensor")).json, [{ user: "sensor", vhost: "/", exchange: "telemetry", write: "^eu\\.{username}\\.", read: "^eu\\." }]);
  });

  it("shows it on the user's and the vhost's pages, whose forms fix their own side and offer the other", async () => {
    const fields = async (form: string): Promise<string[]> =>
      (await ui.w.page.$$eval(`form[aria-label='${form}'] select`, (xs) => xs.map((x) => (x as unknown as { name: string }).name))) as string[];
    await go(ui.w.page, "/admin/users/sensor", "User sensor");
    await waitText(ui.w.page, "table[aria-label='Topic permissions']", "^eu\\.{username}\\.");
    await ui.w.page.waitForSelector("form[aria-label='Set topic permission'] select[name=vhost]", { timeout: 10_000 });
    assert.deepEqual(await fields("Set topic permission"), ["vhost"]);
    assert.deepEqual(await fields("Set permission"), ["vhost"]);
    await go(ui.w.page, "/admin/vhosts/%2F", "Virtual host /");
    await waitText(ui.w.page, "table[aria-label='Topic permissions']", "sensor");
    await ui.w.page.waitForSelector("form[aria-label='Set topic permission'] select[name=user]", { timeout: 10_000 });
    assert.deepEqual(await fields("Set topic permission"), ["user"]);
    assert.deepEqual(await fields("Set permission"), ["user"]);
  });

  it("explains a routing key by the topic permission, as publishing decides", async () => {
    await go(ui.w.page, "/admin/explain/sensor/%2F", "Permission explainer");
    await fill(ui.w.page, "Explain a permission", "permission", "write");
    await fill(ui.w.page, "Explain a permission", "resource", "exchange");
    await fill(ui.w.page, "Explain a permission", "name", "telemetry");
    await fill(ui.w.page, "Explain a permission", "routing_key", "us.sensor.temp");
    await clickText(ui.w.page, "form[aria-label='Explain a permission'] button", "Explain");
    await waitText(ui.w.page, "[aria-label=Verdict]", "Refused");
    const verdict = await textOf(ui.w.page, "[aria-label=Verdict]");
    assert.match(verdict, /4\. Topic permission/);
    assert.match(verdict, /does not match the routing key 'us\.sensor\.temp'/);
    assert.match(verdict, /ACCESS_REFUSED - access to topic 'us\.sensor\.temp' in exchange 'telemetry' in vhost '\/' refused for user 'sensor'/);
    await ui.w.shot("explain-topic-refused");
    await fill(ui.w.page, "Explain a permission", "routing_key", "eu.sensor.temp");
    await clickText(ui.w.page, "form[aria-label='Explain a permission'] button", "Explain");
    await waitText(ui.w.page, "[aria-label=Verdict]", "Allowed");
    assert.match(await textOf(ui.w.page, "[aria-label=Verdict]"), /matches the routing key 'eu\.sensor\.temp'/);
  });

  it("clears it", async () => {
    await go(ui.w.page, "/admin/topic-permissions", "Topic permissions");
    await clickText(ui.w.page, "table[aria-label='Topic permissions'] button", "Clear");
    await waitText(ui.w.page, "main", "No topic permissions");
    await eventually(async () => (await api("GET", "/api/topic-permissions")).json.length === 0, 5000, "cleared");
    assert.deepEqual(ui.w.problems, []);
  });
});
