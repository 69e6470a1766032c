// The permission explainer for a user logged in with an OAuth 2.0 token, in real headless
// Chromium: the token's scopes decide (no user database record exists), and the page names the
// scope that granted, or says none did.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import type { Browser } from "puppeteer-core";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { oauthFixture, type OAuthFixture } from "../helpers/oauth-tokens.js";
import { launchBrowser, openPage, type WatchedPage } from "./browser.js";
import { clickText, fill, go, textOf, waitText } from "./ui-session.js";

describe("web UI permission explainer with an OAuth 2.0 token", () => {
  let broker: TestBroker;
  let oauth: OAuthFixture;
  let browser: Browser;
  let w: WatchedPage;

  before(async () => {
    oauth = oauthFixture();
    // The token tab is offered only when /api/auth says the UI takes OAuth 2.0 logins.
    broker = await startTestBroker({ ...oauth.config, managementOauthEnabled: true, managementOauthClientId: "coney-ui", managementOauthProviderUrl: "https://idp.example" });
    browser = await launchBrowser();
    w = await openPage(browser);
  });
  after(async () => {
    await browser?.close();
    await broker?.close();
    rmSync(oauth.dir, { recursive: true, force: true });
  });

  it("answers a token user about itself from its scopes", async () => {
    const token = await oauth.sign({ sub: "svc-reader", scope: ["rabbitmq.tag:policymaker", "rabbitmq.read:%2F/logs-*"] });
    await w.page.goto(`${broker.httpUrl}/`, { waitUntil: "domcontentloaded" });
    await clickText(w.page, "button[role=tab]", "OAuth 2.0 token");
    await w.page.waitForSelector("textarea[name=token]");
    await w.page.type("textarea[name=token]", token);
    await w.page.click("button[type=submit]");
    await waitText(w.page, "h1", "Overview");

    await go(w.page, "/admin/explain", "Permission explainer");
    await waitText(w.page, "form[aria-label='Explain a permission']", "svc-reader");
    const ask = async (permission: string, name: string): Promise<string> => {
      await fill(w.page, "Explain a permission", "permission", permission);
      await fill(w.page, "Explain a permission", "name", name);
      await clickText(w.page, "form[aria-label='Explain a permission'] button", "Explain");
      await waitText(w.page, ".verdict", `${permission} on queue “${name}”`);
      return textOf(w.page, ".verdict");
    };
    const ok = await ask("read", "logs-1");
    assert.match(ok, /^Allowed/);
    assert.match(ok, /decided by token scopes/);
    assert.match(ok, /The scope 'rabbitmq\.read:%2F\/logs-\*' grants read/);
    await w.shot("admin-explain-oauth");
    const no = await ask("write", "logs-1");
    assert.match(no, /^Refused/);
    assert.match(no, /No scope of the token grants write/);
    assert.deepEqual(w.problems, []);
  });
});
