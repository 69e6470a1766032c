/**
 * The setup most UI test files share: one headless Chromium page logged in as guest to the
 * management UI, opened once the file's own before() has started its broker(s), and closed after
 * the file's tests (useGuestPage); and a further tab logged in as any user (loggedInPage).
 */
import { after, before } from "node:test";
import type { Browser } from "puppeteer-core";
import { launchBrowser, openPage, type WatchedPage } from "./browser.js";
import { login, waitText } from "./ui-session.js";

export interface GuestPage {
  /** The logged-in page (set before the first test runs). */
  readonly w: WatchedPage;
  readonly browser: Browser;
}

/** A new tab of `browser` logged in as `user` (each tab keeps its own session), once `heading` shows. */
export async function loggedInPage(browser: Browser, baseUrl: string, user: string, password: string, heading = "Overview"): Promise<WatchedPage> {
  const tab = await openPage(browser);
  await login(tab.page, baseUrl, user, password);
  await waitText(tab.page, "h1", heading);
  return tab;
}

/** Call inside describe(), after the before() that starts the broker `httpUrl` names. */
export function useGuestPage(httpUrl: () => string): GuestPage {
  const ui = {} as { w: WatchedPage; browser: Browser };
  before(async () => {
    ui.browser = await launchBrowser();
    ui.w = await loggedInPage(ui.browser, httpUrl(), "guest", "guest");
  });
  after(async () => {
    await ui.browser?.close();
  });
  return ui;
}
