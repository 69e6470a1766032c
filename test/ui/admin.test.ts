// The Admin pages in real headless Chromium against a real broker: every page renders with real
// fixtures (a second user and vhost, policies, limits, a global parameter), adding and deleting a
// user with permissions, the permission explainer's verdicts, and tags: a monitoring user sees no
// admin actions, a policymaker sees policies but not users, and a 403 from the API is a clear
// message. Screenshots go to test-output/ui/admin-*.png.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { apiClient } from "../helpers/http-client.js";
import type { WatchedPage } from "./browser.js";
import { makeFixtures, XSS_NAME, type Fixtures } from "./fixtures.js";
import { loggedInPage, useGuestPage } from "./guest-page.js";
import { clickText, fill, fillField, go, openSection, textOf, waitText } from "./ui-session.js";

describe("web UI admin pages", () => {
  let broker: TestBroker;
  let fixtures: Fixtures;
  const api = apiClient(() => broker.httpUrl);
  const ok = async (method: string, path: string, body?: unknown): Promise<void> => {
    const res = await api(method, path, body);
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
  };

  /** Like fill, for fields named by their aria-label (the definition rows). */
  async function fillLabelled(page: WatchedPage["page"], form: string, label: string, value: string): Promise<void> {
    await fillField(page, `form[aria-label=${JSON.stringify(form)}] [aria-label=${JSON.stringify(label)}]`, value);
  }

  before(async () => {
    broker = await startTestBroker();
    fixtures = await makeFixtures(broker);
    // Beyond the shared fixtures (user alice, vhost staging, policy orders-ttl): limits, an
    // operator policy, a global parameter, and users tagged monitoring and policymaker.
    await ok("PUT", "/api/vhost-limits/staging/max-connections", { value: 10 });
    await ok("PUT", "/api/vhost-limits/staging/max-queues", { value: 200 });
    await ok("PUT", "/api/user-limits/alice/max-channels", { value: 50 });
    await ok("PUT", "/api/operator-policies/%2F/cap-length", { pattern: ".*", definition: { "max-length": 100000 }, "apply-to": "queues", priority: 1 });
    await ok("PUT", "/api/global-parameters/cluster_tags", { value: { region: "eu-west", tier: "gold" } });
    await ok("PUT", "/api/users/monty", { password: "monty-pw", tags: "monitoring" });
    await ok("PUT", "/api/users/polly", { password: "polly-pw", tags: "policymaker" });
    for (const u of ["monty", "polly"]) await ok("PUT", `/api/permissions/%2F/${u}`, { configure: ".*", write: ".*", read: ".*" });
    await ok("PUT", `/api/users/${encodeURIComponent(XSS_NAME)}`, { password: "x", tags: "management" });
  });
  after(async () => {
    await fixtures?.close();
    await broker?.close();
  });
  const ui = useGuestPage(() => broker.httpUrl);

  it("renders every admin page with real fixtures and no console error", async () => {
    await go(ui.w.page, "/admin/users", "Users");
    await waitText(ui.w.page, "table.grid", "alice");
    assert.match(await textOf(ui.w.page, "table.grid"), /alice\s*management\s*yes\s*staging/);
    await waitText(ui.w.page, "table.grid a", XSS_NAME);
    assert.equal(await ui.w.page.$("img[src=x]"), null, "a user's name renders as text");
    await ui.w.shot("admin-users");

    await go(ui.w.page, "/admin/users/alice", "User alice");
    await waitText(ui.w.page, "[aria-label=Permissions]", "^alice\\.");
    await waitText(ui.w.page, "table.kv", "max-channels: 50");
    await ui.w.shot("admin-user");

    await go(ui.w.page, "/admin/vhosts", "Virtual hosts");
    await waitText(ui.w.page, "table.grid", "max-connections: 10");
    await ui.w.shot("admin-vhosts");

    await go(ui.w.page, "/admin/vhosts/staging", "Virtual host staging");
    await waitText(ui.w.page, "[aria-label='Virtual host limits']", "200");
    await waitText(ui.w.page, "[aria-label=Permissions]", "alice");
    await ui.w.shot("admin-vhost");

    await go(ui.w.page, "/admin/policies", "Policies");
    await waitText(ui.w.page, "table.grid", "orders-ttl");
    assert.match(await textOf(ui.w.page, "table.grid"), /message-ttl: 3600000/);
    await ui.w.shot("admin-policies");

    await go(ui.w.page, "/admin/operator-policies", "Operator policies");
    await waitText(ui.w.page, "table.grid", "cap-length");
    await ui.w.shot("admin-operator-policies");

    await go(ui.w.page, "/admin/limits", "Limits");
    await waitText(ui.w.page, "[aria-label='Virtual host limits']", "staging");
    await waitText(ui.w.page, "[aria-label='User limits']", "alice");
    await ui.w.shot("admin-limits");

    await go(ui.w.page, "/admin/cluster", "Cluster");
    await waitText(ui.w.page, "[aria-label='Global parameters']", "eu-west");
    await fill(ui.w.page, "Rename the cluster", "cluster_name", "eu-west-prod");
    await clickText(ui.w.page, "form[aria-label='Rename the cluster'] button", "Rename cluster");
    await waitText(ui.w.page, "table.kv", "eu-west-prod");
    assert.deepEqual((await api("GET", "/api/cluster-name")).json, { name: "eu-west-prod" });
    await ui.w.shot("admin-cluster");

    await go(ui.w.page, "/admin/explain", "Permission explainer");
    await ui.w.shot("admin-explain");
    assert.deepEqual(ui.w.problems, []);
  });

  it("adds a user with tags, gives it permissions, and deletes it", async () => {
    await go(ui.w.page, "/admin/users", "Users");
    await openSection(ui.w.page, "Add a user");
    await fill(ui.w.page, "Add user", "username", "carol");
    await fill(ui.w.page, "Add user", "password", "carol-pw");
    await fill(ui.w.page, "Add user", "password2", "carol-pw");
    await fill(ui.w.page, "Add user", "tags", "monitoring");
    await clickText(ui.w.page, "form[aria-label='Add user'] button", "Add user");
    await waitText(ui.w.page, "[role=status]", "User carol added");
    await waitText(ui.w.page, "table.grid", "carol");
    assert.deepEqual((await api("GET", "/api/users/carol")).json.tags, ["monitoring"]);
    assert.equal((await api("GET", "/api/whoami", undefined, "carol:carol-pw")).status, 200, "the password works");

    await go(ui.w.page, "/admin/users/carol", "User carol");
    await waitText(ui.w.page, "form[aria-label='Set permission']", "Virtual host");
    await fill(ui.w.page, "Set permission", "vhost", "staging");
    await fill(ui.w.page, "Set permission", "configure", "^carol-.*");
    await fill(ui.w.page, "Set permission", "write", "^$");
    await fill(ui.w.page, "Set permission", "read", ".*");
    await clickText(ui.w.page, "form[aria-label='Set permission'] button", "Set permission");
    await waitText(ui.w.page, "[aria-label=Permissions]", "^carol-.*");
    assert.deepEqual((await api("GET", "/api/permissions/staging/carol")).json, { user: "carol", vhost: "staging", configure: "^carol-.*", write: "^$", read: ".*" });
    await ui.w.shot("admin-user-added");

    // Tags change without losing the password (the form sends the stored hash back).
    await fill(ui.w.page, "Update tags", "tags", "monitoring, policymaker");
    await clickText(ui.w.page, "form[aria-label='Update tags'] button", "Update tags");
    await waitText(ui.w.page, "[role=status]", "Tags updated");
    assert.deepEqual((await api("GET", "/api/users/carol")).json.tags, ["monitoring", "policymaker"]);
    assert.equal((await api("GET", "/api/whoami", undefined, "carol:carol-pw")).status, 200, "the password survived");

    await openSection(ui.w.page, "Delete this user");
    await clickText(ui.w.page, "button", "Delete user");
    await waitText(ui.w.page, "h1", "Users");
    assert.equal((await api("GET", "/api/users/carol")).status, 404);
    assert.deepEqual((await api("GET", "/api/users/carol/permissions")).status, 404);
    assert.deepEqual(ui.w.problems, []);
  });

  it("explains verdicts: allowed by pattern, refused by pattern, no vhost access, unknown user", async () => {
    // From a user's permission row, the explainer opens with that user and vhost filled in.
    await go(ui.w.page, "/admin/users/alice", "User alice");
    await waitText(ui.w.page, "[aria-label=Permissions]", "Explain…");
    await clickText(ui.w.page, "[aria-label=Permissions] a", "Explain…");
    await waitText(ui.w.page, "h1", "Permission explainer");
    assert.deepEqual(
      await ui.w.page.$$eval("form[aria-label='Explain a permission'] input[name=user], form[aria-label='Explain a permission'] input[name=vhost]", (els) => els.map((e) => (e as unknown as { value: string }).value)),
      ["alice", "staging"],
    );
    const ask = async (user: string, vhost: string, permission: string, name: string): Promise<string> => {
      await fill(ui.w.page, "Explain a permission", "user", user);
      await fill(ui.w.page, "Explain a permission", "vhost", vhost);
      await fill(ui.w.page, "Explain a permission", "permission", permission);
      await fill(ui.w.page, "Explain a permission", "name", name);
      await clickText(ui.w.page, "form[aria-label='Explain a permission'] button", "Explain");
      await waitText(ui.w.page, ".verdict", `for user “${user}”`);
      return textOf(ui.w.page, ".verdict");
    };
    const allowed = await ask("alice", "staging", "configure", "alice.jobs");
    assert.match(allowed, /^Allowed/);
    assert.match(allowed, /decided by permission pattern/);
    assert.match(allowed, /\^alice\\\./);
    await ui.w.shot("admin-explain-allowed");

    const byPattern = await ask("alice", "staging", "configure", "bob.jobs");
    assert.match(byPattern, /^Refused/);
    assert.match(byPattern, /decided by permission pattern/);
    assert.match(byPattern, /ACCESS_REFUSED - access to queue 'bob\.jobs' in vhost 'staging' refused for user 'alice'/);
    await ui.w.shot("admin-explain-refused-pattern");

    const noVhost = await ask("alice", "/", "read", "orders");
    assert.match(noVhost, /^Refused/);
    assert.match(noVhost, /decided by virtual host access/);
    assert.match(noVhost, /holds no permission in vhost '\/'/);
    assert.match(noVhost, /not reached/);
    await ui.w.shot("admin-explain-refused-vhost");

    const unknown = await ask("nobody", "/", "read", "orders");
    assert.match(unknown, /^Refused/);
    assert.match(unknown, /decided by authentication/);
    assert.match(unknown, /There is no user 'nobody'/);
    await ui.w.shot("admin-explain-unknown-user");
    assert.deepEqual(ui.w.problems, []);
  });

  it("offers a monitoring user no admin actions", async () => {
    const m = await loggedInPage(ui.browser, broker.httpUrl, "monty", "monty-pw");
    try {
      // As RabbitMQ 3.10: Admin is there (Policies, Limits, the status pages), Users is not.
      const nav = await textOf(m.page, "nav.main-nav");
      assert.ok(nav.includes("Admin"), `an Admin entry in ${nav}`);
      await go(m.page, "/admin/users", "Users");
      await waitText(m.page, "[role=alert]", "Access refused");
      assert.equal(await m.page.$("form"), null, "no form to change anything");
      assert.equal((await textOf(m.page, "main button")).trim(), "", "no action buttons");
      await go(m.page, "/admin/policies", "Policies");
      await waitText(m.page, "table.grid", "orders-ttl");
      assert.equal(await m.page.$("main form"), null, "policies to read, no form to change them");
      assert.doesNotMatch(await textOf(m.page, "main table.grid"), /Delete|Edit/);
      await m.shot("admin-monitoring-refused");
      assert.deepEqual(m.problems, [], "no request was even tried");
    } finally {
      await m.page.close();
    }
  });

  it("shows a policymaker policies but not users, and a 403 from the API as a clear message", async () => {
    const p = await loggedInPage(ui.browser, broker.httpUrl, "polly", "polly-pw");
    try {
      assert.ok((await textOf(p.page, "nav.main-nav")).includes("Admin"));
      await go(p.page, "/admin/policies", "Policies");
      await waitText(p.page, "table.grid", "orders-ttl");
      const sub = await textOf(p.page, "nav.sub-nav");
      assert.ok(sub.includes("Policies") && sub.includes("Limits"), sub);
      assert.ok(!sub.includes("Users") && !sub.includes("Virtual hosts") && !sub.includes("Operator"), sub);
      await p.shot("admin-policymaker-policies");

      await openSection(p.page, "Add / update a policy");
      await fill(p.page, "Add policy", "name", "lazy-logs");
      await fill(p.page, "Add policy", "pattern", "^logs\\.");
      await fill(p.page, "Add policy", "apply-to", "queues");
      await fillLabelled(p.page, "Add policy", "Definition 1 name", "max-length");
      await fillLabelled(p.page, "Add policy", "Definition 1 value", "1000");
      await fillLabelled(p.page, "Add policy", "Definition 1 type", "number");
      await clickText(p.page, "form[aria-label='Add policy'] button", "Save");
      await waitText(p.page, "table.grid", "lazy-logs");
      assert.deepEqual((await api("GET", "/api/policies/%2F/lazy-logs")).json.definition, { "max-length": 1000 });

      // Edit fills the form with the row (lazy-logs sorts first); saving under the same name updates it.
      await clickText(p.page, "table.grid button", "Edit");
      await p.page.waitForFunction(`document.querySelector("form[aria-label='Add policy'] [name=name]").value === "lazy-logs"`, { timeout: 10_000 });
      assert.equal(await p.page.$eval("form[aria-label='Add policy'] [name=pattern]", (e) => (e as unknown as { value: string }).value), "^logs\\.");
      await fillLabelled(p.page, "Add policy", "Definition 1 value", "2000");
      await clickText(p.page, "form[aria-label='Add policy'] button", "Save");
      await waitText(p.page, "table.grid", "2000");
      assert.deepEqual((await api("GET", "/api/policies/%2F/lazy-logs")).json.definition, { "max-length": 2000 });
      await p.shot("admin-policy-edit");

      await go(p.page, "/admin/users", "Users");
      await waitText(p.page, "[role=alert]", "Access refused");

      // Her tags change while she is logged in: the API's 403 is shown, not a blank page.
      await ok("PUT", "/api/users/polly", { password: "polly-pw", tags: "management" });
      await go(p.page, "/admin/policies", "Policies");
      await openSection(p.page, "Add / update a policy");
      await fill(p.page, "Add policy", "name", "refused-one");
      await fill(p.page, "Add policy", "pattern", "^x");
      await fillLabelled(p.page, "Add policy", "Definition 1 name", "max-length");
      await fillLabelled(p.page, "Add policy", "Definition 1 value", "1");
      await fillLabelled(p.page, "Add policy", "Definition 1 type", "number");
      await clickText(p.page, "form[aria-label='Add policy'] button", "Save");
      await waitText(p.page, "form[aria-label='Add policy'] [role=alert]", "Access refused");
      assert.match(await textOf(p.page, "form[aria-label='Add policy'] [role=alert]"), /User not authorised to access object/, "the API's own reason is shown");
      await p.shot("admin-policymaker-403");
      assert.equal((await api("GET", "/api/policies/%2F/refused-one")).status, 404);
      assert.deepEqual(p.problems.filter((x) => !x.includes("403")), [], "only the expected 403");
    } finally {
      await p.page.close();
    }
  });
});
