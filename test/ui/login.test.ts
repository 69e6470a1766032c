// Login with a pasted OAuth 2.0 token (and a refused expired one), log out (nothing left behind:
// no cookie, no stored credentials), and live refresh that stops while the tab is hidden.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import type { Browser, HTTPRequest } from "puppeteer-core";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { oauthFixture, type OAuthFixture } from "../helpers/oauth-tokens.js";
import { eventually } from "../helpers/wait.js";
import { launchBrowser, openPage, type WatchedPage } from "./browser.js";
import { clickText, go, waitText } from "./ui-session.js";

const ADMIN = ["rabbitmq.tag:administrator", "rabbitmq.configure:*/*", "rabbitmq.write:*/*", "rabbitmq.read:*/*"];

describe("web UI login with OAuth 2.0, log out, live refresh", () => {
  let broker: TestBroker;
  let oauth: OAuthFixture;
  let browser: Browser;
  let w: WatchedPage;

  const tokenLogin = async (token: string): Promise<void> => {
    await w.page.goto(`${broker.httpUrl}/`, { waitUntil: "domcontentloaded" });
    await clickText(w.page, "[role=tab]", "OAuth 2.0 token");
    await w.page.waitForSelector("textarea[name=token]");
    await w.page.$eval("textarea[name=token]", (el, t) => {
      const area = el as unknown as { value: string; dispatchEvent(e: unknown): void };
      area.value = t as string;
      area.dispatchEvent(new (globalThis as unknown as { Event: new (type: string, init: object) => unknown }).Event("input", { bubbles: true }));
    }, token);
    await clickText(w.page, "button[type=submit]", "Log in");
  };

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
    if (oauth) rmSync(oauth.dir, { recursive: true, force: true });
  });

  it("refuses an expired token and logs in with a valid one", async () => {
    await tokenLogin(await oauth.sign({ scope: ADMIN, expiresIn: -60, sub: "ops" }));
    await waitText(w.page, "[role=alert]", "Login failed");
    await tokenLogin(await oauth.sign({ scope: ADMIN, sub: "ops" }));
    await waitText(w.page, "h1", "Overview");
    await waitText(w.page, ".who", "ops");
    await w.shot("oauth-overview", false);
    assert.deepEqual(w.problems.filter((p) => !p.includes("401")), []);
    w.problems.length = 0;
  });

  it("stops polling while the tab is hidden and resumes when it is shown", async () => {
    await go(w.page, "/queues", "Queues");
    await w.page.select("header select[name=refresh]", "1000");
    let polls = 0;
    const count = (req: HTTPRequest): void => {
      if (req.url().includes("/api/queues")) polls++;
    };
    w.page.on("request", count);
    await eventually(() => polls >= 2, 5000, "polls every second while visible");
    await w.page.evaluate(`Object.defineProperty(document, "hidden", { configurable: true, get: () => true }); document.dispatchEvent(new Event("visibilitychange"))`);
    await new Promise((r) => setTimeout(r, 300)); // let a poll already in flight land
    const atHide = polls;
    await new Promise((r) => setTimeout(r, 3000)); // three refresh periods: a live page would poll ~3 times
    assert.equal(polls, atHide, "no poll while hidden");
    await w.page.evaluate(`Object.defineProperty(document, "hidden", { configurable: true, get: () => false }); document.dispatchEvent(new Event("visibilitychange"))`);
    await eventually(() => polls > atHide, 2000, "a poll as soon as the tab is shown");
    w.page.off("request", count);
  });

  it("logs out, leaving no cookie and no stored credentials", async () => {
    await clickText(w.page, "button", "Log out");
    await w.page.waitForSelector("form.login-box");
    assert.equal(await w.page.evaluate("document.cookie"), "");
    assert.equal(await w.page.evaluate(`sessionStorage.getItem("coney.session")`), null);
    const cookies = await browser.cookies();
    assert.deepEqual(cookies, []);
    await w.page.reload({ waitUntil: "domcontentloaded" });
    await w.page.waitForSelector("form.login-box");
    assert.deepEqual(w.problems, []);
  });
});
