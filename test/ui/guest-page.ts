/**
 * The setup most UI test files share: one headless Chromium page logged in as guest to the
 * management UI, opened once the file's own before() has started its broker(s), and closed after
 * the file's tests. Call it inside describe(), after that before().
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

export function useGuestPage(httpUrl: () => string): GuestPage {
  const ui = {} as { w: WatchedPage; browser: Browser };
  before(async () => {
    ui.browser = await launchBrowser();
    ui.w = await openPage(ui.browser);
    await login(ui.w.page, httpUrl(), "guest", "guest");
    await waitText(ui.w.page, "h1", "Overview");
  });
  after(async () => {
    await ui.browser?.close();
  });
  return ui;
}
