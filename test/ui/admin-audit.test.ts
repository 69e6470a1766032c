// Admin › Audit trail in real headless Chromium against a real broker: a permission change made
// through the API appears in the list with who and from where, its entry page shows before and
// after, and the permission explainer links the entry that set the deciding permission. The
// event exchange shows in the exchange list like any other. Screenshots: test-output/ui/audit-*.png.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import { useGuestPage } from "./guest-page.js";
import { clickText, fill, go, textOf, waitText } from "./ui-session.js";

describe("web UI audit trail", () => {
  let broker: TestBroker;
  const api = apiClient(() => broker.httpUrl);

  before(async () => {
    broker = await startTestBroker();
    assert.equal((await api("PUT", "/api/users/zoe", { password: "zoe-pw", tags: "management" })).status, 201);
    assert.equal((await api("PUT", "/api/permissions/%2F/zoe", { configure: "^zoe\\.", write: ".*", read: ".*" })).status, 204);
  });
  after(async () => {
    await broker?.close();
  });
  const ui = useGuestPage(() => broker.httpUrl);

  it("lists the change with who and from where, and its entry shows before and after", async () => {
    await go(ui.w.page, "/admin/audit", "Audit trail");
    await waitText(ui.w.page, "table.grid", "permission.set");
    assert.match(await textOf(ui.w.page, "table.grid"), /guest\s*HTTP API\s*127\.0\.0\.1:\d+\s*permission\.set\s*\/\s*zoe\s*ok/);
    await ui.w.shot("audit-list");
    const [entry] = (await api("GET", "/api/coney/audit?action=permission.set&object=zoe")).json;
    await clickText(ui.w.page, "table.grid a", String(entry.id));
    await waitText(ui.w.page, "h1", `Audit entry ${entry.id}`);
    const text = await textOf(ui.w.page, "main");
    assert.match(text, /Did not exist/);
    assert.match(text, /\^zoe\\\./);
    await ui.w.shot("audit-entry");
    assert.deepEqual(ui.w.problems, []);
  });

  it("the permission explainer links the audit entry that granted the deciding permission", async () => {
    const [entry] = (await api("GET", "/api/coney/audit?action=permission.set&object=zoe")).json;
    const explained = await api("GET", "/api/coney/explain-permission?user=zoe&vhost=%2F&permission=configure&resource=queue&name=zoe.q");
    assert.equal(explained.json.granted_by.id, entry.id);
    await go(ui.w.page, "/admin/explain", "Permission explainer");
    await fill(ui.w.page, "Explain a permission", "user", "zoe");
    await fill(ui.w.page, "Explain a permission", "vhost", "/");
    await fill(ui.w.page, "Explain a permission", "name", "zoe.q");
    await clickText(ui.w.page, "form[aria-label='Explain a permission'] button", "Explain");
    await waitText(ui.w.page, ".verdict", `audit entry #${entry.id}`);
    await ui.w.shot("audit-explain-link");
    await clickText(ui.w.page, ".verdict a", `audit entry #${entry.id}`);
    await waitText(ui.w.page, "h1", `Audit entry ${entry.id}`);
    assert.deepEqual(ui.w.problems, []);
  });

  it("shows amq.rabbitmq.event in the exchange list", async () => {
    await go(ui.w.page, "/exchanges", "Exchanges");
    await waitText(ui.w.page, "table.grid", "amq.rabbitmq.event");
    assert.deepEqual(ui.w.problems, []);
  });
});
