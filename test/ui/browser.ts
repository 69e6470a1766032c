/**
 * The UI tests' browser: Debian's Chromium (never a downloaded one), headless, driven by
 * puppeteer-core. Each page collects console errors, page errors and failed requests, so a test
 * can assert none happened; screenshots go to test-output/ui/.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

export const SCREENSHOT_DIR = join(process.cwd(), "test-output", "ui");

/** CHROMIUM_PATH, else Debian's /usr/bin/chromium. Missing → the test fails, saying how to install it. */
export function chromiumPath(): string {
  const path = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
  if (!existsSync(path)) {
    throw new Error(`Chromium not found at ${path}: the UI tests need it. Install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH).`);
  }
  return path;
}

/** `trustSpki`: base64 SHA-256 of a server key's SPKI that Chromium accepts (a test CA's HTTPS listener). */
export async function launchBrowser(opts: { trustSpki?: string } = {}): Promise<Browser> {
  const args = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--disable-extensions", "--window-size=1360,900"];
  if (opts.trustSpki) args.push(`--ignore-certificate-errors-spki-list=${opts.trustSpki}`);
  return puppeteer.launch({ executablePath: chromiumPath(), headless: true, args, defaultViewport: { width: 1360, height: 900 } });
}

export interface WatchedPage {
  readonly page: Page;
  /** Console errors, uncaught page errors and failed requests seen so far. */
  readonly problems: string[];
  shot(name: string, fullPage?: boolean): Promise<string>;
}

export async function openPage(browser: Browser): Promise<WatchedPage> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console: ${msg.text()} ${msg.location()?.url ?? ""}`);
  });
  page.on("pageerror", (err) => problems.push(`page error: ${String(err)}`));
  page.on("requestfailed", (req) => {
    // A navigation away aborts in-flight polls; that is not a failure of the page.
    if (req.failure()?.errorText !== "net::ERR_ABORTED") problems.push(`request failed: ${req.url()} ${req.failure()?.errorText ?? ""}`);
  });
  page.on("dialog", (d) => void d.accept());
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    page,
    problems,
    async shot(name, fullPage = true) {
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage });
      return path;
    },
  };
}
