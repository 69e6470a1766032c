// Login with a pasted OAuth 2.0 token (and a refused expired one), log out (nothing left behind:
// no cookie, no stored credentials), and live refresh that stops while the tab is hidden.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import type { HTTPRequest } from "puppeteer-core";
import { startTestBroker, type TestBroker } from "../helpers/broker.js";
import { oauthFixture, type OAuthFixture } from "../helpers/oauth-tokens.js";
import { eventually } from "../helpers/wait.js";
import { useBrowser } from "./guest-page.js";
import { clickText, go, waitText } from "./ui-session.js";

const ADMIN = ["rabbitmq.tag:administrator", "rabbitmq.configure:*/*", "rabbitmq.write:*/*", "rabbitmq.read:*/*"];

describe("web UI login with OAuth 2.0, log out, live refresh", () => {
  let broker: TestBroker;
  let oauth: OAuthFixture;

  const tokenLogin = async (token: string): Promise<void> => {
    await ui.w.page.goto(`${broker.httpUrl}/`, { waitUntil: "domcontentloaded" });
    await clickText(ui.w.page, "[role=tab]", "OAuth 2.0 token");
    await ui.w.page.waitForSelector("textarea[name=token]");
    await ui.w.page.$eval("textarea[name=token]", (el, t) => {
      const area = el as unknown as { value: string; dispatchEvent(e: unknown): void };
      area.value = t as string;
      area.dispatchEvent(new (globalThis as unknown as { Event: new (type: string, init: object) => unknown }).Event("input", { bubbles: true }));
    }, token);
    await clickText(ui.w.page, "button[type=submit]", "Log in");
  };

  before(async () => {
    oauth = oauthFixture();
    // The token tab is offered only when /api/auth says the UI takes OAuth 2.0 logins.
    broker = await startTestBroker({ ...oauth.config, managementOauthEnabled: true, managementOauthClientId: "coney-ui", managementOauthProviderUrl: "https://idp.example" });
  });
  after(async () => {
    await broker?.close();
    if (oauth) rmSync(oauth.dir, { recursive: true, force: true });
  });
  const ui = useBrowser();

  it("refuses an expired token and logs in with a valid one", async () => {
    await tokenLogin(await oauth.sign({ scope: ADMIN, expiresIn: -60, sub: "ops" }));
    await waitText(ui.w.page, "[role=alert]", "Login failed");
    await tokenLogin(await oauth.sign({ scope: ADMIN, sub: "ops" }));
    await waitText(ui.w.page, "h1", "Overview");
    await waitText(ui.w.page, ".who", "ops");
    await ui.w.shot("oauth-overview", false);
    assert.deepEqual(ui.w.problems.filter((p) => !p.includes("401")), []);
    ui.w.problems.length = 0;
  });

  it("stops polling while the tab is hidden and resumes when it is shown", async () => {
    await go(ui.w.page, "/queues", "Queues");
    await ui.w.page.select("header select[name=refresh]", "1000");
    let polls = 0;
    const count = (req: HTTPRequest): void => {
      if (req.url().includes("/api/queues")) polls++;
    };
    ui.w.page.on("request", count);
    await eventually(() => polls >= 2, 5000, "polls every second while visible");
    await ui.w.page.evaluate(`Object.defineProperty(document, "hidden", { configurable: true, get: () => true }); document.dispatchEvent(new Event("visibilitychange"))`);
    await new Promise((r) => setTimeout(r, 300)); // let a poll already in flight land
    const atHide = polls;
    await new Promise((r) => setTimeout(r, 3000)); // three refresh periods: a live page would poll ~3 times
    assert.equal(polls, atHide, "no poll while hidden");
    await ui.w.page.evaluate(`Object.defineProperty(document, "hidden", { configurable: true, get: () => false }); document.dispatchEvent(new Event("visibilitychange"))`);
    await eventually(() => polls > atHide, 2000, "a poll as soon as the tab is shown");
    ui.w.page.off("request", count);
  });

  it("logs out, leaving no cookie and no stored credentials", async () => {
    await clickText(ui.w.page, "button", "Log out");
    await ui.w.page.waitForSelector("form.login-box");
    assert.equal(await ui.w.page.evaluate("document.cookie"), "");
    assert.equal(await ui.w.page.evaluate(`sessionStorage.getItem("coney.session")`), null);
    const cookies = await ui.browser.cookies();
    assert.deepEqual(cookies, []);
    await ui.w.page.reload({ waitUntil: "domcontentloaded" });
    await ui.w.page.waitForSelector("form.login-box");
    assert.deepEqual(ui.w.problems, []);
  });
});
