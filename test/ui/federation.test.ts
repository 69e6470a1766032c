// Admin › Federation upstreams and Admin › Federation status in real headless Chromium against two
// real brokers: an upstream added through the form (its password hidden in the list), a policy
// federating an exchange, the link shown running, restarted with its button, and the upstream
// deleted. Screenshots go to test-output/ui/federation-*.png.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import amqp from "amqplib";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { eventually } from "../helpers/wait.js";
import { useGuestPage } from "./guest-page.js";
import { clickText, fill, go, openSection, textOf, waitText } from "./ui-session.js";

describe("web UI federation pages", () => {
  let up: TestBroker;
  let down: TestBroker;
  const api = apiClient(() => down.httpUrl);
  before(async () => {
    up = await startTestBroker({ clusterName: "ui-upstream" });
    down = await startTestBroker({ clusterName: "ui-downstream" });
    const conn = await amqp.connect(down.amqpUrl);
    const ch = await conn.createChannel();
    await ch.assertExchange("fed.ui", "topic", { durable: true });
    await conn.close();
  });
  after(async () => {
    await down?.close();
    await up?.close();
  });
  const ui = useGuestPage(() => down.httpUrl);

  it("adds an upstream, shows the link running, restarts it, and deletes the upstream", async () => {
    await go(ui.w.page, "/admin/federation-upstreams", "Federation upstreams");
    await waitText(ui.w.page, "main, body", "No upstreams.");
    await openSection(ui.w.page, "Add a new upstream");
    await fill(ui.w.page, "Add upstream", "name", "origin");
    await fill(ui.w.page, "Add upstream", "uri", `amqp://guest:guest@127.0.0.1:${up.amqpPort}`);
    await fill(ui.w.page, "Add upstream", "max-hops", "2");
    await fill(ui.w.page, "Add upstream", "expires", "3600000");
    await clickText(ui.w.page, "form[aria-label='Add upstream'] button", "Add upstream");
    await waitText(ui.w.page, "[role=status]", "Upstream origin saved");
    await waitText(ui.w.page, "table.grid", "origin");
    const row = await textOf(ui.w.page, "table.grid tbody");
    assert.match(row, new RegExp(`amqp://guest:\\*\\*\\*@127\\.0\\.0\\.1:${up.amqpPort}`), "the password is hidden");
    assert.match(row, /max-hops: 2/);
    assert.deepEqual((await api("GET", "/api/parameters/federation-upstream/%2f/origin")).json.value, { uri: `amqp://guest:guest@127.0.0.1:${up.amqpPort}`, "max-hops": 2, expires: 3600000 });
    await ui.w.shot("federation-upstreams");

    assert.equal((await api("PUT", "/api/policies/%2f/fed", { pattern: "^fed\\.", "apply-to": "exchanges", definition: { "federation-upstream": "origin" } })).status, 201);
    await go(ui.w.page, "/admin/federation-status", "Federation status");
    await waitText(ui.w.page, "table.grid", "running");
    assert.match(await textOf(ui.w.page, "table.grid tbody"), /origin.*fed\.ui.*running/s);
    await ui.w.shot("federation-status");
    const [link] = (await api("GET", "/api/federation-links")).json as { timestamp: string; id: string }[];
    await clickText(ui.w.page, "table.grid button", "Restart");
    await waitText(ui.w.page, "[role=status]", `Link ${link!.id} restarting`);
    await eventually(async () => ((await api("GET", "/api/federation-links")).json as { status: string }[])[0]?.status === "running", 10_000, "the link running again");

    await go(ui.w.page, "/admin/federation-upstreams", "Federation upstreams");
    await clickText(ui.w.page, "table.grid button", "Delete");
    await waitText(ui.w.page, "main, body", "No upstreams.");
    assert.equal((await api("GET", "/api/parameters/federation-upstream/%2f/origin")).status, 404);
    await eventually(async () => ((await api("GET", "/api/federation-links")).json as unknown[]).length === 0, 15_000, "the link gone with its upstream");
    assert.deepEqual(ui.w.problems, []);
  });
});
