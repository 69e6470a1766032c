/**
 * The setups UI test files share, each opened once the file's own before() has started its
 * broker(s) and closed after the file's tests (call them inside describe(), after that before()):
 * a headless Chromium with a blank page (useBrowser), the same page logged in as guest to the
 * management UI (useGuestPage); and a further tab logged in as any user (loggedInPage).
 */
import { after, before } from "node:test";
import type { Browser } from "puppeteer-core";
import { launchBrowser, openPage, type WatchedPage } from "./browser.js";
import { login, waitText } from "./ui-session.js";

export interface GuestPage {
  /** The page (set before the first test runs). */
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

/**
 * Chromium and one blank page, for files whose first page is part of what they test (a login, a
 * TLS listener). `trustSpki` is asked for when the browser starts, after the file's before() has
 * made the certificate it names.
 */
export function useBrowser(opts: { trustSpki?: () => string } = {}): GuestPage {
  const ui = {} as { w: WatchedPage; browser: Browser };
  before(async () => {
    ui.browser = await launchBrowser(opts.trustSpki ? { trustSpki: opts.trustSpki() } : {});
    ui.w = await openPage(ui.browser);
  });
  after(async () => {
    await ui.browser?.close();
  });
  return ui;
}

/** Chromium and one page logged in as guest to the broker `httpUrl` names. */
export function useGuestPage(httpUrl: () => string): GuestPage {
  const ui = useBrowser();
  before(async () => {
    await login(ui.w.page, httpUrl(), "guest", "guest");
    await waitText(ui.w.page, "h1", "Overview");
  });
  return ui;
}
