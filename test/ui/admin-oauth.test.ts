// The permission explainer for a user logged in with an OAuth 2.0 token, in real headless
// Chromium: the token's scopes decide (no user database record exists), and the page names the
// scope that granted, or says none did.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { oauthFixture, type OAuthFixture } from "../helpers/oauth-tokens.js";
import { useBrowser } from "./guest-page.js";
import { clickText, fill, go, textOf, waitText } from "./ui-session.js";

describe("web UI permission explainer with an OAuth 2.0 token", () => {
  let broker: TestBroker;
  let oauth: OAuthFixture;

  before(async () => {
    oauth = oauthFixture();
    // The token tab is offered only when /api/auth says the UI takes OAuth 2.0 logins.
    broker = await startTestBroker({ ...oauth.config, managementOauthEnabled: true, managementOauthClientId: "coney-ui", managementOauthProviderUrl: "https://idp.example" });
  });
  after(async () => {
    await broker?.close();
    rmSync(oauth.dir, { recursive: true, force: true });
  });
  const ui = useBrowser();

  it("answers a token user about itself from its scopes", async () => {
    const token = await oauth.sign({ sub: "svc-reader", scope: ["rabbitmq.tag:policymaker", "rabbitmq.read:%2F/logs-*"] });
    await ui.w.page.goto(`${broker.httpUrl}/`, { waitUntil: "domcontentloaded" });
    await clickText(ui.w.page, "button[role=tab]", "OAuth 2.0 token");
    await ui.w.page.waitForSelector("textarea[name=token]");
    await ui.w.page.type("textarea[name=token]", token);
    await ui.w.page.click("button[type=submit]");
    await waitText(ui.w.page, "h1", "Overview");

    await go(ui.w.page, "/admin/explain", "Permission explainer");
    await waitText(ui.w.page, "form[aria-label='Explain a permission']", "svc-reader");
    const ask = async (permission: string, name: string): Promise<string> => {
      await fill(ui.w.page, "Explain a permission", "permission", permission);
      await fill(ui.w.page, "Explain a permission", "name", name);
      await clickText(ui.w.page, "form[aria-label='Explain a permission'] button", "Explain");
      await waitText(ui.w.page, ".verdict", `${permission} on queue “${name}”`);
      return textOf(ui.w.page, ".verdict");
    };
    const ok = await ask("read", "logs-1");
    assert.match(ok, /^Allowed/);
    assert.match(ok, /decided by token scopes/);
    assert.match(ok, /The scope 'rabbitmq\.read:%2F\/logs-\*' grants read/);
    await ui.w.shot("admin-explain-oauth");
    const no = await ask("write", "logs-1");
    assert.match(no, /^Refused/);
    assert.match(no, /No scope of the token grants write/);
    assert.deepEqual(ui.w.problems, []);
  });
});
